"""The layout per path from a run's engine_stats: objects under the longest path holding
them, every instance's paths with their bytes, nothing for a run that recorded none."""

from __future__ import annotations

from dbstor.report.document.layout_paths import objects_by_path, paths_body
from dbstor.results.model import Run

D0 = "/mnt/a/dbstor-pg-0/data"
TS = "/mnt/a/dbstor-pg-0/data/ts_inside"  # a tablespace inside the data directory


def run_with(stats: dict | None) -> Run:
    run = Run("r", "0", {}, {"label": "t"}, {"title": "PostgreSQL"}, {}, {}, {}, "now")
    run.engine_stats = stats
    return run


def stats() -> dict:
    row = {"files": 10, "device": "sdb"}
    return {
        "objects": [
            {"name": "trade", "kind": "table", "size_bytes": 4 << 20, "path": D0},
            {"name": "trade_pk", "kind": "index", "size_bytes": 1 << 20, "path": D0},
            {"name": "history", "kind": "table", "size_bytes": 8 << 20, "path": TS},
            {"name": "elsewhere", "kind": "table", "size_bytes": 1, "path": "/other"},
        ],
        "paths": [
            {"instance": 0, "role": "data", "path": D0, "bytes_on_disk": 9 << 20, **row},
            {"instance": 0, "role": "data", "path": TS, "bytes_on_disk": 8 << 20, **row},
            {"instance": 0, "role": "log", "path": "/mnt/l/wal", "bytes_on_disk": 16 << 20,
             "files": 1, "device": "sdc"},
            {"instance": 1, "role": "data", "path": "/mnt/a/dbstor-pg-1/data",
             "bytes_on_disk": 9 << 20, **row},
        ],
    }  # fmt: skip


def test_objects_go_to_the_longest_path_that_holds_them():
    found = objects_by_path(run_with(stats()))
    assert [o["name"] for o in found[D0]] == ["trade", "trade_pk"]
    assert [o["name"] for o in found[TS]] == ["history"]
    assert "/other" not in found and found["/mnt/l/wal"] == []


def test_each_instance_and_path_is_a_row_with_its_bytes_and_objects():
    html = paths_body([run_with(stats())], ["t"])
    assert "What is on each path" in html
    assert "<td>data 1 of 2</td><td>sdb</td>" in html and "<td>data 2 of 2</td>" in html
    assert "1 table, 1 index: 5 MiB (trade 4 MiB, trade_pk 1 MiB)" in html
    assert "1 table: 8 MiB (history 8 MiB)" in html
    assert '<td>log</td><td>sdc</td><td class="num">16 MiB in 1 file</td>' in html
    assert "t, instance 2</th><td>data</td>" in html
    assert "each other instance holds its own copy" in html


def test_a_run_without_paths_or_with_one_shows_no_table():
    one = {"paths": [{"instance": 0, "role": "data", "path": D0, "bytes_on_disk": 1}]}
    assert (
        paths_body([run_with(None), run_with({"objects": []}), run_with(one)], ["a", "b", "c"])
        == ""
    )

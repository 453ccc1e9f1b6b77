"""Oracle's counters at a window's edges (engines/oracle_stats.py) on recorded output of the
views (tests/fixtures/oracle/README.md names each source): the engine counters and the
window's deltas, bytes a block and a request, mean waits, per-file reads and read time,
and the per-file input of `dbstor advise`, which must agree with advise's own reader of a
v$filestat export."""

from __future__ import annotations

import csv
import re
from pathlib import Path

import pytest
import sqlglot
from sqlglot import exp

from dbstor.analysis.placement.oracle import parse_oracle
from dbstor.engines import oracle_stats as stats
from dbstor.engines.base import EngineCounters

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "oracle"


def recorded_stats(name: str) -> dict[str, float]:
    """'statistic name    value' lines of a recorded SQL*Plus listing."""
    out = {}
    for line in (FIXTURES / name).read_text().splitlines():
        found = re.fullmatch(r"([a-z][a-zA-Z *()/-]+?)\s+(-?[\d,]+)", line.strip())
        if found:
            out[found.group(1)] = float(found.group(2).replace(",", ""))
    return out


def recorded_events(name: str) -> dict[str, tuple[float, float]]:
    """event -> (waits, microseconds waited) from an AWR 'Top 5 Timed Events' table."""
    out = {}
    for line in (FIXTURES / name).read_text().splitlines():
        found = re.fullmatch(r"([a-z][a-z ]+?)\s+([\d,]+)\s+([\d,]+)\s+[\d.]+", line.strip())
        if found:
            waits, seconds = (float(g.replace(",", "")) for g in found.groups()[1:])
            out[found.group(1)] = (waits, seconds * 1e6)
    return out


def filestat_rows(edge: str) -> list[tuple]:
    with (FIXTURES / "filestat_two_edges.csv").open() as handle:
        rows = [r for r in csv.DictReader(handle) if r["edge"] == edge]
    keys = ("NAME", "TABLESPACE_NAME", "PHYRDS", "PHYWRTS", "PHYBLKRD", "PHYBLKWRT")
    keys += ("READTIM", "WRITETIM", "BYTES", "BLOCK_SIZE")
    return [tuple(r[k] for k in keys) for r in rows]


def test_the_full_scan_reads_8k_blocks_in_requests_of_about_33_blocks():
    """A new session's v$mystat starts at zero; after the forum's full scan of 1,000
    blocks the statistics dbstor reads give 8 KiB a block and 273,067 bytes a request."""
    after = stats.Snapshot(stats=recorded_stats("mystat_full_scan.txt"))
    before = stats.Snapshot(stats={name: 0.0 for name in after.stats})
    counted = stats.engine_counters(after).minus(stats.engine_counters(before))
    assert counted.physical_reads == 1000
    assert counted.storage_read_bytes == 8_192_000
    assert counted.storage_read_bytes / counted.physical_reads == 8192
    window = stats.window(before, after)
    requests = window["stats"]["physical read total IO requests"]
    assert requests == 30
    assert counted.storage_read_bytes / requests == pytest.approx(273_066.67, abs=0.01)


def test_a_statistic_missing_from_the_server_is_null_with_its_reason():
    snap = stats.Snapshot(stats=recorded_stats("mystat_full_scan.txt"))
    counters = stats.engine_counters(snap)
    assert counters.logical_reads is None  # the listing has no 'session logical reads'
    assert "session logical reads" in counters.why_null["logical_reads"]
    assert (
        counters.physical_writes is None
        and "physical writes" in counters.why_null["physical_writes"]
    )


def test_mean_waits_of_single_block_reads_and_log_file_sync_from_an_awr():
    after = stats.Snapshot(events=recorded_events("awr_top5_timed_events.txt"))
    assert set(stats.EVENTS) <= set(after.events)
    before = stats.Snapshot(events={e: (0.0, 0.0) for e in after.events})
    events = stats.window(before, after)["events"]
    assert events["db file sequential read"]["waits"] == 568_948
    assert events["db file sequential read"]["mean_ms"] == pytest.approx(7.690, abs=0.001)
    assert events["log file sync"]["mean_ms"] == pytest.approx(7.089, abs=0.001)


def test_per_file_reads_bytes_and_read_time_over_the_window():
    before = stats.snapshot(filestat_rows("before"), [], [], [])
    after = stats.snapshot(filestat_rows("after"), [], [], [])
    files = {f["name"].rsplit("/", 1)[1]: f for f in stats.window(before, after)["files"]}
    d0 = files["dbstor-oracle-0-d0.dbf"]
    assert (d0["reads"], d0["writes"]) == (30, 60)
    assert d0["read_bytes"] == 1000 * 8192  # blocks read times the block size
    assert d0["read_ms"] == pytest.approx(600.0)  # 60 hundredths of a second
    assert d0["mean_read_ms"] == pytest.approx(20.0)
    d1 = files["dbstor-oracle-0-d1.dbf"]
    assert d1["mean_read_ms"] == pytest.approx(18000 / 2000)
    assert files["system01.dbf"]["tablespace"] == "SYSTEM"


def test_a_counter_that_went_back_is_null_with_the_reason_never_negative():
    before = stats.snapshot(filestat_rows("after"), [], [], [])
    after = stats.snapshot(filestat_rows("before"), [], [], [])  # the instance restarted
    window = stats.window(before, after)
    assert all(f["reads"] is None for f in window["files"] if "system" not in f["name"])
    assert window["why_null"] and all(
        "went back" in w or "negative" in w for w in window["why_null"].values()
    )


def test_the_advise_input_agrees_with_advise_reading_the_same_export(tmp_path):
    """object_io() per file equals what `dbstor advise` reads from a v$filestat export
    of the same rows (analysis/placement/oracle.py)."""
    rows = filestat_rows("after")
    mine = {o.name: o for o in stats.object_io(stats.file_stats(rows))}
    export = tmp_path / "filestat.csv"
    with export.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(
            [
                "NAME",
                "TABLESPACE_NAME",
                "PHYRDS",
                "PHYWRTS",
                "PHYBLKRD",
                "PHYBLKWRT",
                "READTIM",
                "WRITETIM",
                "BYTES",
                "BLOCK_SIZE",
            ]
        )
        writer.writerows(rows)
    (snap,), cumulative = parse_oracle(export)
    assert cumulative
    for name, theirs in snap.objects.items():
        ours = mine[name]
        assert (ours.reads, ours.writes, ours.size_bytes) == (
            theirs.reads,
            theirs.writes,
            theirs.size_bytes,
        )
        assert (ours.read_bytes, ours.write_bytes) == (theirs.bytes_read, theirs.bytes_written)
        assert ours.read_stall_ms == pytest.approx(theirs.read_stall_ms)
        assert ours.write_stall_ms == pytest.approx(theirs.write_stall_ms)


def test_object_io_keeps_only_dbstors_tablespaces_when_it_made_them():
    files = stats.file_stats(filestat_rows("after"))
    kept = stats.object_io(files, {"DBSTOR_0_D0": "data", "DBSTOR_0_D1": "data"})
    assert sorted(o.name.rsplit("/", 1)[1] for o in kept) == [
        "dbstor-oracle-0-d0.dbf",
        "dbstor-oracle-0-d1.dbf",
    ]
    assert len(stats.object_io(files)) == 3


@pytest.mark.parametrize("query", stats.counter_queries(), ids=lambda q: q.name)
def test_every_counter_query_parses_and_says_what_it_needs(query):
    tree = sqlglot.parse_one(query.sql, read="oracle")
    assert isinstance(tree, exp.Select)
    assert "SELECT_CATALOG_ROLE" in query.needs
    assert query.sql.count("v$") >= 1


def test_engine_counters_subtract_like_every_engines():
    a = EngineCounters(logical_reads=10.0, physical_reads=4.0)
    b = stats.engine_counters(
        stats.Snapshot(stats={"session logical reads": 30.0, "physical reads": 5.0})
    )
    assert b.minus(a).logical_reads == 20 and b.minus(a).physical_reads == 1

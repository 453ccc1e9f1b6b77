"""advise --write-study: the study it writes loads with dbstor's own loader and holds the
run's load with the choice on the fast path (commands/advise_study.py)."""

from __future__ import annotations

import pytest

from dbstor.commands.advise_study import placeable_choice, study_text, toml_value
from dbstor.errors import UserError
from dbstor.results.model import Run
from dbstor.study.load import load_study


def run_of(engine="postgres", external=False):
    study = {
        "name": "x",
        "duration_s": 20.0,
        "warmup_s": 2.0,
        "slo": {"metric": "read_lat_mean_ms", "limit_ms": 2.0},
        "targets": [{"label": "hdd", "paths": {"data": ["/mnt/hdd"], "log": ["/mnt/log"]}}],
        "databases": [
            {
                "engine": engine,
                "workload": "brokerage",
                "scale": 500,
                "series": {"kind": "users", "values": [1, 4, 8], "users": 1},
                "external": external,
                "buffer_bytes": 8388608,
                "memory_limit_bytes": None,
                "seed": 3,
                "options": {"trade_days": 30},
            }
        ],
    }
    return Run(
        run_id="r1",
        tool_version="t",
        study=study,
        target={"label": "hdd"},
        engine={"name": engine},
        workload={},
        host={},
        slo={},
        created_at="2026-11-26T00:00:00+00:00",
    )


RESULT = {
    "chosen": ["trade_history", "trade_ca_dts", "ib_logfile0"],
    "ranking": [
        {"name": "trade_history", "kind": "table"},
        {"name": "trade_ca_dts", "kind": "index"},
        {"name": "ib_logfile0", "kind": "log"},
    ],
}


def test_the_written_study_loads_as_before_and_after_at_the_same_load(tmp_path):
    place, notes = placeable_choice(RESULT, "postgres")
    assert place == {"trade_history": "fast", "trade_ca_dts": "fast"}
    assert notes == [
        "ib_logfile0 (log) is left where it is: place moves tables and indexes on postgres"
    ]
    path = tmp_path / "moved.toml"
    path.write_text(study_text(run_of(), place, notes, "/mnt/flash"))
    study = load_study(path)
    before, after = study.targets
    assert (before.label, after.label, study.baseline) == ("before", "after", "before")
    assert before.paths == after.paths == (tmp_path / "/mnt/hdd",)
    assert before.fast == (tmp_path / "/mnt/hdd/dbstor-fast-before",)  # not the data folder
    assert after.fast == (tmp_path / "/mnt/flash",) and before.log == after.log
    (spec,) = study.databases
    assert spec.place == place and spec.series.values == (1, 4, 8) and spec.scale == 500
    assert (spec.buffer_bytes, spec.seed, spec.options) == (8388608, 3, {"trade_days": 30})
    assert (study.duration_s, study.warmup_s, study.slo_limit_ms) == (20.0, 2.0, 2.0)


def test_mariadb_leaves_indexes_with_their_table():
    place, notes = placeable_choice(RESULT, "mariadb")
    assert place == {"trade_history": "fast"}
    assert notes[0].startswith("trade_ca_dts (index) is left where it is")


def test_an_external_run_is_refused():
    with pytest.raises(UserError, match="not a managed database run"):
        study_text(run_of(external=True), {"t": "fast"}, [], "/mnt/flash")


def test_toml_values():
    assert toml_value({'a"b': [1, 2.5, True, "x"]}) == '{ "a\\"b" = [1, 2.5, true, "x"] }'

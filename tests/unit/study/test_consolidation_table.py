"""[consolidation] in a study file (checked before anything runs), a [capacity] table whose
drive count contradicts a target's drives fact (refused or scoped), and the cost case's
comparison taken from the database runs, never fio's."""

from pathlib import Path

import pytest

from dbstor.commands.consolidation import FIO_ONLY_NOTE, cost_comparison
from dbstor.commands.study_analyses import StudyAnalyses
from dbstor.errors import UserError
from dbstor.results.model import CpuStats, Load, Point, Run
from dbstor.study.load import study_from_dict
from dbstor.study.values import drives_fact

TCO = {"servers": 10, "cores_per_server": 12, "license": "sqlserver-enterprise"}
POSTGRES = {"engine": "postgres", "workload": "brokerage", "instances": [1, 2]}


def _study(**tables):
    data = {
        "targets": [
            {"label": "OLD", "path": "/tmp/a", "facts": {"drives": 120}},
            {"label": "NEW", "path": "/tmp/b", "facts": {"drives": "48x800GB"}},
        ],
        "databases": [POSTGRES],
        **tables,
    }
    return study_from_dict(data, source="s.toml", base_dir=Path("/tmp"))


def test_a_consolidation_table_is_read_with_its_defaults():
    study = _study(tco=TCO, consolidation={})
    assert study.consolidation is not None and study.consolidation.servers_after is None
    study = _study(tco=TCO, consolidation={"target": "NEW", "servers_after": 5, "duration": "9s"})
    assert (study.consolidation.target, study.consolidation.servers_after) == ("NEW", 5)
    assert study.consolidation.duration_s == 9.0
    assert study.describe()["consolidation"]["servers_after"] == 5


@pytest.mark.parametrize(
    ("tables", "message"),
    [
        ({"consolidation": {}}, "s.toml: consolidation: verifying a consolidation needs a [tco]"),
        ({"tco": TCO, "consolidation": {"servers": 5}}, "consolidation.servers: unknown field"),
        ({"tco": TCO, "consolidation": {"target": "MID"}}, "'MID' is not a target label"),
        ({"tco": TCO, "consolidation": {"servers_after": 0}}, "servers_after: 0 is not a"),
        ({"tco": TCO, "consolidation": {"duration": "0s"}}, "consolidation.duration"),
        ({"tco": TCO, "consolidation": "yes"}, "consolidation: must be a table"),
    ],
)
def test_a_bad_consolidation_table_is_one_line_naming_the_field(tables, message):
    with pytest.raises(UserError, match=message.replace("[", r"\[")):
        _study(**tables)


def test_servers_after_must_be_fewer_than_the_cost_cases_servers():
    with pytest.raises(UserError, match=r"servers_after: 10 is not fewer than tco.servers \(10\)"):
        StudyAnalyses(_study(tco=TCO, consolidation={"servers_after": 10}))


def test_a_fio_only_or_query_study_cannot_be_consolidated():
    data = {"targets": [{"label": "A", "path": "/tmp/a"}], "tco": TCO, "consolidation": {}}
    with pytest.raises(UserError, match="needs a \\[\\[databases\\]\\] whose load adds up"):
        study_from_dict(data, source="s.toml", base_dir=Path("/tmp"))


@pytest.mark.parametrize(
    ("value", "count"), [(48, 48), ("48", 48), ("48x800GB", 48), ("many", None), (True, None)]
)
def test_the_drives_fact_as_a_count(value, count):
    assert drives_fact({"drives": value}) == count


def test_a_study_wide_capacity_is_left_out_for_a_target_whose_drives_fact_differs():
    capacity = {"drives": "48x800GB", "raid": "raid-dp", "raid_group": 23, "spares": 2}
    analyses = StudyAnalyses(_study(capacity=capacity))
    assert analyses.capacity["NEW"]["inputs"]["drives"] == 48
    assert analyses.capacity["OLD"] == {
        "missing": "the study's [capacity] table counts 48 drives, but OLD's facts say "
        "drives = 120: it describes another array; give OLD its own capacity = { drives = ... }"
    }


def test_a_targets_own_capacity_that_contradicts_its_drives_fact_is_refused():
    study = _study()
    data = {
        "targets": [
            {"label": "OLD", "path": "/tmp/a", "facts": {"drives": 120},
             "capacity": {"drives": "48x800GB", "raid": "raid-dp", "raid_group": 12}},
        ],
        "databases": [POSTGRES],
    }  # fmt: skip
    study = study_from_dict(data, source="s.toml", base_dir=Path("/tmp"))
    with pytest.raises(UserError, match=r"s.toml: targets\[0\].capacity.drives: 48 drives, but"):
        StudyAnalyses(study)


def _run(label: str, engine: str, workload: str, cpu: float) -> Run:
    run = Run(f"r-{label}-{engine}", "t", {}, {"label": label}, {"name": engine},
              {"name": workload}, {}, {"metric": "read_lat_mean_ms", "limit_ms": 50.0}, "now")  # fmt: skip
    kind = "iodepth" if engine == "fio" else "users"
    run.points = [
        Point(Load(kind, v), 10.0, tps=None if engine == "fio" else 100.0 * v,
              read_iops=1000.0 * v, cpu=CpuStats(util_pct=cpu * v, server_pct=None))
        for v in (1, 2)
    ]  # fmt: skip
    run.status = "complete"
    return run


def test_the_cost_case_compares_the_database_runs_not_fio():
    fio = [_run("OLD", "fio", "io-oltp", 40.0), _run("NEW", "fio", "io-oltp", 45.0)]
    db = [_run("OLD", "postgres", "brokerage", 10.0), _run("NEW", "postgres", "brokerage", 20.0)]
    comparison, note, runs = cost_comparison([*fio, *db], "OLD", {"the study's": "fio"})
    assert note is None and runs == db
    assert {e["run_id"] for e in comparison["runs"]} == {r.run_id for r in db}
    # fio only: the study's own comparison, saying the CPU is not a server's
    assert cost_comparison(fio, "OLD", {"x": 1}) == ({"x": 1}, FIO_ONLY_NOTE, fio)
    # a database on one target only: nothing to compare, no fallback to fio
    assert cost_comparison([*fio, db[0]], "OLD", {"x": 1}) == (None, None, [])


def test_the_verify_run_says_why_it_did_not_run_before_anything_starts(tmp_path):
    """No servers after (a withheld cost case and no servers_after), no fewer servers, or no
    finished baseline point: {"missing": why}, and nothing is run."""
    from dbstor.commands.consolidation import verify_consolidation
    from dbstor.runs.progress import Progress
    from dbstor.runs.study import StudyOutcome

    study = _study(tco=TCO, consolidation={})
    outcome = StudyOutcome(tmp_path, runs=[], run_folders=[])
    said = []
    progress = Progress(quiet=True)
    progress.say = said.append

    def verify(cost_case):
        return verify_consolidation(study, outcome, 10, cost_case, None, None, progress)

    withheld = verify({"missing": "OLD's point at 2 users: it was not steady"})
    assert withheld == {
        "missing": "the cost case gives no servers after: OLD's point at 2 users: it was not "
        "steady; give consolidation.servers_after to verify a count of your own"
    }
    assert verify({"servers": {"after": 10}}) == {
        "missing": "the cost case keeps 10 of 10 servers: no consolidation to verify"
    }
    assert verify({"servers": {"after": 5}}) == {
        "missing": "the baseline OLD has no finished brokerage point"
    }
    assert said == [] and list(tmp_path.iterdir()) == []

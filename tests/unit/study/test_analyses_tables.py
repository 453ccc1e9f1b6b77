"""[capacity], [efficiency], [placement] and [tco] in a study file: their keys are the
matching commands' flags, and a bad name or value is one line naming the file and the
field, refused before anything runs."""

import argparse
from pathlib import Path

import pytest

from dbstor.commands.study_analyses import StudyAnalyses, as_flags
from dbstor.errors import UserError
from dbstor.study.analyses import COMMANDS, STUDY_ONLY_KEYS, TABLES
from dbstor.study.load import study_from_dict

# flags of the commands a study does not take: sources and outputs the study itself gives
NOT_IN_STUDIES = {
    "capacity": {"json"},
    "efficiency": {"json", "quiet"},
    "advise": {"sqlserver", "oracle", "postgres", "interval", "fast_run", "slow_run", "top",
               "json", "html", "write_study", "fast_path"},
    "tco": {"cpu_before", "cpu_after", "before_run", "after_run", "licence", "licence_price",
            "json", "html"},
}  # fmt: skip


def _flags(command):
    from dbstor.cli import build_parser

    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    options = (o for a in sub.choices[command]._actions for o in a.option_strings)
    return {o[2:].replace("-", "_") for o in options if o.startswith("--") and o != "--help"}


@pytest.mark.parametrize("table", sorted(TABLES))
def test_the_keys_are_the_commands_flags(table):
    command = COMMANDS[table]
    keys = set(TABLES[table]) - set(STUDY_ONLY_KEYS)
    assert keys == _flags(command) - NOT_IN_STUDIES[command]


def _study(**tables):
    data = {
        "targets": [
            {"label": "slow", "path": "/tmp", **tables.pop("slow", {})},
            {"label": "fast", "path": "/tmp"},
        ],
        **tables,
    }
    return study_from_dict(data, source="s.toml", base_dir=Path("/tmp"))


def _refusal(**tables):
    with pytest.raises(UserError) as info:
        StudyAnalyses(_study(**tables))
    message = str(info.value)
    assert "\n" not in message
    return message


def test_a_bad_value_names_the_file_and_the_field():
    assert _refusal(capacity={"drives": "48x800GB", "raid": "raid9"}).startswith(
        "s.toml: capacity.raid: invalid choice: 'raid9'"
    )
    assert _refusal(capacity={"drives": "4y1TB"}).startswith("s.toml: capacity.drives: ")
    assert _refusal(slow={"capacity": {"drives": "24x1TB", "raid_group": 1}}).startswith(
        "s.toml: targets[0].capacity.raid_group: '1' is not a whole number"
    )
    assert _refusal(efficiency={"sample": "0%"}).startswith("s.toml: efficiency.sample: ")
    assert _refusal(placement={"fast_capacity": "lots"}).startswith(
        "s.toml: placement.fast_capacity: "
    )
    assert _refusal(placement={"fast_capacity": "1GB", "fast": "flsh"}).startswith(
        "s.toml: placement.fast: 'flsh' is not a target label: slow, fast"
    )
    assert _refusal(tco={"servers": 0, "cores_per_server": 8, "license": "none"}).startswith(
        "s.toml: tco.servers: '0' is not a whole number"
    )
    assert "tco.servers is required" in _refusal(tco={"cores_per_server": 8, "license": "none"})


def test_an_unknown_key_gets_a_suggestion():
    with pytest.raises(
        UserError,
        match=r"^s.toml: capacity.raid_grp: unknown field \(did you mean 'raid_group'\?\)",
    ):
        _study(capacity={"raid_grp": 4})
    with pytest.raises(UserError, match=r"^s.toml: targets\[0\].tco: unknown field"):
        _study(slow={"tco": {}})
    with pytest.raises(UserError, match=r"^s.toml: efficiency.full: must be true or false"):
        _study(efficiency={"full": "yes"})


def test_a_targets_own_table_goes_over_the_studys():
    analyses = StudyAnalyses(
        _study(
            capacity={"drives": "48x800GB", "spares": 2},
            slow={"capacity": {"drives": "24x1TB", "raid": "raid6", "raid_group": 12}},
        )
    )
    slow, fast = analyses.capacity["slow"]["inputs"], analyses.capacity["fast"]["inputs"]
    assert (slow["drives"], slow["raid"], slow["spares"]) == (24, "raid6", 2)
    assert (fast["drives"], fast["raid"], fast["spares"]) == (48, "raid-dp", 2)


def test_tables_become_the_commands_flags():
    assert as_flags(
        {"drives": "48x800GB", "spares": 2, "full": True, "no_matrix": False,
         "snapshots": {"data": "2h", "log": "15m"}, "fast": "flash"}
    ) == ["--drives=48x800GB", "--spares=2", "--full", "--snapshots=data=2h,log=15m"]  # fmt: skip


def test_a_study_across_hosts_keeps_its_tables_and_names_those_it_cannot_have():
    """A cluster's study is no longer refused for its tables: they run on the merged
    results, and the ones that need this host's files or a re-run here say why."""
    from dbstor.commands.cluster_flags import check_cluster_flags_beside
    from dbstor.study.analyses import cluster_skips

    study = _study(capacity={"drives": "4x1TB"})
    args = argparse.Namespace(cluster="127.0.0.1:6379", hosts=None, clients=None)
    check_cluster_flags_beside(study, args)
    assert cluster_skips(study) == []  # capacity needs no files: computed
    lines = cluster_skips(_study(efficiency={"array": "ontap-adaptive"}))
    assert lines == [
        "analyses: efficiency not computed: the study ran on a cluster: its files were built "
        "on the cluster's hosts, not on this one, and removed there; run dbstor efficiency "
        "on a host's copy"
    ]


def test_the_cost_cases_cpu_is_the_comparisons_at_the_baselines_knee_load():
    from dbstor.commands.study_analyses import cpu_at_same_load

    same = {
        "load": {"kind": "users", "value": 8.0},
        "basis": "the baseline's knee load",
        "runs": [
            {"label": "old", "values": {"cpu_pct": 12.0}},
            {"label": "new", "values": {"cpu_pct": 30.0}},
        ],
    }
    before, after, how = cpu_at_same_load({"same_load": same}, "old", "new")
    assert (before, after) == (12.0, 30.0)
    assert "host-wide CPU" in how and "users 8" in how
    same["load_words"] = "8 users"  # the comparison's own words for its load, when it has them
    assert cpu_at_same_load({"same_load": same}, "old", "new")[2].startswith(
        "host-wide CPU measured by the runs at the baseline's knee load (8 users): old 12.0%"
    )
    # the database server's own CPU, once recorded, is taken before the host's
    same["runs"][0]["values"]["cpu_own_pct"] = 10.0
    same["runs"][1]["values"]["cpu_own_pct"] = 25.0
    assert cpu_at_same_load({"same_load": same}, "old", "new")[:2] == (10.0, 25.0)
    # the comparison says whose its cpu_pct is: the server's own is never called host-wide
    own = {"same_load": same, "cpu_from": "the database server's own processes"}
    del same["runs"][0]["values"]["cpu_own_pct"]
    assert cpu_at_same_load(own, "old", "new")[2].startswith(
        "the CPU of the database server's own processes measured by the runs at"
    )
    assert "knee load" in cpu_at_same_load({"same_load": None}, "old", "new")
    same["runs"][1]["values"] = {"cpu_pct": None}
    assert "no CPU" in cpu_at_same_load({"same_load": same}, "old", "new")


def test_a_refusal_naming_two_flags_names_both_as_fields():
    message = _refusal(efficiency={"snapshots": {"data": "2h"}, "copies": 4, "retention": "1d",
                                   "change_rate": "5%/h"})  # fmt: skip
    assert message.startswith("s.toml: efficiency: give copies or retention, not both"), message


def test_no_cost_case_from_cpu_the_comparison_withheld():
    """TR-4403 shrunk: both runs at the same load read from memory; the comparison withheld
    every factor, so the cost case must not consolidate on their CPU either."""
    from dbstor.commands.study_analyses import cpu_at_same_load

    memory = "FLASH's point at 2 instances: its reads came from memory, not the storage"
    same = {
        "load": {"kind": "instances", "value": 2.0},
        "basis": "the baseline's knee load",
        "runs": [
            {"label": "LEGACY", "values": {"cpu_pct": 40.5}, "withheld": {}},
            {"label": "FLASH", "values": {"cpu_pct": 35.7}, "withheld": {"cpu_pct": memory}},
        ],
    }
    why = cpu_at_same_load({"same_load": same}, "LEGACY", "FLASH")
    assert why == f"the CPU at the baseline's knee load cannot carry a cost case: {memory}"
    same["runs"][1]["withheld"] = {"throughput": "noisy"}  # another figure's reason: CPU stands
    assert cpu_at_same_load({"same_load": same}, "LEGACY", "FLASH")[:2] == (40.5, 35.7)
    same["basis"] = "the baseline's peak load"  # a baseline with no knee: its peak's load
    same["runs"][1]["withheld"] = {"cpu_pct": memory}
    why = cpu_at_same_load({"same_load": same}, "LEGACY", "FLASH")
    assert why == f"the CPU at the baseline's peak load cannot carry a cost case: {memory}"
    same["runs"][1] = {"label": "FLASH", "values": {"cpu_pct": None}, "withheld": {}}
    assert cpu_at_same_load({"same_load": same}, "LEGACY", "FLASH") == (
        "the runs of LEGACY and FLASH recorded no CPU at the baseline's peak load"
    )


def test_a_per_role_value_names_a_role_the_runs_put_files_on():
    """snapshots = { dat = "2h" } modelled the snapshots of no file and said nothing."""
    message = _refusal(efficiency={"snapshots": {"dat": "2h"}, "change_rate": "5%/h"})
    assert message == (
        "s.toml: efficiency.snapshots.dat: not a target role (did you mean 'data'?); "
        "allowed: data, log, temp, fast"
    )
    StudyAnalyses(
        _study(efficiency={"snapshots": {"data": "2h", "log": "15m"}, "change_rate": "5%/h"})
    )


def test_a_cost_case_not_computed_also_asks_for_a_missing_price(tmp_path):
    """[tco] without storage_price on a busy machine: 'Not computed: the CPU ...' named
    one missing input; the price, needed for ROI, NPV and payback, went unsaid."""
    import json

    from dbstor.runs.study import StudyOutcome

    tco = {"servers": 10, "cores_per_server": 12, "license": "oracle-enterprise"}
    outcome = StudyOutcome(folder=tmp_path, comparison={"same_load": None})
    StudyAnalyses(_study(tco=tco)).write(outcome)
    missing = json.loads((tmp_path / "analyses.json").read_text())["tco"]["missing"]
    assert missing.endswith("; ROI, NPV and payback need storage_price too"), missing
    StudyAnalyses(_study(tco={**tco, "storage_price": 250000})).write(outcome)
    missing = json.loads((tmp_path / "analyses.json").read_text())["tco"]["missing"]
    assert "storage_price" not in missing and "knee load" in missing

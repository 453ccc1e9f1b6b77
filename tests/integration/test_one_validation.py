"""`dbstor study FILE` checks a study file as `dbstor run FILE` does before anything runs
(one validation, commands/study_analyses.check_as_run_would): for each kind of study a
run refuses without touching a target, `study` refuses it with the very same line; and
every example study file passes `study`."""

from __future__ import annotations

from pathlib import Path

import pytest

pytestmark = [pytest.mark.integration, pytest.mark.skip_without_fio]

EXAMPLES = Path(__file__).parents[2] / "examples"
DB = """[study]
name = "v"
duration = "1s"
warmup = "0s"
[[targets]]
label = "A"
path = "a"
{extra}
[[databases]]
engine = "sqlite"
workload = "brokerage"
users = [1]
{db}
"""
IO = """[study]
name = "v"
duration = "1s"
warmup = "0s"
size = "4MiB"
profiles = ["p"]
[load]
kind = "iodepth"
values = {values}
[[targets]]
label = "A"
path = "a"
[profiles.p]
based_on = "io-oltp"
{profile}
"""
REFUSED = {
    "place: a pattern that names nothing": DB.format(extra='fast = "f"', db='place = { "nosuch_*" = "fast" }'),
    "place: a role the target lacks": DB.format(extra="", db='place = { trade = "fast" }'),
    "place: an index apart from its table": DB.format(extra='fast = "f"', db='place = { trade_ca_dts = "fast" }'),
    "fio: a setting fio refuses": IO.format(values="[1]", profile='distribution = "zipf:1"'),
    "fio: a queue depth no engine takes": IO.format(values="[1, 100000]", profile=""),
    "values: the fast role on the data folder": DB.format(extra='fast = "a"', db='place = { trade = "fast" }'),
    "values: a users value twice": DB.format(extra="", db="").replace("users = [1]", "users = [2, 2]"),
    "values: a block size direct I/O cannot move": IO.format(values="[1]", profile='block_size = "1"'),
}  # fmt: skip


@pytest.mark.parametrize("case", list(REFUSED))
def test_study_refuses_what_run_refuses_with_the_same_line(dbstor, tmp_path, case):
    (tmp_path / "a").mkdir()
    (tmp_path / "f").mkdir()
    (tmp_path / "s.toml").write_text(REFUSED[case])
    ran = dbstor.assert_user_error(dbstor("run", "s.toml", "--out", "o", cwd=tmp_path))
    checked = dbstor.assert_user_error(dbstor("study", "s.toml", cwd=tmp_path))
    assert checked == ran
    assert not (tmp_path / "o").exists() or not any((tmp_path / "o").iterdir())


@pytest.mark.parametrize("example", sorted(p.name for p in EXAMPLES.glob("*.toml")))
def test_every_example_passes_the_check(dbstor, example):
    proc = dbstor("study", EXAMPLES / example)
    assert proc.returncode == 0, proc.stderr
    assert ": ok:" in proc.stdout

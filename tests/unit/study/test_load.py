from pathlib import Path

import pytest

from dbstor.errors import UserError
from dbstor.study.load import load_study, resolve_profile

GOOD = """
[study]
name = "three configurations"
profiles = ["io-oltp", "fast-oltp"]
duration = "20s"
warmup = "2s"
size = "2GiB"
repeats = 3
baseline = "ISCSI"

[slo]
metric = "read_lat_mean_ms"
limit = "20ms"

[load]
kind = "rate"
values = [1000, 2000]
jobs = 2

[[targets]]
label = "FC"
path = "fc"
facts = { protocol = "FC", drives = 48 }

[[targets]]
label = "ISCSI"
paths = ["iscsi1", "/abs/iscsi2"]

[profiles.fast-oltp]
based_on = "io-oltp"
block_split = { "8K" = 70, "64K" = 30 }
distribution = "zipf:1.2"
files = 4
"""


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "study.toml"
    path.write_text(text)
    return path


def test_full_study(tmp_path):
    study = load_study(write(tmp_path, GOOD))
    assert study.name == "three configurations"
    assert [p.name for p in study.profiles] == ["io-oltp", "fast-oltp"]
    assert study.duration_s == 20 and study.warmup_s == 2 and study.repeats == 3
    assert study.file_size == 2 * 1024**3
    assert study.slo_metric == "read_lat_mean_ms" and study.slo_limit_ms == 20
    assert (
        study.series.kind == "rate"
        and study.series.values == (1000, 2000)
        and study.series.jobs == 2
    )
    fc, iscsi = study.targets
    assert fc.paths == ((tmp_path / "fc").resolve(),)  # relative to the study file
    assert iscsi.paths[1] == Path("/abs/iscsi2")
    assert fc.facts == {"protocol": "FC", "drives": 48}
    custom = study.profiles[1]
    assert (
        custom.block_split == ((8192, 70.0), (65536, 30.0))
        and custom.distribution == "zipf:1.2"
        and custom.files == 4
    )
    assert custom.read_pct == 90.0  # inherited from io-oltp
    assert study.baseline == "ISCSI"


def test_defaults(tmp_path):
    study = load_study(write(tmp_path, '[[targets]]\npath = "x"\n'))
    assert [p.name for p in study.profiles] == ["io-oltp"]
    assert study.series is None and study.series_for(study.profiles[0]).values == (
        1,
        2,
        4,
        8,
        16,
        32,
        64,
    )
    slo = study.slo_for(study.profiles[0])
    assert (slo.metric, slo.limit_ms) == ("read_lat_p99_ms", 1.0)
    assert study.slo_for(resolve_profile("io-log")).metric == "write_lat_p99_ms"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[study\n", "not valid TOML"),
        (
            '[study]\ndurration = "1s"\n[[targets]]\npath="x"\n',
            "study.durration: unknown field (did you mean 'duration'?)",
        ),
        (
            '[[targets]]\npath="x"\n[load]\nkind = "qd"\nvalues=[1]\n',
            "load.kind: 'qd' is not one of iodepth, jobs, rate, auto",
        ),
        (
            '[[targets]]\npath="x"\n[load]\nkind = "iodepth"\n',
            "load.values: a iodepth series needs values",
        ),
        (
            '[[targets]]\npath="x"\n[load]\nvalues = [1, -2]\n',
            "load.values: -2 is not a positive whole number",
        ),
        ('[study]\nprofiles = ["io-oltpp"]\n[[targets]]\npath="x"\n', "did you mean 'io-oltp'"),
        (
            '[study]\nduration = "fast"\n[[targets]]\npath="x"\n',
            "study.duration: 'fast' is not a duration",
        ),
        ('[slo]\nlimit = "0ms"\n[[targets]]\npath="x"\n', "slo.limit: must be above zero"),
        ('[slo]\nmetric = "p99"\n[[targets]]\npath="x"\n', "slo.metric: 'p99' is not one of"),
        ("[study]\n", "targets: give at least one [[targets]] table"),
        (
            '[[targets]]\nlabel="A"\npath="x"\n[[targets]]\nlabel="A"\npath="y"\n',
            "labels must differ",
        ),
        ('[[targets]]\nlabel="a b"\npath="x"\n', "targets[0].label"),
        ('[[targets]]\nlabel="A"\n', "targets[0].paths: must be a non-empty list"),
        (
            '[study]\nbaseline="Z"\n[[targets]]\nlabel="A"\npath="x"\n',
            "study.baseline: 'Z' is not a target label",
        ),
        (
            '[[targets]]\npath="x"\n[profiles.p]\nblock_split = { "8K" = 70 }\n',
            "profiles.p.block_split: the percentages must add up to 100",
        ),
        (
            '[[targets]]\npath="x"\n[profiles.p]\ndistribution = "zoned:50/10:40/90"\n',
            "access adds to 100",
        ),
    ],
)
def test_errors_name_file_and_field(tmp_path, text, message):
    path = write(tmp_path, text)
    with pytest.raises(UserError) as info:
        load_study(path)
    assert str(info.value).startswith(str(path))
    assert message in str(info.value)
    assert "\n" not in str(info.value)


def test_missing_file(tmp_path):
    with pytest.raises(UserError, match="no such study file"):
        load_study(tmp_path / "nope.toml")


def test_database_users_or_instances_auto_are_searched_series(tmp_path):
    text = '[[targets]]\npath="x"\n[[databases]]\nengine="sqlite"\nusers="auto"\n'
    series = load_study(write(tmp_path, text)).databases[0].series
    assert (series.kind, series.values, series.auto) == ("users", (), True)
    text = '[[targets]]\npath="x"\n[[databases]]\ninstances="auto"\nusers_per_instance=2\n'
    series = load_study(write(tmp_path, text)).databases[0].series
    assert (series.kind, series.users, series.auto) == ("instances", 2, True)
    for wrong in ('users="many"', 'instances="some"'):
        text = f'[[targets]]\npath="x"\n[[databases]]\n{wrong}\n'
        with pytest.raises(UserError, match='is neither a list nor "auto"'):
            load_study(write(tmp_path, text))


def test_steady_is_auto_by_default_with_a_maximum_the_user_can_set(tmp_path):
    study = load_study(
        write(tmp_path, '[study]\nduration = "10s"\nwarmup = "2s"\n[[targets]]\npath = "x"\n')
    )
    # the warm-up, four windows and the three settles between them
    assert study.steady == "auto" and study.steady_limit_s() == 2 + 4 * 10 + 3 * 1
    held = load_study(write(tmp_path, '[study]\nmax_duration = "2m"\n[[targets]]\npath = "x"\n'))
    assert held.steady_limit_s() == 120 and held.describe()["max_duration_s"] == 120
    off = load_study(write(tmp_path, '[study]\nsteady = "off"\n[[targets]]\npath = "x"\n'))
    assert off.steady_limit_s() is None


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('steady = "maybe"', "study.steady"),
        ('duration = "10s"\nwarmup = "5s"\nmax_duration = "12s"', "shorter than the warm-up"),
    ],
)
def test_steady_settings_that_cannot_hold_are_refused(tmp_path, text, message):
    from dbstor.errors import UserError

    with pytest.raises(UserError, match=message):
        load_study(write(tmp_path, f'[study]\n{text}\n[[targets]]\npath = "x"\n'))


def test_a_study_of_query_points_alone_takes_any_maximum(tmp_path):
    """Query points have no warm-up or measured window of their own (they run rounds of
    their queries), so their maximum is not refused for being shorter than those; a study
    that also holds timed points still is."""
    from dbstor.errors import UserError

    dss = '[[databases]]\nengine = "sqlite"\nworkload = "dss"\nscale = 0.01\n'
    text = '[study]\nmax_duration = "5s"\n[[targets]]\npath = "x"\n'
    assert load_study(write(tmp_path, text + dss)).steady_limit_s() == 5
    brokerage = '[[databases]]\nengine = "sqlite"\nworkload = "brokerage"\n'
    with pytest.raises(UserError, match="shorter than the warm-up"):
        load_study(write(tmp_path, text + dss + brokerage))

"""Class 8 of issue 38, values accepted without a check: every value of a study file and of a
command's flags is checked for range, finiteness, units, duplicates and conflicts before
anything runs, and refused in one line with exit 2.

Walked two ways: the listed instances (each must be refused, naming the field and the fix),
and property tests (hypothesis) that start from a valid study holding every table and
mutate its values (hostile scalars, values repeated, series too long, one role's folder
given to another), and from valid command lines with flags repeated or given hostile
values: every outcome is exit 0 or one line with exit 2, never a traceback. Only
`dbstor study FILE` (which checks and runs nothing) and commands stopped where their work
would begin are called.
"""

from __future__ import annotations

import copy
import importlib
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
import tomli_w
from cli_calls import Reached, call_cli
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

BASE: dict[str, Any] = {
    "study": {"name": "s", "duration": "5s", "warmup": "1s", "baseline": "A",
              "tags": {"firmware": "9.14"}},
    "targets": [{"label": "A", "path": "a", "log": "l", "fast": "f"},
                {"label": "B", "path": "b", "fast": "g"}],
    "databases": [{"engine": "sqlite", "workload": "brokerage", "users": [1, 2],
                   "place": {"trade_history": "fast"}}],
    "placement": {"fast_capacity": "10GB", "fast_latency": "0.5ms", "slow_latency": "5ms"},
    "tco": {"servers": 10, "cores_per_server": 12, "license": "sqlserver-enterprise",
            "after": "B"},
    "capacity": {"drives": "24x800GB", "raid": "raid-dp", "raid_group": "12", "spares": "0"},
    "efficiency": {"array": "ontap-secondary"},
}  # fmt: skip
IO_BASE: dict[str, Any] = {
    "study": {"profiles": ["mine"], "size": "64MiB", "duration": "5s"},
    "load": {"kind": "jobs", "values": [1, 2], "iodepth": 4},
    "profiles": {"mine": {"based_on": "io-oltp", "block_size": "8K"}},
    "targets": [{"label": "A", "path": "a"}],
}  # fmt: skip


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    for name in ("a", "b", "f", "g", "l"):
        (tmp_path / name).mkdir()
    (tmp_path / "s.csv").write_text("not read: refused before\n", encoding="utf-8")

    def stop(study: Any, *args: Any, **kwargs: Any) -> None:
        importlib.import_module("dbstor.runs.study").preflight(study)  # a run's own checks
        raise Reached

    for where in ("dbstor.commands.study_analyses", "dbstor.runs.study"):
        monkeypatch.setattr(importlib.import_module(where), "run_study", stop)
    monkeypatch.chdir(tmp_path)
    yield tmp_path


def _study(data: dict[str, Any]) -> tuple[object, str]:
    Path("m.toml").write_text(tomli_w.dumps(data), encoding="utf-8")
    code, _, err = call_cli(["study", "m.toml"])
    return code, err


def _set(data: dict[str, Any], path: tuple[Any, ...], value: Any) -> dict[str, Any]:
    changed = copy.deepcopy(data)
    node: Any = changed
    try:
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = value
    except (KeyError, IndexError, TypeError):  # an earlier change replaced a table
        pass
    return changed


def test_the_bases_are_valid(here):
    assert _study(BASE) == (0, ""), _study(BASE)
    assert _study(IO_BASE) == (0, ""), _study(IO_BASE)


STUDY_CASES = [  # (base, field, value, what the one line holds)
    (BASE, ("placement", "fast_latency"), "-1ms", "placement.fast_latency: '-1ms' is negative"),
    (BASE, ("placement", "fast_latency"), "inf", "placement.fast_latency: 'inf' is not a"),
    (BASE, ("placement", "slow_latency"), "99999h", "placement.slow_latency: '99999h'"),
    (BASE, ("placement", "slow_latency"), "99999s", "placement.slow_latency: '99999s' is too"),
    (BASE, ("placement", "slow_latency"), "0", "a tier's latency is above 0"),
    (BASE, ("placement", "slow_latency"), "0.1ms", "is not slower than the fast tier"),
    (BASE, ("placement", "fast_capacity"), "0GB", "'0GB' leaves no fast tier"),
    (BASE, ("placement", "fast_capacity"), "0%", "leaves no fast tier"),
    (BASE, ("tco", "after"), "A", "tco.after: 'A' is the baseline"),
    (BASE, ("targets", 0, "fast"), "a", "targets[0].fast: "),
    (BASE, ("targets", 0, "fast"), ["f", "f"], "targets[0].fast: "),
    (BASE, ("targets", 0, "log"), "f", "is both the log folder and the fast folder"),
    (BASE, ("targets", 0, "log"), "a", "is both the data folder and the log folder"),
    (BASE, ("targets", 1, "temp"), ["b"], "targets[1].temp: "),
    (BASE, ("databases", 0, "users"), [1, 1], "users: 1 is listed twice"),
    (BASE, ("databases", 0, "users"), list(range(1, 1002)), "at most 1,000 points"),
    (BASE, ("databases", 0, "rate"), [10, 10], "rate: 10 is listed twice"),
    (BASE, ("study", "profiles"), ["io-oltp", "io-oltp"], "io-oltp is named twice"),
    (BASE, ("databases", 0, "buffer"), "1PiB", "is more than this host's memory"),
    (BASE, ("databases", 0, "memory_limit"), "1PiB", "so it caps nothing"),
    (
        IO_BASE,
        ("load", "iodepth"),
        40000,
        "queue depth 40,000 (--iodepth, [load] values or iodepth) is more than",
    ),
    (IO_BASE, ("load", "values"), [1, 5000], "5,000 fio jobs"),
    (IO_BASE, ("load", "values"), [2, 2], "load.values: 2 is listed twice"),
    (IO_BASE, ("profiles", "mine", "block_size"), "1", "'1' is not a block size"),
    (IO_BASE, ("profiles", "mine", "block_size"), "1PiB", "too large for one I/O"),
    (IO_BASE, ("profiles", "mine", "block_size"), "3000", "is not a block size"),
    (IO_BASE, ("profiles", "mine", "block_size"), "128MiB", "is larger than each test file"),
    (IO_BASE, ("profiles", "mine", "block_split"), {"8K": 50, "8KiB": 50}, "given twice"),
    (IO_BASE, ("profiles", "mine", "series"), [4, 4], "4 is listed twice"),
]


@pytest.mark.parametrize(("base", "field", "value", "needle"), STUDY_CASES)
def test_a_bad_study_value_is_refused_in_one_line(here, base, field, value, needle):
    if field[0] == "databases" and field[-1] == "rate":
        data = _set(base, field, value)
        del data["databases"][0]["users"]
    else:
        data = _set(base, field, value)
    code, err = _study(data)
    assert code == 2 and err.count("\n") == 1 and err.startswith("dbstor: error: "), err
    assert needle in err, err


def test_a_throttle_beyond_any_device_is_refused(here):
    data = _set(BASE, ("events",), [{"kind": "throttle", "at": "1s", "for": "2s", "iops": 1e308}])
    code, err = _study(data)
    assert code == 2 and "iops: 1e+308 is too large: at most 1,000,000,000" in err, err


def test_libaio_contexts_beyond_the_host_are_refused(here):
    data = _set(IO_BASE, ("profiles", "mine", "ioengine"), "libaio")
    data["load"] = {"kind": "jobs", "values": [1, 4000], "iodepth": 64}
    code, err = _study(data)
    assert code == 2 and "/proc/sys/fs/aio-max-nr" in err, err


FLAG_CASES = [  # command lines refused before any work, with what the one line holds
    (["io", "--target", "a", "--iodepth", "4,4"], "--iodepth: 4 is listed twice"),
    (["io", "--target", "a", "--numjobs", "1,9000"], "9,000 fio jobs (--numjobs, --jobs, [load] values or jobs) is more than fio runs at once"),
    (["io", "--target", "a", "--iodepth", ",".join(map(str, range(1, 1002)))], "at most 1,000"),
    (["io", "--target", "a", "--profile", "io-oltp,io-oltp"], "io-oltp is named twice"),
    (["io", "--target", "a,a"], "is given twice"),
    (["io", "--target", "a", "--fact", "x=1", "--fact", "x=2"], "x is given twice"),
    (["run", "--engine", "sqlite", "--target", "a", "--target", "fast=a", "--place", "t=fast"],
     "is both the data folder and the fast folder"),
    (["run", "--engine", "sqlite", "--target", "a", "--target", "fast=f,f"], "is given twice"),
    (["run", "--engine", "sqlite", "--target", "a", "--target", "fast=f", "--place", "t=fast",
      "--place", "t=log"], "t is put on both fast and log"),
    (["run", "--engine", "sqlite", "--target", "a", "--tag", "k=1", "--tag", "k=2"],
     "tag k is given twice"),
    (["run", "--engine", "sqlite", "--target", "a", "--users", "2,2"], "2 is listed twice"),
    (["run", "--engine", "sqlite", "--target", "a", "--option", "trade_days=2", "--option",
      "trade_days=3"], "trade_days is given twice"),
    (["compare", "a", "b", "--tag", "k=1", "--tag", "k=2"], "tag k is given twice"),
    (["advise", "--oracle", "s.csv", "--fast-capacity", "0GB"], "leaves no fast tier"),
    (["advise", "--oracle", "s.csv", "--fast-capacity", "1GB", "--fast-latency", "0"],
     "a tier's latency is above 0"),
    (["advise", "--oracle", "s.csv", "--fast-capacity", "1GB", "--fast-latency", "2ms",
      "--slow-latency", "1ms"], "is not slower than the fast tier"),
    (["efficiency", "a", "--snapshots", "data=2h,data=3h"], "data is given twice"),
    (["efficiency", "a", "--array", "custom:block=4K,block=8K"], "block= is given twice"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("argv", "needle"), FLAG_CASES, ids=[" ".join(a)[:50] for a, _ in FLAG_CASES]
)
def test_a_bad_flag_value_is_refused_in_one_line(here, argv, needle):
    code, out, err = call_cli(argv)
    assert code == 2 and out == "" and err.count("\n") == 1, (code, err)
    assert err.startswith("dbstor: error: ") and needle in err, err


# --- property tests: a valid study with its values mutated, valid flags repeated ---------

HOSTILE = st.one_of(
    st.sampled_from(["-1ms", "inf", "nan", "99999h", "0", "0GB", "1", "1PiB", "-5", "1e400",
                     "", " ", "A", "B", "a", "f", "data", "fast", "9" * 30, "1,1"]),
    st.integers(min_value=-(2**63), max_value=2**63 - 1),
    st.floats(allow_nan=True, allow_infinity=True),
    st.booleans(),
    st.lists(st.integers(min_value=-2, max_value=70000), max_size=4),
    st.lists(st.sampled_from(["a", "b", "f", "g", "l", "io-oltp"]), max_size=3),
    st.builds(lambda n: list(range(1, n)), st.sampled_from([1001, 1500])),
)  # fmt: skip


def _fields(tree: Any, prefix: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """Every path to a value of the tree (a scalar, or a list or table as a whole)."""
    if isinstance(tree, dict):
        for key, value in tree.items():
            yield (*prefix, key)
            yield from _fields(value, (*prefix, key))
    elif isinstance(tree, list) and tree and isinstance(tree[0], dict):
        for i, value in enumerate(tree):
            yield from _fields(value, (*prefix, i))


FIELDS = [(BASE, f) for f in _fields(BASE)] + [(IO_BASE, f) for f in _fields(IO_BASE)]
PROPERTY = settings(
    max_examples=60,
    deadline=timedelta(seconds=20),  # a generous bound: the machine may be busy
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


def _one_line_or_zero(code: object, out: str, err: str) -> list[str]:
    if code in (0, "reached"):
        return []
    lines = [ln for ln in err.splitlines() if ln.strip()]
    if code != 2:
        return [f"exit {code}: {err[-300:]!r}"]
    if len(lines) != 1 or not lines[0].startswith("dbstor: error: "):
        return [f"not one line: {err[:300]!r}"]
    return []


@PROPERTY
@given(
    changes=st.lists(st.tuples(st.sampled_from(FIELDS), HOSTILE), min_size=1, max_size=3),
)
def test_a_valid_study_with_values_mutated_is_checked_or_refused(here, changes):
    (base, _), _ = changes[0]
    data = copy.deepcopy(base)
    for (other, field), value in changes:
        if other is base:
            data = _set(data, field, value)
    Path("m.toml").write_text(tomli_w.dumps(data), encoding="utf-8")
    assert _one_line_or_zero(*call_cli(["study", "m.toml"])) == [], data


FLAG_BASES = {
    "io": ["io", "--target", "a", "--out", "out"],
    "run": ["run", "--engine", "sqlite", "--target", "a", "--target", "fast=f", "--out", "out"],
    "advise": ["advise", "--oracle", "s.csv", "--fast-capacity", "1GB"],
}
FLAG_VALUES = {
    "io": {"--iodepth": ["4", "4,4", "40000", "1,2,3"], "--numjobs": ["2", "5000", "2,2"],
           "--jobs": ["4096", "5000"], "--profile": ["io-oltp", "io-dss"],
           "--fact": ["x=1", "x=2"], "--tag": ["k=1", "k=2"], "--size": ["1MiB", "0"],
           "--target": ["a", "b", "l=a", "a,a"]},
    "run": {"--users": ["1", "1,1", "2,4"], "--place": ["t=fast", "t=log", "t=data"],
            "--target": ["fast=a", "log=l", "temp=f"], "--tag": ["k=1", "k=1"],
            "--option": ["trade_days=2", "trade_days=3"]},
    "advise": {"--fast-latency": ["0", "-1ms", "0.5ms", "inf"],
               "--slow-latency": ["0.1ms", "20ms", "99999h"],
               "--fast-capacity": ["0GB", "50%", "0%"], "--interval": ["-5", "0"]},
}  # fmt: skip


@PROPERTY
@given(data=st.data())
def test_valid_flags_repeated_or_mutated_are_checked_or_refused(here, data):
    command = data.draw(st.sampled_from(sorted(FLAG_BASES)))
    choices = FLAG_VALUES[command]
    argv = list(FLAG_BASES[command])
    for flag in data.draw(st.lists(st.sampled_from(sorted(choices)), min_size=1, max_size=4)):
        argv += [flag, data.draw(st.sampled_from(choices[flag]) | st.text(max_size=6))]
    assert _one_line_or_zero(*call_cli(argv)) == [], argv

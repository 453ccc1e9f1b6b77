"""Property-based: a study with any field set to any value of any type loads, or gives one
UserError naming the file and the field; never another exception. Whole random TOML texts too."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dbstor.errors import UserError
from dbstor.study.load import load_study, study_from_dict

SOURCE = "fuzz.toml"
BASE = {
    "study": {"name": "s", "profiles": ["io-oltp", "mine"], "duration": "10s", "warmup": "1s",
              "repeats": 1, "size": "64MiB", "precondition": False, "baseline": "A"},
    "slo": {"metric": "read_lat_mean_ms", "limit": "1ms"},  # measured on fio and databases
    "load": {"kind": "iodepth", "values": [1, 2], "jobs": 1},  # iodepth: a jobs series's
    "targets": [{"label": "A", "path": "/tmp/a", "facts": {"array": "x"}, "log": "/tmp/l"},
                {"label": "B", "paths": ["/tmp/b"], "temp": ["/tmp/t"]}],
    "profiles": {"mine": {"based_on": "io-oltp", "description": "d", "source": "s",
                          "pattern": "random", "read_pct": 70, "block_size": "8K",
                          "distribution": "zipf:1.2", "files": 1, "fdatasync": 0,
                          "ioengine": "libaio", "load_kind": "iodepth", "series": [1, 2],
                          "slo_metric": "read_lat_p99_ms"}},
    "databases": [{"engine": "sqlite", "workload": "orders", "scale": 1, "users": [1, 2],
                   "think_time": "0ms", "buffer": "64MiB", "memory_limit": "1GiB", "seed": 3,
                   "options": {"a": 1}, "client_processes": 1, "cold": False,
                   "query_timeout": "10s"},
                  {"engine": "postgres", "workload": "orders", "rate": [10, 20], "users": 4},
                  {"engine": "postgres", "workload": "blocks", "instances": [1, 2],
                   "users_per_instance": 2, "dsn": "host=127.0.0.1 dbname=x"},
                  {"engine": "duckdb", "workload": "dss", "streams": [1, 2]}],
}  # fmt: skip


def _paths(tree, prefix=()):
    """Every (path, key) of a field that holds a value, nested tables included."""
    if isinstance(tree, dict):
        for key, value in tree.items():
            yield (*prefix, key)
            yield from _paths(value, (*prefix, key))
    elif isinstance(tree, list):
        for i, value in enumerate(tree):
            yield from _paths(value, (*prefix, i))


FIELDS = [p for p in _paths(BASE) if isinstance(p[-1], str)]
TOML_VALUES = st.recursive(
    st.one_of(
        st.booleans(),
        st.integers(min_value=-(2**63), max_value=2**63 - 1),
        st.floats(allow_nan=True, allow_infinity=True),
        st.text(max_size=30),
        st.sampled_from(["0s", "-5s", "99999999h", "1e12", "~nobody/x", "a\0b", "1PiB", "zoned:"]),
        st.dates(),  # TOML has dates and times of its own
        st.times(),
        st.datetimes(),
    ),
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=6,
)


def _set(tree, path, value):
    for key in path[:-1]:
        tree = tree[key]
    tree[path[-1]] = value


def test_the_base_study_loads():
    study = study_from_dict(copy.deepcopy(BASE), SOURCE, Path("/tmp"))
    assert len(study.databases) == 4 and study.duration_s == 10


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(FIELDS), TOML_VALUES)
def test_any_field_any_value_loads_or_names_the_field(path, value):
    data = copy.deepcopy(BASE)
    _set(data, path, value)
    try:
        study = study_from_dict(data, SOURCE, Path("/tmp"))
    except UserError as exc:
        message = str(exc)
        assert message.startswith(f"{SOURCE}: "), message
        named = [str(k) for k in path if isinstance(k, str)]
        assert any(k in message for k in named), (path, message)
        assert "\n" not in message and len(message) < 600, message
    else:  # what loads is saved with the first point: plain, finite JSON
        json.dumps(study.describe(), allow_nan=False)


@settings(max_examples=100, deadline=None)
@given(st.sampled_from(FIELDS))
def test_a_missing_field_loads_or_names_it(path):
    data = copy.deepcopy(BASE)
    parent = data
    for key in path[:-1]:
        parent = parent[key]
    del parent[path[-1]]
    try:
        study_from_dict(data, SOURCE, Path("/tmp"))
    except UserError as exc:
        assert str(exc).startswith(f"{SOURCE}: ")


@settings(max_examples=150, deadline=None)
@given(st.text(max_size=200))
def test_any_text_as_a_study_file(tmp_path_factory, text):
    path = tmp_path_factory.mktemp("fuzz") / "study.toml"
    path.write_text(text, encoding="utf-8")
    try:
        load_study(path)
    except UserError as exc:
        assert str(exc).startswith(str(path))


@pytest.mark.parametrize(
    ("field", "value", "needle"),
    [
        (("study", "duration"), True, "study.duration: true is not a duration"),
        (("study", "duration"), "99999999h", "at most 1d"),
        (("study", "warmup"), -5, "negative"),
        (("study", "repeats"), 10**9, "at most 1000000"),
        (("databases", 0, "scale"), 1e12, "at most 100000"),
        (("databases", 0, "users"), [1, 10**7], "at most 1000000"),
        (("profiles", "mine", "read_pct"), 101, "outside 0..100%"),
        (("targets", 0, "path"), "a\0b", "targets[0].paths: 'a\\x00b' is not a usable path"),
        (("targets", 1, "temp"), ["~no-such-user-here/x"], "targets[1].temp:"),
        (("profiles", "mine", "fdatasync"), 1e400, "profiles.mine.fdatasync: inf"),
    ],
)
def test_range_and_type_messages(field, value, needle):
    data = copy.deepcopy(BASE)
    _set(data, field, value)
    with pytest.raises(UserError, match=None) as caught:
        study_from_dict(data, SOURCE, Path("/tmp"))
    assert needle in str(caught.value), str(caught.value)


def test_dsn_env_may_hold_a_password(monkeypatch):
    monkeypatch.setenv("FUZZ_DSN", "postgresql://u:secret@127.0.0.1/db")
    data = copy.deepcopy(BASE)
    data["databases"][2].pop("dsn")
    data["databases"][2]["dsn_env"] = "FUZZ_DSN"
    study = study_from_dict(data, SOURCE, Path("/tmp"))
    assert study.databases[2].dsn.endswith("@127.0.0.1/db")

"""Property-based: a study's database table with any field set to any value, once it loads,
passes the checks a run makes before it starts (the workload's scale, options and load
series, the query options, the open-files limit) or gives one UserError; and what its
results.json will say of the workload is valid JSON. Never another exception."""

from __future__ import annotations

import copy
import json
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from dbstor.errors import UserError
from dbstor.runs.database.preflight import check_load_spec
from dbstor.runs.queries.checks import check_query_spec
from dbstor.study.load import study_from_dict
from dbstor.workloads.registry import workload_class

TARGET = [{"label": "A", "path": "/tmp"}]
DATABASES = [
    {"engine": "sqlite", "workload": "brokerage", "scale": 10, "users": [1, 2],
     "options": {"trade_days": 2, "think_time_ms": 0}, "seed": 3},
    {"engine": "sqlite", "workload": "orders", "rate": [10], "users": 2,
     "options": {"all_warehouses": True}},
    {"engine": "sqlite", "workload": "blocks", "instances": [1, 2], "users_per_instance": 2,
     "options": {"update_pct": 25, "batch": 1}},
    {"engine": "duckdb", "workload": "dss", "streams": [1], "scale": 0.01,
     "options": {"queries": "1,6", "validate": False}, "query_timeout": "10s", "cold": True},
]  # fmt: skip
KEYS = [(i, k) for i, db in enumerate(DATABASES) for k in db] + [
    (i, ("options", k)) for i, db in enumerate(DATABASES) for k in db["options"]
]
VALUES = st.one_of(
    st.booleans(),
    st.integers(min_value=-(2**63), max_value=2**63 - 1),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=12),
    st.sampled_from(["1e400", "-5", "99999999999", "nan", "0", "all", "tr3476", "1,,4"]),
    st.lists(st.integers(min_value=-3, max_value=2_000_000), max_size=3),
)


NASTY = ("1e400", "-5", "99999999999", "nan", float("inf"), float("nan"), -1, 10**18, True, "")


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(KEYS), VALUES)
def test_a_loaded_database_passes_the_checks_or_is_refused(key, value):
    _check(key, value)


def test_every_field_with_every_nasty_value():
    for key in KEYS:
        for value in NASTY:
            _check(key, value)


def _check(key: tuple[int, object], value: object) -> None:
    index, field = key
    data = {"targets": TARGET, "databases": copy.deepcopy(DATABASES)}
    table = data["databases"][index]
    if isinstance(field, tuple):
        table["options"][field[1]] = value
    else:
        table[field] = value
    try:
        study = study_from_dict(data, "fuzz.toml", Path("/tmp"))
        for spec in study.databases:
            check_query_spec(spec)
            check_load_spec(spec)
            cls = workload_class(spec.workload)
            scale = cls.default_scale if spec.scale is None else spec.scale
            json.dumps(cls(scale, spec.seed, spec.options).describe(), allow_nan=False)
    except UserError as exc:
        assert "\n" not in str(exc), str(exc)

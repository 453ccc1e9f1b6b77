"""Property-based: a results.json or study.json with any field set to any JSON value, or
any text at all, loads or gives one UserError naming the file (and the field, with what was
expected); never another exception."""

from __future__ import annotations

import copy
import json
import math
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dbstor.errors import UserError
from dbstor.results.model import Run
from dbstor.results.store import read_run_folder, read_study_index

GOLDEN = Path(__file__).parents[2] / "golden"
RUNS = sorted(GOLDEN.rglob("results.json"))
JSON = st.recursive(
    st.one_of(
        st.none(),
        st.booleans(),
        st.integers(min_value=-(10**20), max_value=10**20),
        st.floats(allow_nan=False, allow_infinity=False),
        st.text(max_size=20),
    ),
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=5,
)
SLOW_OK = settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


def _paths(tree, prefix=()):
    if isinstance(tree, dict):
        for key, value in tree.items():
            yield (*prefix, key)
            yield from _paths(value, (*prefix, key))
    elif isinstance(tree, list):
        for i, value in enumerate(tree[:2]):
            yield (*prefix, i)
            yield from _paths(value, (*prefix, i))


BASES = [json.loads(p.read_text(encoding="utf-8")) for p in RUNS]
FIELDS = [(i, p) for i, base in enumerate(BASES) for p in _paths(base)]


def _write(folder: Path, text: str) -> None:
    folder.mkdir(exist_ok=True)
    (folder / "results.json").write_text(text, encoding="utf-8")


def _read(folder: Path) -> Run | None:
    try:
        run = read_run_folder(folder)
    except UserError as exc:
        message = str(exc)
        assert str(folder / "results.json") in message, message
        assert "\n" not in message, message
        return None
    assert isinstance(run, Run)
    return run


def test_every_golden_run_loads(tmp_path):
    assert RUNS, "no golden results to fuzz from"
    for i, base in enumerate(BASES):
        _write(tmp_path / str(i), json.dumps(base))
        assert _read(tmp_path / str(i)) is not None


@SLOW_OK
@given(st.sampled_from(FIELDS), JSON)
def test_any_field_any_value(tmp_path, field, value):
    which, path = field
    data = copy.deepcopy(BASES[which])
    tree = data
    for key in path[:-1]:
        tree = tree[key]
    tree[path[-1]] = value
    folder = tmp_path / "run"
    _write(folder, json.dumps(data))
    run = _read(folder)
    if run is not None:
        for point in run.points:  # what the reports compute from every point
            # IOPS not measured are None, never 0; measured ones are finite
            assert point.iops is None or math.isfinite(point.iops)
            assert isinstance(point.ok, bool)


@SLOW_OK
@given(st.one_of(st.text(max_size=200), JSON.map(json.dumps)))
def test_any_text_as_results_json(tmp_path, text):
    folder = tmp_path / "run"
    _write(folder, text)
    _read(folder)


@pytest.mark.parametrize(
    ("change", "needle"),
    [
        (lambda d: d["points"][0].__setitem__("tps", "fast"), "points[0].tps: expected a number or null, got \"fast\""),
        (lambda d: d["points"][0]["load"].__setitem__("value", True), "points[0].load.value: expected a number, got true"),
        (lambda d: d.__setitem__("points", {}), "points: expected a list"),
        (lambda d: d.__setitem__("schema", "1"), "schema: expected a whole number"),
        (lambda d: d.__setitem__("notes", [1]), "notes: expected a list of strings"),
        (lambda d: d.pop("run_id"), "missing field 'run_id'"),
    ],
)  # fmt: skip
def test_the_message_names_the_field_and_what_was_expected(tmp_path, change, needle):
    data = copy.deepcopy(BASES[0])
    change(data)
    _write(tmp_path, json.dumps(data))
    with pytest.raises(UserError) as caught:
        read_run_folder(tmp_path)
    assert needle in str(caught.value), str(caught.value)


@SLOW_OK
@given(
    st.one_of(
        st.text(max_size=100),
        JSON.map(json.dumps),
        st.lists(st.text(max_size=8)).map(lambda r: json.dumps({"runs": r})),
    )
)
def test_any_study_index(tmp_path, text):
    (tmp_path / "study.json").write_text(text, encoding="utf-8")
    try:
        runs = read_study_index(tmp_path)
    except UserError as exc:
        assert str(tmp_path / "study.json") in str(exc)
        return
    assert all(isinstance(r, str) and "/" not in r and r not in ("", ".", "..") for r in runs)

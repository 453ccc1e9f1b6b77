"""Property-based: the readers of a run's results.json outside the results store (advise
RUN_DIR, efficiency RUN_DIR, io --data from:RUN) take a results.json with any field set to
any JSON value, or any text, and give a result or one UserError line; never another
exception."""

from __future__ import annotations

import copy
import json
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dbstor.analysis.placement import inputs as advise_inputs
from dbstor.cli import shortened
from dbstor.commands import efficiency as efficiency_command
from dbstor.errors import UserError
from dbstor.runs.io.data_check import source_paths

GOLDEN = Path(__file__).parents[2] / "golden"
BASE = json.loads((GOLDEN / "sqlite-brokerage" / "results.json").read_text(encoding="utf-8"))
JSON = st.recursive(
    st.one_of(
        st.none(),
        st.booleans(),
        st.integers(min_value=-(10**20), max_value=10**20),
        st.floats(allow_nan=False, allow_infinity=False),
        st.text(max_size=12),
    ),
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=5,
)
# The fields these readers look at, and their parents (a list or a string where a table is).
FIELDS = [
    (),
    ("target",),
    ("target", "paths"),
    ("target", "paths", "data"),
    ("engine_stats",),
    ("engine_stats", "objects"),
]
QUICK = settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


def _readers() -> list[tuple[str, Callable[[Path], Any]]]:
    return [
        ("advise", advise_inputs.parse_run),
        ("efficiency", lambda f: efficiency_command._run_paths(str(f), f / "results.json")),
        ("--data from:", lambda f: source_paths(str(f))),
    ]


def _set(data: Any, path: tuple[Any, ...], value: Any) -> Any:
    if not path:
        return value
    node = data
    for key in path[:-1]:
        if not isinstance(node, dict):
            return data
        node = node.setdefault(key, {})
    if isinstance(node, dict):
        node[path[-1]] = value
    return data


def _check(text: str) -> None:
    with tempfile.TemporaryDirectory() as here:
        folder = Path(here) / "run"
        folder.mkdir()
        (folder / "results.json").write_text(text, encoding="utf-8")
        for name, read in _readers():
            try:
                read(folder)
            except UserError as exc:
                line = shortened(str(exc))  # what the CLI prints: one line, words cut
                assert "\n" not in line and len(line) < 600, (name, line)


@QUICK
@given(field=st.sampled_from(FIELDS), value=JSON)
def test_any_field_any_value(field, value):
    _check(json.dumps(_set(copy.deepcopy(BASE), field, value)))


@QUICK
@given(text=st.text(max_size=60))
def test_any_text(text):
    _check(text)


@pytest.mark.parametrize("value", [[], "x", 3, ["a"], {"data": 3}, {"data": [1, None]}])
def test_target_paths_of_the_wrong_type(value):
    _check(json.dumps(_set(copy.deepcopy(BASE), ("target", "paths"), value)))


@QUICK
@given(
    runs=st.one_of(JSON, st.lists(st.sampled_from(["run-a", "gone", "../x", "", "run-a"]))),
    present=st.booleans(),
)
def test_any_study_folder_loads_runs_or_is_refused(runs, present):
    """A study folder whose study.json lists anything, with or without its run folders:
    at least one run, or one UserError line naming study.json; never an empty list."""
    from dbstor.runs.study import load_folder

    with tempfile.TemporaryDirectory() as here:
        folder = Path(here) / "study"
        folder.mkdir()
        (folder / "study.json").write_text(json.dumps({"study": {}, "runs": runs}))
        if present:
            run = folder / "run-a"
            run.mkdir()
            (run / "results.json").write_text(json.dumps(BASE), encoding="utf-8")
        try:
            loaded, folders = load_folder(folder)
        except UserError as exc:
            assert "study.json" in str(exc) and "\n" not in shortened(str(exc))
            return
        assert loaded and len(loaded) == len(folders)


SAMPLES = (GOLDEN / "sqlite-brokerage" / "samples.csv").read_text(encoding="utf-8").splitlines()


@settings(max_examples=40, deadline=None)
@given(
    line=st.integers(min_value=0, max_value=3),
    cell=st.integers(min_value=0, max_value=25),
    value=st.one_of(st.text(max_size=8), st.sampled_from(["nan", "inf", "-1", "1e400", ""])),
    cut=st.booleans(),
)
def test_a_changed_samples_file_renders_or_is_refused(line, cell, value, cut):
    """samples.csv with one cell changed (or the file cut short): the report renders, or one
    UserError line names samples.csv; never another exception."""
    from dbstor.runs.study import load_folder, render

    rows = [r.split(",") for r in SAMPLES[:6]]
    if cell < len(rows[line]):
        rows[line][cell] = value
    text = "\n".join(",".join(r) for r in rows)
    with tempfile.TemporaryDirectory() as here:
        folder = Path(here) / "run"
        folder.mkdir()
        (folder / "results.json").write_text(json.dumps(BASE), encoding="utf-8")
        (folder / "samples.csv").write_text(text[: len(text) // 2] if cut else text)
        runs, _ = load_folder(folder)
        try:
            render(folder, runs, None, "t")
        except UserError as exc:
            assert "samples.csv" in str(exc) and "\n" not in shortened(str(exc))

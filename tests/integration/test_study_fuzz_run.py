"""Property-based, against the real thing: a small io study and a small SQLite database
study, with one or two fields set to a hostile value (non-finite, negative, zero or huge
numbers; empty, blank, newline, ';', '#', '=', '[ ]', leading '-', path-like and unicode
text; lists and tables where a scalar goes), are run by `dbstor run` with real fio and
SQLite. Either it runs (exit 0) or it is refused with one line (exit 2); never a traceback,
never another status, and never a file left outside --out (the sandbox around the run is
compared before and after). DBSTOR_FUZZ_RUNS sets the examples (default 30 and 15)."""

from __future__ import annotations

import copy
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
import tomli_w
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pytestmark = [pytest.mark.integration, pytest.mark.skip_without_fio]

BASE = {
    "study": {"name": "fz", "duration": "1s", "warmup": "0s", "size": "4MiB",
              "profiles": ["p"]},
    "load": {"kind": "iodepth", "values": [1]},
    "targets": [{"label": "A", "path": "a"}],
    "profiles": {"p": {"based_on": "io-oltp", "block_size": "8K", "read_pct": 70}},
}  # fmt: skip
# fields a hostile value goes into; the ones that set how long a run lasts get no huge
# positive numbers (a study of a million repeats is the user's to ask for, and would run)
FIELDS = {
    ("study", "name"): "any", ("study", "size"): "any", ("study", "data"): "any",
    ("study", "tags"): "any", ("study", "baseline"): "any", ("study", "precondition"): "any",
    ("study", "duration"): "bounded", ("study", "warmup"): "bounded",
    ("study", "repeats"): "bounded", ("slo", "limit"): "any", ("slo", "metric"): "any",
    ("load", "values"): "bounded", ("load", "kind"): "any",
    ("targets", 0, "label"): "any", ("targets", 0, "path"): "any",
    ("targets", 0, "facts"): "any",
    ("profiles", "p", "description"): "any", ("profiles", "p", "block_size"): "any",
    ("profiles", "p", "read_pct"): "any", ("profiles", "p", "distribution"): "any",
    ("profiles", "p", "files"): "any", ("profiles", "p", "ioengine"): "any",
    ("profiles", "p", "block_split"): "any", ("profiles", "p", "fdatasync"): "bounded",
    ("profiles", "p", "series"): "bounded", ("profiles", "p", "pattern"): "any",
}  # fmt: skip
DB_BASE = {
    "study": {"name": "fzdb", "duration": "1s", "warmup": "0s"},
    "targets": [{"label": "A", "path": "a"}],
    "databases": [{"engine": "sqlite", "workload": "brokerage", "scale": 1, "users": [1]}],
}  # fmt: skip
DB_FIELDS = {
    ("databases", 0, key): kind
    for key, kind in {
        "engine": "any", "workload": "any", "scale": "bounded", "users": "bounded",
        "think_time": "bounded", "buffer": "any", "memory_limit": "any", "seed": "any",
        "options": "any", "client_processes": "bounded", "cold": "any",
        "query_timeout": "any", "place": "any", "dsn": "any", "dsn_env": "any",
        "instances": "bounded", "users_per_instance": "bounded", "rate": "bounded",
    }.items()
}  # fmt: skip
HOSTILE_TEXT = [
    "", " ", "x\ny", "a;b", "a#b", "a=b", "[x]", "-x", "--exec_prerun=touch pwn", "../up",
    "/etc/passwd", "a/b", "é\u202ex", "nan", "inf", "-inf", "1e309", "-5s", "0", "1GiB;x",
    "1ms\n", "8K\nexec_prerun=touch pwn", "zipf:nan", "zipf:-1", "1.8:1,dedupe=200",
    "from:/nonexistent", "8K:100;x", "\x00",
]  # fmt: skip
SMALL = st.one_of(
    st.sampled_from([0, -1, -(2**63), float("nan"), float("inf"), float("-inf"), -0.5, 0.5]),
    st.sampled_from(HOSTILE_TEXT),
    st.text(max_size=8),
    st.just([]),
    st.just({}),
    st.booleans(),
    st.lists(st.sampled_from([0, -1, 1, "x"]), max_size=3),
)
ANY = st.one_of(SMALL, st.sampled_from([10**30, 2**63, 2**64 + 1, 1e308, [2**63]]))


def _tree(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*")}


@st.composite
def hostile_studies(draw, base=BASE, fields=FIELDS):
    study = copy.deepcopy(base)
    keys = draw(st.lists(st.sampled_from(sorted(fields, key=str)), min_size=1, max_size=2))
    for key in keys:
        value = draw(ANY if fields[key] == "any" else SMALL)
        node = study
        for part in key[:-1]:
            node = node.setdefault(part, {}) if isinstance(part, str) else node[part]
        node[key[-1]] = value
    return study


def _toml(study: dict) -> str | None:
    """The study as TOML, or None when TOML cannot hold a value (NaN is fine, None is not)."""
    try:
        text = tomli_w.dumps(study)
        tomllib.loads(text)
    except (TypeError, ValueError, OverflowError):
        return None
    return text


RUNS = int(os.environ.get("DBSTOR_FUZZ_RUNS", "30"))
SLOW = [HealthCheck.function_scoped_fixture, HealthCheck.too_slow]


@settings(max_examples=RUNS, deadline=None, suppress_health_check=SLOW)
@given(study=hostile_studies())
def test_a_hostile_io_study_runs_or_is_one_line_and_writes_only_under_out(tmp_path_factory, study):
    _run_or_one_line(tmp_path_factory, study)


@settings(max_examples=max(1, RUNS // 2), deadline=None, suppress_health_check=SLOW)
@given(study=hostile_studies(DB_BASE, DB_FIELDS))
def test_a_hostile_database_study_runs_or_is_one_line(tmp_path_factory, study):
    _run_or_one_line(tmp_path_factory, study)


def _run_or_one_line(tmp_path_factory, study: dict) -> None:
    text = _toml(study)
    if text is None:
        return  # TOML itself cannot say it
    root = tmp_path_factory.mktemp("fz")
    (root / "a").mkdir()
    (root / "study.toml").write_text(text, encoding="utf-8")
    before = _tree(root)
    proc = subprocess.run(
        [sys.executable, "-m", "dbstor", "run", "study.toml", "--out", "out", "--quiet"],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=300,
        stdin=subprocess.DEVNULL,
        check=False,
    )
    assert "Traceback" not in proc.stderr, (text, proc.stderr)
    lines = [ln for ln in proc.stderr.splitlines() if ln.strip()]
    if proc.returncode == 2:
        assert len(lines) == 1 and lines[0].startswith("dbstor: error:"), (text, proc.stderr)
    else:
        assert proc.returncode == 0, (text, proc.returncode, proc.stderr)
    new = {p for p in _tree(root) - before if p != "out" and not p.startswith("out/")}
    assert not new, (text, sorted(new))  # nothing outside --out (test files removed)
    assert not (root.parent / "pwn").exists() and not (root / "pwn").exists()

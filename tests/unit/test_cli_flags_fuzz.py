"""Every flag of every command, fed hostile values in-process: a normal parse or one line on
stderr with exit 2, never a traceback, never a usage block, nothing on stdout first.

The flags come from the argparse parsers themselves, so a new flag is covered without
touching this file. The work a command would start (a run, a scan, a cluster) is stopped
where it would begin; what is checked is everything before it.
"""

from __future__ import annotations

import argparse
import importlib
import json
import shutil
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
import tomli_w
from cli_calls import Reached, call_cli
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dbstor import cli
from dbstor.errors import UserError
from dbstor.study.load import load_study

ROOT = Path(__file__).parents[2]
GOLDEN_RUN = ROOT / "tests" / "golden" / "sqlite-brokerage"
LONG = "x" * 300

# Hostile values; those in NOT_NUMBERS are refused by every flag that refuses "abc" (a flag
# that takes a number, a size, a duration, a percentage, a count or an amount of money).
NOT_NUMBERS = ("-5", "-5s", "nan", "inf", "-inf", "1e400", "-1e400", "99999999999999999999999")
HOSTILE = (*NOT_NUMBERS, "0", "0.5", "99999999h", "1EiB", "1e12", "abc", "", "1,,4", "1,2,x", LONG)

# An otherwise valid command line for each command (paths relative to the fixture folder).
BASE = {
    "run": ["--engine", "sqlite", "--target", "T", "--out", "out"],
    "io": ["--target", "T", "--out", "out"],
    "compare": ["A", "B"],
    "report": ["A"],
    "engines": ["--check", "--engine", "sqlite"],
    "sql": ["--engine", "sqlite", "--workload", "orders"],
    "hosts": ["--cluster", "127.0.0.1:1"],
    "efficiency": ["f.dat"],
    "capacity": ["--drives", "4x1TB"],
    "advise": ["--oracle", "s.csv", "--fast-capacity", "1GB"],
    "tco": [
        "--servers",
        "10",
        "--cores-per-server",
        "12",
        "--cpu-before",
        "10%",
        "--cpu-after",
        "40%",
    ],
    "index": ["."],
    "check": ["A", "--baseline", "B"],
    "export": [".", "--sqlite", "out.db"],
    "serve": ["."],
    "study": ["s.toml"],
    "kube": ["render", "s.toml", "--storage-class", "gold"],
}


# A command with actions of its own: the action whose flags the walk tries (BASE names it).
NESTED = {"kube": "render"}


def _subparsers() -> dict[str, argparse.ArgumentParser]:
    parser = cli.build_parser()
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


def _walked(command: str) -> argparse.ArgumentParser:
    """The parser whose flags the walk tries: the command's, or its action's (NESTED)."""
    parser = _subparsers()[command]
    if command not in NESTED:
        return parser
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return action.choices[NESTED[command]]


def _value_flags(parser: argparse.ArgumentParser) -> list[str]:
    return [
        a.option_strings[0]
        for a in parser._actions
        if a.option_strings and a.nargs != 0 and a.help != argparse.SUPPRESS
    ]


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    here = tmp_path_factory.mktemp("flags")
    (here / "T").mkdir()
    shutil.copytree(GOLDEN_RUN, here / "A")
    shutil.copytree(GOLDEN_RUN, here / "B")
    shutil.copy(ROOT / "tests" / "fixtures" / "h6080_filestats.csv", here / "s.csv")
    (here / "f.dat").write_bytes(b"x" * 4096)
    (here / "s.toml").write_text(
        '[capacity]\ndrives = "4x1TB"\n[[targets]]\nlabel = "A"\npath = "T"\n'
    )
    return here


@pytest.fixture
def stopped(monkeypatch: pytest.MonkeyPatch, folder: Path) -> Iterator[list[Any]]:
    """Stop every command where its real work would start; yield what reached it."""
    module = importlib.import_module
    reached: list[Any] = []

    def stop(*args: Any, **kwargs: Any) -> None:
        reached.append(args)
        raise Reached

    def checked(study: Any, *args: Any, **kwargs: Any) -> None:
        module("dbstor.runs.study").preflight(study)  # what a run checks before it starts
        for spec in study.databases:  # what its results.json will say of the workload
            cls = module("dbstor.workloads.registry").workload_class(spec.workload)
            scale = cls.default_scale if spec.scale is None else spec.scale
            described = cls(scale, spec.seed, spec.options).describe()
            json.dumps(described, allow_nan=False)
        stop(study, *args)

    for where, name, replacement in (
        ("dbstor.commands.study_analyses", "run_study", checked),  # dbstor run
        ("dbstor.runs.study", "run_study", checked),  # dbstor io imports it when it runs
        ("dbstor.analysis.efficiency.estimate", "estimate", stop),
        ("dbstor.cluster.session", "ClusterSession", stop),
        ("dbstor.cluster.runs", "run_study_on_hosts", stop),
        ("dbstor.cluster.runs", "run_database_study_on_hosts", stop),
        ("dbstor.analysis.placement.postgres", "read_postgres", stop),
        ("dbstor.runs.study", "render", stop),
        ("dbstor.commands.index", "write_index", stop),
        ("dbstor.commands.serve", "write_index", stop),
        ("dbstor.commands.check", "judge", stop),
        ("dbstor.commands.export", "collect", stop),
        ("dbstor.commands.engine_check", "checked_engine", stop),  # connects, builds
        ("dbstor.commands.sql", "emit", stop),  # prints the script
    ):
        monkeypatch.setattr(module(where), name, replacement)
    parser = cli.build_parser()
    monkeypatch.setattr(cli, "build_parser", lambda *_: parser)
    monkeypatch.chdir(folder)
    yield reached


def _argv(command: str, flag: str, value: str) -> list[str]:
    base = list(BASE[command])
    if flag in base:
        at = base.index(flag)
        del base[at : at + 2]
    return [command, *base, flag, value]


def _problems(command: str, flag: str, value: str) -> tuple[bool, list[str]]:
    """(whether the value was refused, what is wrong with the outcome)."""
    code, out, err = call_cli(_argv(command, flag, value))
    if code in (0, "reached"):
        return False, []
    lines = [ln for ln in err.splitlines() if ln.strip()]
    problems = []
    if code != 2:
        problems.append(f"exit {code}")
    if len(lines) != 1 or not lines[0].startswith("dbstor: error: "):
        problems.append(f"stderr is not one 'dbstor: error:' line: {err[:300]!r}")
    if out:
        problems.append(f"stdout before the refusal: {out[:200]!r}")
    if lines and len(lines[0]) > 500:
        problems.append(f"a line of {len(lines[0])} characters")
    return True, problems


@pytest.mark.parametrize("command", list(BASE))
def test_every_flag_gives_a_parse_or_one_line(stopped, command):
    """Every value-taking flag, every hostile value: accepted, or refused in one line; a
    flag that refuses a word refuses every non-number and every number beyond any limit."""
    assert set(BASE) == set(_subparsers()), "a new command: give it a BASE command line"
    failures = []
    flags = _value_flags(_walked(command))
    for flag in flags:
        refused_word, problems = _problems(command, flag, "abc")
        failures += [f"{command} {flag} 'abc': {p}" for p in problems]
        for value in HOSTILE:
            refused, problems = _problems(command, flag, value)
            shown = value if len(value) < 20 else value[:17] + "..."
            failures += [f"{command} {flag} {shown!r}: {p}" for p in problems]
            if refused_word and value in NOT_NUMBERS and not refused:
                failures.append(f"{command} {flag} {shown!r}: accepted by a numeric flag")
    assert failures == [], "\n".join(failures)


def test_the_walk_sees_the_flags():
    """The walk covers the flags users type numbers into (a guard on the walk itself)."""
    parsers = _subparsers()
    assert {"--duration", "--buffer", "--users", "--scale", "--seed"} <= set(
        _value_flags(parsers["run"])
    )
    assert {"--jobs", "--repeats", "--iodepth", "--slo"} <= set(_value_flags(parsers["io"]))
    assert {"--servers", "--ceiling", "--years"} <= set(_value_flags(parsers["tco"]))


@pytest.mark.parametrize(
    "value", ["-5s", "-inf", "-1e400", "-.5", "-x1", "-5%"], ids=lambda v: f"value{v}"
)
def test_a_negative_value_after_a_space_is_about_the_value(stopped, value):
    code, out, err = call_cli(["io", "--target", "T", "--duration", value])
    assert code == 2 and out == ""
    assert err.startswith(f"dbstor: error: --duration: {value!r}"), err


@pytest.mark.parametrize("command", list(BASE))
def test_an_abbreviated_flag_takes_a_negative_value_as_the_flag_does(stopped, command):
    """`--duratio -5s` ends as `--duration -5s` does (argparse takes unambiguous prefixes of
    long flags): never argparse's "expected one argument"."""
    parser = _walked(command)
    every = [f for a in parser._actions for f in a.option_strings]
    failures = []
    for flag in _value_flags(parser):
        short = flag[:-1]
        if len(short) < 3 or short in every or [f for f in every if f.startswith(short)] != [flag]:
            continue
        for value in ("-5", "-5s", "-inf", "-.5", "-1e400"):
            whole = call_cli(_argv(command, flag, value))
            argv = _argv(command, flag, value)
            argv[argv.index(flag, 1)] = short
            cut = call_cli(argv)
            if "expected one argument" in cut[2] or cut[:2] != whole[:2]:
                failures.append(f"{command} {short} {value}: {cut} vs {flag}: {whole}")
    assert failures == [], "\n".join(failures)


def test_an_empty_value_is_refused_not_taken_as_not_given(stopped):
    for argv in (
        ["run", "--engine", "sqlite", "--target", "T", "--users", ""],
        ["run", "--engine", "sqlite", "--target", "T", "--users="],
        ["report", ""],
    ):
        code, out, err = call_cli(argv)
        assert code == 2 and out == "" and err.count("\n") == 1, (argv, err)
        assert "empty" in err


def test_argparse_refusals_are_one_line_naming_the_help(stopped):
    code, _, err = call_cli(["io", "--target", "T", "--jobs", "many"])
    assert code == 2
    assert err == (
        "dbstor: error: argument --jobs: 'many' is not a whole number from 1 to 1,000,000 "
        "(see 'dbstor io --help')\n"
    )
    code, _, err = call_cli(["io"])
    assert code == 2 and err.count("\n") == 1 and "--target" in err
    code, _, err = call_cli(["io", "--target", "T", "--bogus", "1"])
    assert code == 2 and err.count("\n") == 1 and "(see 'dbstor io --help')" in err, err


LABELS = ["fc", "array-a_fc.1", "A" * 40, "A" * 41, LONG, "-lead", ".hidden", "a b", "é", "0"]


@pytest.mark.parametrize("label", LABELS)
def test_labels_hold_to_one_rule_from_flags_and_study_files(stopped, folder, label):
    """A label refused in a study file is refused from --label and --target LABEL=PATH,
    and one accepted there is accepted from both flags, unchanged."""
    study = folder / "label.toml"
    study.write_text(f'[[targets]]\nlabel = "{label}"\npath = "T"\n', encoding="utf-8")
    try:
        load_study(study)
        in_file = True
    except UserError:
        in_file = False
    for argv in (
        ["run", "--engine", "sqlite", "--target", "T", "--label", label],
        ["io", "--target", f"{label}=T"],
    ):
        stopped.clear()
        code, _, err = call_cli(argv)
        assert (code == "reached") == in_file, (argv, err)
        if in_file:
            assert stopped[0][0].targets[0].label == label
        else:
            assert "a label is a letter or digit" in err, err


def test_database_flags_that_would_be_ignored_are_refused(stopped, folder):
    """A study file (or the default study) takes no database flag: given, it is refused
    naming the flag, never run without it."""
    (folder / "s.toml").write_text('[[targets]]\nlabel = "A"\npath = "T"\n', encoding="utf-8")
    for argv, needle in (
        (["run", "s.toml", "--users", "4"], "--users does not apply to a study file"),
        (["run", "s.toml", "--duration", "5s"], "--duration does not apply to a study file"),
        (["run", "--scale", "3"], "--scale needs --engine"),
    ):
        code, out, err = call_cli(argv)
        assert code == 2 and out == "" and needle in err, (argv, err)
    assert call_cli(["run", "s.toml", "--quiet", "--out", "out"])[0] == "reached"


def test_a_baseline_that_names_no_run_is_refused(stopped, folder):
    """report --baseline falls back to the first run without a word no more."""
    study = folder / "S"
    if not study.exists():
        shutil.copytree(ROOT / "tests" / "golden" / "default-study", study)
    for argv, needle in (
        (["report", "A", "--baseline", "x"], "this folder holds one run"),
        (["report", "S", "--baseline", "nosuch"], "is not a run of this folder"),
    ):
        code, out, err = call_cli(argv)
        assert code == 2 and out == "" and needle in err, (argv, err)
    assert call_cli(["report", "S", "--baseline", "dbstor-data brokerage"])[0] == "reached"


@pytest.mark.parametrize("workload", ["brokerage", "orders", "blocks", "dss"])
def test_workload_options_take_any_value_or_refuse_it_in_one_line(stopped, workload):
    """--option KEY=VALUE for every option a workload knows, hostile values included."""
    from dbstor.workloads.registry import workload_class

    series = ["--streams", "1"] if workload == "dss" else []
    failures = []
    for key in workload_class(workload).options_help:
        for value in (*HOSTILE[:-1], "true", "1", LONG[:60]):
            argv = ["run", "--engine", "sqlite", "--target", "T", "--workload", workload]
            code, out, err = call_cli([*argv, *series, "--option", f"{key}={value}"])
            lines = [ln for ln in err.splitlines() if ln.strip()]
            if code not in (0, "reached") and (code != 2 or len(lines) != 1 or out):
                failures.append(f"{workload} {key}={value[:20]!r}: {code} {err[:200]!r}")
    assert failures == [], "\n".join(failures)


# --- property tests (hypothesis): study files and flags drawn at random ---------------------

SCHEMA = json.loads((ROOT / "docs" / "study.schema.json").read_text(encoding="utf-8"))
HOSTILE_SCALARS = st.one_of(
    st.booleans(),
    st.integers(min_value=-(2**63), max_value=2**63 - 1),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([*HOSTILE, "1s", "4KiB", "1ms", "data", "fast", "A", "zipf:1.2", "\ufeff"]),
    st.text(max_size=12),
)
VALUES = st.recursive(
    HOSTILE_SCALARS,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=8,
)


def _keys(section: str) -> list[str]:
    spec = SCHEMA.get("properties", {}).get(section, {})
    spec = spec.get("items", spec)  # an array of tables: its table's keys
    return sorted(spec.get("properties", {})) or ["x"]


def _table(section: str) -> st.SearchStrategy[dict[str, Any]]:
    return st.dictionaries(st.sampled_from([*_keys(section), "misspelt"]), VALUES, max_size=4)


STUDIES = st.fixed_dictionaries(
    {},
    optional={
        section: (
            st.lists(_table(section), min_size=1, max_size=2)
            if SCHEMA["properties"][section].get("type") == "array"
            else _table(section)
        )
        for section in SCHEMA["properties"]
    },
)
PROPERTY = settings(
    max_examples=80,
    deadline=timedelta(seconds=20),  # a generous bound: the machine may be busy
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


def _outcome_problems(argv: list[str]) -> list[str]:
    """What is wrong with the outcome of argv: only 0, a refusal in one line with exit 2,
    or the work reached are right; a traceback fails the test by itself."""
    code, _, err = call_cli(argv)
    if code in (0, "reached"):
        return []
    lines = [ln for ln in err.splitlines() if ln.strip()]
    if code != 2:
        return [f"exit {code}: {err[:300]!r}"]
    if len(lines) != 1 or not lines[0].startswith("dbstor: error: "):
        return [f"not one line: {err[:300]!r}"]
    return []


@PROPERTY
@given(study=STUDIES, command=st.sampled_from(["study", "run"]))
def test_no_study_file_gives_a_traceback_or_another_status(stopped, study, command):
    text = tomli_w.dumps(study)
    Path("drawn.toml").write_text(text, encoding="utf-8")
    assert _outcome_problems([command, "drawn.toml"]) == [], text


@PROPERTY
@given(text=st.text(max_size=200) | st.sampled_from(["a = " + "[" * 5000, "\ufeff[study]\n"]))
def test_no_study_text_gives_a_traceback_or_another_status(stopped, text):
    Path("drawn.toml").write_text(text, encoding="utf-8", errors="surrogatepass")
    assert _outcome_problems(["study", "drawn.toml"]) == [], text


@PROPERTY
@given(data=st.data())
def test_no_flags_give_a_traceback_or_another_status(stopped, data):
    command = data.draw(st.sampled_from(sorted(BASE)))
    flags = _value_flags(_subparsers()[command])
    drawn: list[str] = []
    for flag in data.draw(st.lists(st.sampled_from(flags), max_size=3)) if flags else []:
        value = data.draw(st.sampled_from(HOSTILE) | st.text(max_size=10))
        drawn += [flag, value]
    argv = [command, *BASE[command], *drawn]
    assert _outcome_problems(argv) == [], argv

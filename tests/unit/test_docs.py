"""Docs are checked: every profile documented and listed in --help; every example loads."""

from pathlib import Path

import pytest

from dbstor.cli import COMMANDS, build_parser
from dbstor.study.load import load_study
from dbstor.study.profiles import BUILTIN_PROFILES

ROOT = Path(__file__).parents[2]


def test_every_profile_is_documented_and_in_help(capsys):
    docs = (ROOT / "docs" / "profiles.md").read_text()
    with pytest.raises(SystemExit):
        build_parser().parse_args(["io", "--help"])
    help_text = capsys.readouterr().out
    for name in BUILTIN_PROFILES:
        assert f"| {name} |" in docs
        assert name in help_text


def test_every_command_is_in_the_readme_and_help(capsys):
    readme = (ROOT / "README.md").read_text()
    with pytest.raises(SystemExit):
        build_parser().parse_args(["--help"])
    help_text = capsys.readouterr().out
    for command in COMMANDS:
        assert f"dbstor {command}" in readme
        assert command in help_text


@pytest.mark.parametrize(
    "example", sorted((ROOT / "examples").glob("*.toml")), ids=lambda p: p.name
)
def test_examples_load(example):
    study = load_study(example)
    assert study.targets and (study.profiles or study.databases)


def test_readme_opens_with_the_two_commands():
    lines = [ln for ln in (ROOT / "README.md").read_text().splitlines() if ln.startswith("make ")]
    assert lines[0].startswith("make demo") and lines[1].startswith("make test")


# --- the docs name everything there is (datasette's test_docs.py habit) -------------------

DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def _docs_text() -> str:
    return "\n".join(p.read_text() for p in DOCS)


def _flags() -> list[tuple[str, str]]:
    """(command, --flag) for every long option of every command."""
    import argparse

    parser = build_parser()
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return sorted(
        {
            (name, option)
            for name, sub in commands.choices.items()
            for action in sub._actions
            for option in action.option_strings
            if option.startswith("--") and option != "--help"
        }
    )


def test_every_top_level_package_is_in_the_architecture():
    text = (ROOT / "docs" / "architecture.md").read_text()
    package = ROOT / "src" / "dbstor"
    names = [p.name for p in package.iterdir() if p.is_dir() and (p / "__init__.py").exists()]
    names += [p.name for p in package.glob("*.py") if p.name not in ("__init__.py", "__main__.py")]
    missing = [n for n in sorted(names) if f"`{n.removesuffix('.py')}" not in text]
    assert missing == [], f"docs/architecture.md does not name: {missing}"


def test_every_registered_engine_and_workload_is_documented():
    from dbstor.engines.registry import ENGINES
    from dbstor.workloads.registry import WORKLOADS

    engines = (ROOT / "docs" / "engines.md").read_text()
    assert [e for e in ENGINES if f"`{e}`" not in engines] == []
    for workload in WORKLOADS:
        assert (ROOT / "docs" / f"{workload}.md").exists() or f"`{workload}`" in _docs_text()


def test_every_flag_of_every_command_is_documented():
    text = _docs_text()
    missing = [f"dbstor {c} {f}" for c, f in _flags() if f not in text]
    assert missing == [], f"flags no doc names: {missing}"


def test_the_flag_reader_sees_the_flags_the_issue_found_missing():
    assert {("io", "--fact"), ("io", "--precondition"), ("tco", "--licence-price")} <= set(_flags())

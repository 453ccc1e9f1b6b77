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

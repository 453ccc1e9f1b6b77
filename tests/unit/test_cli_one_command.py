"""Running one command builds only that command's parser: the same flags, defaults and
help as among all commands, and none of the other commands' modules imported (the
start-up of `dbstor io`, docs/benchmarks.md)."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

import pytest

from dbstor import cli


def _subparser(parser: argparse.ArgumentParser, name: str) -> argparse.ArgumentParser:
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return action.choices[name]


def _shape(parser: argparse.ArgumentParser) -> list[tuple]:
    return [
        (tuple(a.option_strings), a.dest, a.nargs, repr(a.default), a.help, a.required)
        for a in parser._actions
    ]


@pytest.mark.parametrize("name", cli.COMMANDS)
def test_a_command_alone_has_the_flags_it_has_among_all(name: str) -> None:
    alone, among_all = cli.build_parser(name), cli.build_parser()
    assert _shape(_subparser(alone, name)) == _shape(_subparser(among_all, name))
    assert _subparser(alone, name).format_help() == _subparser(among_all, name).format_help()


def test_an_unknown_name_builds_every_command() -> None:
    action = next(
        a
        for a in cli.build_parser("nonsense")._actions
        if isinstance(a, argparse._SubParsersAction)
    )
    assert list(action.choices) == list(cli.COMMANDS)


def test_dbstor_io_imports_no_other_commands_modules() -> None:
    """What `dbstor io --help` imports, in a fresh interpreter: no other command's module and
    none of the catalog (index, export, check), the placement or the capacity analyses."""
    code = (
        "import sys, json; from dbstor import cli\n"
        "try:\n    cli.main(['io', '--help'])\nexcept SystemExit:\n    pass\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.startswith('dbstor.'))), "
        "file=sys.stderr)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    imported = set(json.loads(done.stderr.strip().splitlines()[-1]))
    assert "dbstor.commands.io" in imported
    others = {f"dbstor.commands.{n}" for n in cli.COMMANDS if n != "io"} & imported
    assert not others
    heavy = ("dbstor.catalog", "dbstor.analysis.placement", "dbstor.analysis.capacity")
    assert not [m for m in imported if m.startswith(heavy)]

"""One way for unit tests to call dbstor's command line in-process: its exit code (or
"reached" when the command got as far as its real work, which the test replaced with a
raise of Reached), its stdout and its stderr."""

from __future__ import annotations

import contextlib
import io

from dbstor import cli


class Reached(Exception):
    """The command got as far as starting its real work: its flags were accepted."""


def call_cli(argv: list[str]) -> tuple[object, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code: object = cli.main(argv)
        except SystemExit as exc:
            code = exc.code
        except Reached:
            code = "reached"
    return code, out.getvalue(), err.getvalue()

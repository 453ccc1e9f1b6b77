"""The dbstor command: flags -> settings -> pipeline.

This is the only place that turns exceptions into exit codes: UserError -> 2 with one
line on stderr (an argparse refusal, an empty value and an OSError about a path too),
PointFailed -> 1, Ctrl-C -> 130, SIGTERM -> 143, SIGHUP -> 129 (128 + the signal, as a
shell reports it; the two stop as cleanly as Ctrl-C), at any instant (stopsignals.py). Each subcommand lives in its own module
under dbstor.commands and registers itself with `register(subparsers)`.
"""

import argparse
import errno
import importlib
import re
import sys
from collections import Counter
from collections.abc import Sequence
from typing import NoReturn

from dbstor import __version__, stopsignals
from dbstor.errors import PointFailed, UserError

# One module per subcommand, in the order --help lists them.
COMMANDS = (
    "run",
    "io",
    "compare",
    "report",
    "engines",
    "sql",
    "hosts",
    "efficiency",
    "capacity",
    "advise",
    "tco",
    "index",
    "check",
    "export",
    "serve",
    "study",
    "kube",
)


class OneLineParser(argparse.ArgumentParser):
    """argparse with dbstor's refusal: one line naming the problem and where the flags are
    described, exit 2, instead of argparse's usage block and error line."""

    help_prog = ""  # the command whose --help to name, when the top level refuses

    def error(self, message: str) -> NoReturn:
        prog = self.help_prog or self.prog
        self.exit(2, f"dbstor: error: {shortened(message)} (see '{prog} --help')\n")


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The command line's parser, every command registered; with `only` (a name in
    COMMANDS) just that command, so that running one command imports no other command's
    modules (what `dbstor io` imports before its first point: docs/benchmarks.md)."""
    parser = OneLineParser(
        prog="dbstor",
        description=(
            "Run the database-on-storage studies that storage vendors publish, on your own "
            "storage: load-point sweeps, the peak and the knee under a latency limit, "
            "comparisons against a baseline, and a report you can forward."
        ),
        epilog="Run 'dbstor COMMAND --help' for the flags of one command.",
    )
    parser.add_argument("--version", action="version", version=f"dbstor {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in (only,) if only in COMMANDS else COMMANDS:
        importlib.import_module(f"dbstor.commands.{name}").register(subparsers)
    return parser


_LONG_WORD = re.compile(r"\S{161,}")
_UNPRINTABLE = re.compile(
    r"[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]"
)


def shortened(line: str) -> str:
    """The refusal as one line, any word of it (a 300-character value or path echoed back)
    cut to its first 80 and last 60 characters. A control or bidirectional character inside
    (a newline in a path, a right-to-left override in a label) is shown escaped, as in
    Python (\\n, \\u202e), so the line stays one line and names the value as it is."""
    line = _UNPRINTABLE.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), line)
    return _LONG_WORD.sub(lambda m: f"{m.group()[:80]}...{m.group()[-60:]}", line)


def _value_flags(parser: argparse.ArgumentParser, argv: Sequence[str]) -> set[str]:
    """The flags that take a value in the subcommand argv names (or the top level), and in
    its action when it has actions of its own (`dbstor kube render`)."""
    chosen, rest = parser, list(argv)
    while True:
        action = next(
            (a for a in chosen._actions if isinstance(a, argparse._SubParsersAction)), None
        )
        name = next((t for t in rest if not t.startswith("-")), None)
        if action is None or name not in action.choices:
            break
        chosen, rest = action.choices[name], rest[rest.index(name) + 1 :]
    flags = {
        flag
        for action in chosen._actions
        if action.option_strings and action.nargs != 0
        for flag in action.option_strings
    }
    return flags | (abbreviations(chosen, flags) if chosen.allow_abbrev else set())


def abbreviations(parser: argparse.ArgumentParser, flags: set[str]) -> set[str]:
    """The prefixes of these long flags argparse takes for them (`--dur` for --duration):
    those that are not a flag themselves and start no other flag of the parser."""
    every = [f for action in parser._actions for f in action.option_strings]
    starting = Counter(f[:end] for f in every for end in range(3, len(f)))  # prefix: flags
    named = set(every)
    out = set()
    for flag in (f for f in flags if f.startswith("--")):
        for end in range(3, len(flag)):
            prefix = flag[:end]
            if prefix not in named and starting[prefix] == 1:
                out.add(prefix)
    return out


def negative_values_joined(argv: Sequence[str], value_flags: set[str] | None = None) -> list[str]:
    """`--duration -5s` as `--duration=-5s`: argparse would take "-5s" (or "-inf", "-x") for a
    flag and say "expected one argument"; joined, the value reaches its check, which names
    the problem. With value_flags, any value starting with '-' after a flag that takes one is
    joined, unless it is itself a flag; without, only values starting with '-' and a digit."""
    out: list[str] = []
    for token in argv:
        prev = out[-1] if out else ""
        if value_flags is None:
            joins = bool(_NEGATIVE_VALUE.match(token)) and prev.startswith("--") and "=" not in prev
        else:
            joins = (
                prev in value_flags
                and token.startswith("-")
                and token not in ("-", "--")
                and not _FLAG_LIKE.match(token)
            )
        if joins:
            out[-1] = f"{prev}={token}"
        else:
            out.append(token)
    return out


_NEGATIVE_VALUE = re.compile(r"^-\d")
_FLAG_LIKE = re.compile(r"^(--[a-z][a-z0-9-]*|-[a-zA-Z])(=.*)?$")


def empty_value(argv: Sequence[str], value_flags: set[str]) -> str | None:
    """The refusal for an empty value (`--users ""`, `--users=`, a path given as ""), which
    argparse takes as given and the commands would take as not given, or for an argument
    with a NUL byte, which no path or value can hold: None when all is well."""
    for i, token in enumerate(argv):
        flag, sep, value = token.partition("=")
        if sep and flag in value_flags and not value.strip():
            return f"{flag}: the value is empty; give one or leave the flag out"
        if token.strip():
            continue
        before = argv[i - 1] if i else ""
        if before in value_flags:
            return f"{before}: the value is empty; give one or leave the flag out"
        return "an empty argument (''): give a path or a value, or leave it out"
    for i, token in enumerate(argv):
        if "\x00" in token:  # no path or value can hold one (the OS refuses it in a path)
            where = f"{argv[i - 1]}: " if i and argv[i - 1] in value_flags else ""
            return f"{where}the argument {token!r} has a NUL byte (\\x00); give it without"
    return None


def main(argv: Sequence[str] | None = None) -> int:
    """The command: its exit status. Every stop signal, at any instant, ends it with
    128 + the signal and one line (stopsignals.py); the words about finished load points
    only for the commands that run them."""
    given = list(sys.argv[1:] if argv is None else argv)
    command = next((t for t in given if not t.startswith("-")), None)
    try:
        try:
            return _command(given, command)
        except UserError as exc:
            print(f"dbstor: error: {shortened(str(exc))}", file=sys.stderr)
            return UserError.exit_code
        except PointFailed as exc:
            print(f"dbstor: a load point failed: {exc}", file=sys.stderr)
            return 1
        except BrokenPipeError:
            return 0
        except OSError as exc:
            line = os_refusal(exc)
            if line is None:
                raise
            print(f"dbstor: error: {shortened(line)}", file=sys.stderr)
            return UserError.exit_code
        except Exception:
            if not stopsignals.stopped():
                raise
            raise KeyboardInterrupt from None  # the signal, wrapped by a library on its way
    except KeyboardInterrupt:  # also one that arrives while an error line is written
        stopsignals.quiet()
        print(stopsignals.interruption_line(command), file=sys.stderr)
        stopsignals.handled()
        return stopsignals.interruption()[0]
    finally:
        stopsignals.finished()


def _command(given: list[str], command: str | None) -> int:
    parser = build_parser(command) if command in COMMANDS else build_parser()
    value_flags = _value_flags(parser, given)
    empty = empty_value(given, value_flags)
    if empty is not None:
        print(f"dbstor: error: {empty}", file=sys.stderr)
        return UserError.exit_code
    if isinstance(parser, OneLineParser):  # "unrecognized arguments" comes from the top
        parser.help_prog = f"dbstor {command}" if command in COMMANDS else ""
    args = parser.parse_args(negative_values_joined(given, value_flags))
    if args.command is None:
        parser.print_help()
        return 0
    # Until here nothing was made: a signal ended the command at once (stopsignals). From
    # here a signal unwinds what the command starts, as Ctrl-C does.
    stopsignals.raise_on_signal()
    return int(args.handler(args) or 0)


# An OSError reaching the top about a path the user gave: what to do instead.
_PATH_FIXES = {
    errno.ENAMETOOLONG: "give a shorter path",
    errno.ENOENT: "give a path that exists",
    errno.ENOTDIR: "a part of the path is not a folder",
    errno.EISDIR: "give a file, not a folder",
    errno.EACCES: "give a path you can read and write, or fix its permissions",
    errno.EPERM: "give a path you can read and write, or fix its permissions",
    errno.EROFS: "the file system is read-only; choose another place",
    errno.ELOOP: "the path has too many levels of symbolic links",
}


def os_refusal(exc: OSError) -> str | None:
    """One line for an OSError about a path (a name too long, a folder that cannot be read),
    the last guard against a traceback for a path the user typed; None for other errors."""
    fix = _PATH_FIXES.get(exc.errno or 0)
    if fix is None or exc.filename is None:
        return None
    name = str(exc.filename)
    shown = name if len(name) <= 80 else name[:77] + "..."
    return f"{shown}: {exc.strerror}; {fix}"

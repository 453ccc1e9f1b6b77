"""The dbstor command: flags -> settings -> pipeline.

This is the only place that turns exceptions into exit codes: UserError -> 2 with one
line on stderr, PointFailed -> 1, Ctrl-C -> 130. Each subcommand lives in its own module
under dbstor.commands and registers itself with `register(subparsers)`.
"""

import argparse
import importlib
import re
import signal
import sys
import threading
from collections.abc import Sequence

from dbstor import __version__
from dbstor.errors import PointFailed, UserError

# One module per subcommand, in the order --help lists them.
COMMANDS = (
    "run",
    "io",
    "compare",
    "report",
    "engines",
    "hosts",
    "efficiency",
    "capacity",
    "advise",
    "tco",
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
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
    for name in COMMANDS:
        importlib.import_module(f"dbstor.commands.{name}").register(subparsers)
    return parser


def _stop_on_sigterm(signum: int, frame: object) -> None:
    raise KeyboardInterrupt  # a polite kill stops as cleanly as Ctrl-C: finished points are kept


_NEGATIVE_VALUE = re.compile(r"^-\d")


def negative_values_joined(argv: Sequence[str]) -> list[str]:
    """`--duration -5s` as `--duration=-5s`: argparse would take "-5s" for a flag and say
    "expected one argument"; joined, the value reaches its check, which names the problem."""
    out: list[str] = []
    for token in argv:
        if out and _NEGATIVE_VALUE.match(token) and out[-1].startswith("--") and "=" not in out[-1]:
            out[-1] = f"{out[-1]}={token}"
        else:
            out.append(token)
    return out


def main(argv: Sequence[str] | None = None) -> int:
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _stop_on_sigterm)
    parser = build_parser()
    args = parser.parse_args(negative_values_joined(sys.argv[1:] if argv is None else argv))
    if args.command is None:
        parser.print_help()
        return 0
    try:
        return int(args.handler(args) or 0)
    except UserError as exc:
        print(f"dbstor: error: {exc}", file=sys.stderr)
        return UserError.exit_code
    except PointFailed as exc:
        print(f"dbstor: a load point failed: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("dbstor: interrupted; finished load points are kept", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0

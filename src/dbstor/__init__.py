"""dbstor: run storage vendors' database studies on your own storage."""

import _signal  # the C module: `signal` imports enum, which takes longer than a signal waits
import itertools as _itertools
import os as _os
import sys as _sys

__version__ = "0.1.0"


def _exit_at_once(signum: int, frame: object) -> None:
    """A stop signal before the command's own handlers (stopsignals.py) are in place: one
    line and 128 + the signal; nothing has been made yet."""
    try:
        name = {_signal.SIGINT: "Ctrl-C", _signal.SIGTERM: "SIGTERM", _signal.SIGHUP: "SIGHUP"}
        line = (
            f"dbstor: interrupted ({name.get(signum, signum)}) while starting; nothing was done\n"
        )
        _os.write(2, line.encode())
    finally:
        _os._exit(128 + signum)


# First of all, before any other import: in the dbstor process itself (its script or
# `python -m dbstor`, never a program that imports dbstor), a stop signal while the command
# starts ends it with one line and 128 + the signal. stopsignals.py takes over below.
_orig = list(getattr(_sys, "orig_argv", []))
if (len(_orig) > 1 and _os.path.basename(_orig[1]) == "dbstor") or any(
    a == "-m" and b == "dbstor" for a, b in _itertools.pairwise(_orig)
):
    for _signum in (_signal.SIGINT, _signal.SIGTERM, _signal.SIGHUP):
        if _signal.getsignal(_signum) is not _signal.SIG_IGN:  # nohup's choice stands
            _signal.signal(_signum, _exit_at_once)

from dbstor import stopsignals as _stopsignals  # noqa: E402

if _stopsignals.running_as_command():
    _stopsignals.exit_at_once()

"""How dbstor ends on Ctrl-C, SIGTERM and SIGHUP, at any instant of any command: with
128 + the signal and one line on stderr, never a traceback (shared by every command; a new
command only says whether it runs load points, in LOAD_POINT_COMMANDS).

Three phases:
- starting (from the first line of the package, before any heavy import, until the
  command's body runs): nothing has been made yet, so a stop signal writes its line and
  ends the process at once (os._exit);
- running (cli.main's body): a stop signal raises KeyboardInterrupt, which unwinds
  everything the command started (servers, fio, client processes, folders) and reaches
  cli.main, which writes the line;
- finishing (after the line or the result is written): as starting; the command is done.

The phases are entered only by the dbstor process itself (the `dbstor` script or
`python -m dbstor`), never by a program or test that imports dbstor, nor by its spawned
client processes.
"""

from __future__ import annotations

import itertools
import os
import signal
import sys
import threading

from dbstor.errors import forget_stop_signal, interruption, note_stop_signal, stop_signal

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
# The commands that run load points: only they say the finished ones are kept.
LOAD_POINT_COMMANDS = {"run", "io"}


def signal_name(signum: int) -> str:
    return "Ctrl-C" if signum == signal.SIGINT else signal.Signals(signum).name


def running_as_command() -> bool:
    """Whether this process is the dbstor command (its own script or `-m dbstor`)."""
    orig = list(getattr(sys, "orig_argv", []))
    script = os.path.basename(orig[1]) if len(orig) > 1 else ""
    module = any(a == "-m" and b == "dbstor" for a, b in itertools.pairwise(orig))
    return script == "dbstor" or module


def _exit_now(signum: int, frame: object) -> None:
    """A stop signal while nothing of the command's is running: its line, then its status."""
    phase = "while finishing" if _finished else "while starting; nothing was done"
    with_line = f"dbstor: interrupted ({signal_name(signum)}) {phase}\n"
    try:
        os.write(2, with_line.encode())
    finally:
        os._exit(128 + signum)


_finished: list[bool] = []


def _settable() -> bool:
    return threading.current_thread() is threading.main_thread()


def _install(handler: object, on_ctrl_c: object = None) -> None:
    for signum in STOP_SIGNALS:
        if signal.getsignal(signum) is not signal.SIG_IGN:  # nohup's choice stands
            chosen = on_ctrl_c if signum == signal.SIGINT and on_ctrl_c else handler
            signal.signal(signum, chosen)  # type: ignore[arg-type]


def exit_at_once() -> None:
    """The starting (or, after finished(), finishing) phase: end at once on a signal."""
    if _settable():
        _install(_exit_now)


def stopped() -> bool:
    """Whether a stop signal came (an exception that reaches cli.main is then its doing:
    a library may wrap the KeyboardInterrupt, as dataclasses' __set_name__ does)."""
    return stop_signal() is not None


def handled() -> None:
    """The interruption was handled: clear CPython's note of a KeyboardInterrupt that left
    a code object run from C (it would end the process by SIGINT at exit, after dbstor
    wrote its line and chose its status). Running any code from C clears it."""
    if running_as_command():
        import ctypes

        ctypes.pythonapi.PyRun_SimpleString(b"pass")


def _raise_interrupt(signum: int, frame: object) -> None:
    note_stop_signal(signum)
    raise KeyboardInterrupt


# How long a redelivered stop signal waits: long enough that the hook which scheduled it
# has returned to ordinary code (a signal handled inside the hook is swallowed again).
REDELIVERY_DELAY_S = 0.02


def _deliver_later(signum: int) -> None:
    """Send signum to the main thread from another thread, a moment from now."""
    main = threading.main_thread().ident

    def deliver() -> None:
        threading.Event().wait(REDELIVERY_DELAY_S)
        signal.pthread_kill(main, signum)  # type: ignore[arg-type]

    threading.Thread(target=deliver, name="dbstor-stop-redelivery", daemon=True).start()


def _redeliver_swallowed(info: sys.UnraisableHookArgs) -> None:
    """A stop signal whose KeyboardInterrupt was raised where CPython cannot raise (a weakref
    callback, a __del__, a finalizer run from C) was swallowed there, and the command would
    go on as if nothing came: deliver the signal again once this hook has returned, so that
    it unwinds the command from ordinary code. Raised here, in the hook, it would be
    swallowed once more; one swallowed again (in another finalizer) comes back here and is
    sent again. Any other unraisable exception is printed as before."""
    signum = stop_signal()
    if signum is not None and issubclass(info.exc_type, KeyboardInterrupt):
        _deliver_later(signum)
        return
    sys.__unraisablehook__(info)


def raise_on_signal() -> None:
    """The running phase: a stop signal unwinds the command as Ctrl-C does."""
    if _settable():
        forget_stop_signal()
        _install(_raise_interrupt)
        sys.unraisablehook = _redeliver_swallowed


def finished() -> None:
    """The command's line or result is written: a signal now ends the process at once."""
    _finished.append(True)
    if running_as_command():
        exit_at_once()


def quiet() -> None:
    """While the interruption's own line is written: a second signal does not break it."""
    if _settable():
        for signum in STOP_SIGNALS:
            if signal.getsignal(signum) is not signal.SIG_IGN:
                signal.signal(signum, signal.SIG_IGN)


def interruption_line(command: str | None) -> str:
    _, name = interruption()
    kept = "; finished load points are kept" if command in LOAD_POINT_COMMANDS else ""
    return f"dbstor: interrupted ({name}){kept}"

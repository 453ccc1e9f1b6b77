"""A stop signal whose KeyboardInterrupt CPython swallowed (raised inside a weakref callback
or a __del__, where it cannot propagate) is delivered again, so the command still unwinds;
a real swallowed raise, through a real weakref callback, with a handler that raises as
dbstor's own does (a handler run inside the hook would be swallowed once more)."""

from __future__ import annotations

import gc
import signal
import sys
import time
import weakref

import pytest

from dbstor import stopsignals
from dbstor.errors import forget_stop_signal, note_stop_signal


class _Thing:
    pass


@pytest.fixture
def hook_and_sigusr1():
    """dbstor's hook in place and SIGUSR1 (a stand-in stop signal of this test) counted and
    raising KeyboardInterrupt, as dbstor's handler does."""
    seen: list[int] = []

    def handler(signum: int, frame: object) -> None:
        seen.append(signum)
        raise KeyboardInterrupt

    before = signal.signal(signal.SIGUSR1, handler)
    hook_before = sys.unraisablehook
    sys.unraisablehook = stopsignals._redeliver_swallowed
    try:
        yield seen
    finally:
        sys.unraisablehook = hook_before
        signal.signal(signal.SIGUSR1, before)
        forget_stop_signal()


def _swallowed_raise(exc: BaseException) -> None:
    """Raise exc where CPython can only report it: in a weakref callback."""

    def callback(_ref: object) -> None:
        raise exc

    thing = _Thing()
    ref = weakref.ref(thing, callback)
    del thing
    gc.collect()
    assert ref() is None


def _ordinary_code(seconds: float) -> None:
    """A second of ordinary Python code, where a KeyboardInterrupt propagates."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        time.sleep(0.005)


def test_a_swallowed_interrupt_after_a_stop_signal_unwinds_the_code_after_it(hook_and_sigusr1):
    note_stop_signal(signal.SIGUSR1)
    _swallowed_raise(KeyboardInterrupt())  # returns: CPython swallowed it
    with pytest.raises(KeyboardInterrupt):
        _ordinary_code(5.0)
    # once, or more where a redelivered one landed in another finalizer (a garbage
    # collection in the loop) and was sent again: the command unwinds either way
    assert hook_and_sigusr1 and set(hook_and_sigusr1) == {signal.SIGUSR1}


def test_a_swallowed_interrupt_without_a_stop_signal_is_reported_as_before(
    hook_and_sigusr1, capsys
):
    _swallowed_raise(KeyboardInterrupt())
    _ordinary_code(0.2)
    assert hook_and_sigusr1 == []
    assert "KeyboardInterrupt" in capsys.readouterr().err


def test_another_swallowed_error_is_reported_as_before(hook_and_sigusr1, capsys):
    note_stop_signal(signal.SIGUSR1)
    _swallowed_raise(ValueError("not a stop"))
    _ordinary_code(0.2)
    assert hook_and_sigusr1 == []
    assert "not a stop" in capsys.readouterr().err

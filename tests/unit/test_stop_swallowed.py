"""A stop signal whose KeyboardInterrupt CPython swallowed (raised inside a weakref callback
or a __del__, where it cannot propagate) is delivered again, so the command still unwinds;
a real swallowed raise, through a real weakref callback."""

from __future__ import annotations

import gc
import signal
import sys
import weakref

import pytest

from dbstor import stopsignals
from dbstor.errors import forget_stop_signal, note_stop_signal


class _Thing:
    pass


@pytest.fixture
def hook_and_sigusr1():
    """dbstor's hook in place and SIGUSR1 counted (a stand-in stop signal of this test)."""
    seen: list[int] = []
    before = signal.signal(signal.SIGUSR1, lambda signum, frame: seen.append(signum))
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


def test_a_swallowed_interrupt_after_a_stop_signal_is_delivered_again(hook_and_sigusr1):
    note_stop_signal(signal.SIGUSR1)
    _swallowed_raise(KeyboardInterrupt())
    assert hook_and_sigusr1 == [signal.SIGUSR1]


def test_a_swallowed_interrupt_without_a_stop_signal_is_reported_as_before(
    hook_and_sigusr1, capsys
):
    _swallowed_raise(KeyboardInterrupt())
    assert hook_and_sigusr1 == []
    assert "KeyboardInterrupt" in capsys.readouterr().err


def test_another_swallowed_error_is_reported_as_before(hook_and_sigusr1, capsys):
    note_stop_signal(signal.SIGUSR1)
    _swallowed_raise(ValueError("not a stop"))
    assert hook_and_sigusr1 == []
    assert "not a stop" in capsys.readouterr().err

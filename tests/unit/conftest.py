"""Shared set-up for the unit tests."""

from __future__ import annotations

import signal
from collections.abc import Iterator

import pytest


@pytest.fixture(autouse=True)
def ctrl_c_is_keyboard_interrupt() -> Iterator[None]:
    """Ctrl-C raises KeyboardInterrupt in every test, even when the harness was started in
    the background (nohup ... &), which passes SIGINT on as ignored."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)

"""Skips for integration tests that need an engine this machine may not have."""

from __future__ import annotations

import pytest

from dbstor.engines.registry import engine_class


def usable(name: str) -> None:
    """Skip the test, saying why, when engine `name` cannot run here."""
    availability = engine_class(name).availability()
    if not availability.usable:
        pytest.skip(f"{name}: {availability.reason}")

"""What a test needs that this machine may not have: skips that say why, and under CI's
DBSTOR_REQUIRE_ALL=1 (tests/conftest.py) fail instead, unless they say they are optional.

Integration tests take their engines from dbstor's registry (engines_for), so an engine
registered there is tested everywhere it fits; an engine module that fails to import is an
error of the test, never a skip.
"""

from __future__ import annotations

import pytest

from dbstor.engines.base import Engine
from dbstor.engines.registry import ENGINES, engine_class
from dbstor.engines.server import ServerEngine

# The engines CI installs (.ci/run: postgresql, mariadb-server; the drivers from the dev
# extra): a missing one fails there. Others (MySQL's own server) are optional skips.
CI_ENGINES = ("sqlite", "postgres", "mariadb", "duckdb")


def optional(reason: str) -> None:
    """Skip for something CI does not install either (an array's exporter, MySQL)."""
    pytest.skip(f"optional: {reason}")


def not_applicable(reason: str) -> None:
    """Skip a case that does not apply (a parameter combination with nothing to test)."""
    pytest.skip(f"not applicable: {reason}")


def missing(reason: str, name: str) -> None:
    """Skip for a missing engine: a failure under CI's switch when CI installs it."""
    if name in CI_ENGINES:
        pytest.skip(f"{name}: {reason}")
    optional(f"{name}: {reason} (CI does not install it)")


def usable(name: str) -> type[Engine]:
    """The engine's class when it can run here with dbstor managing it (for a server
    engine: its driver and its server binaries); else skip saying what is missing."""
    cls = engine_class(name)
    availability = cls.availability()
    if not availability.usable or not availability.managed:
        missing(availability.reason, name)
    return cls


def engines_for(dialects: tuple[str, ...], *, servers: bool = False) -> list[str]:
    """The registry's engines whose dialect is among `dialects` (a workload's), optionally
    only the client/server ones; importing each engine's module here, at collection."""
    names = []
    for name in ENGINES:
        cls = engine_class(name)
        if cls.dialect in dialects and (not servers or issubclass(cls, ServerEngine)):
            names.append(name)
    return names

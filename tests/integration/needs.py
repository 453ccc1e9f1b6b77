"""What a test needs that this machine may not have: skips that say why, and under CI's
DBSTOR_REQUIRE_ALL=1 (tests/conftest.py) fail instead, unless they say they are optional.

Integration tests take their engines from dbstor's registry (engines_for, engine_targets),
so an engine registered there is tested everywhere it fits; an engine module that fails to
import is an error of the test, never a skip.

An external server is tested through the same suites when its DSN is in the environment:
DBSTOR_TEST_DSN_<ENGINE> (DBSTOR_TEST_DSN_POSTGRES, DBSTOR_TEST_DSN_MARIADB,
DBSTOR_TEST_DSN_SQLSERVER, DBSTOR_TEST_DSN_ORACLE) adds the engine's items with the id
`<engine>-external`. An engine dbstor cannot manage here and has no DSN for (SQL Server and
Oracle, MySQL without its server) has no items at all: the test summary names it in one line
(conftest.py), rather than a skip with a reason no install could change.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import TypeVar

import pytest

from dbstor.dialects import registry
from dbstor.engines.base import Engine, EngineSettings
from dbstor.engines.registry import ENGINES, engine_class

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


T = TypeVar("T")
DSN_VARIABLE = "DBSTOR_TEST_DSN_{}"
NO_SERVER: set[str] = set()  # engines whose items were not generated, for the summary line


def given_dsn(name: str) -> str | None:
    """The DSN of an external server of this engine given to the tests, if any."""
    return os.environ.get(DSN_VARIABLE.format(name.upper())) or None


@dataclass(frozen=True)
class Target:
    """An engine the suite runs on: managed by dbstor here, or an external server."""

    engine: str
    dsn: str | None = None  # an external server's (DBSTOR_TEST_DSN_<ENGINE>)

    @property
    def external(self) -> bool:
        return self.dsn is not None


def usable(name: str, dsn: str | None = None) -> type[Engine]:
    """The engine's class when it can run here: with dbstor managing it (for a server
    engine: its driver and its server binaries), or, given a DSN, its driver; else skip
    saying what is missing."""
    cls = engine_class(name)
    availability = cls.availability()
    if not availability.usable or (dsn is None and not availability.managed):
        missing(availability.reason, name)
    return cls


def manageable(name: str) -> bool:
    """Whether dbstor can run its own server of this engine here (CI's engines always: a
    missing one fails there)."""
    return name in CI_ENGINES or engine_class(name).availability().managed


def engine_targets(dialects: tuple[str, ...], *, servers: bool = False) -> list[object]:
    """engines_for's engines as pytest params: each one dbstor can manage here (id: its
    name) and each one with an external server's DSN (id: <name>-external); one with
    neither is not generated and goes into NO_SERVER."""
    params: list[object] = []
    for name in engines_for(dialects, servers=servers):
        dsn = given_dsn(name)
        if manageable(name):
            params.append(pytest.param(Target(name), id=name))
        if dsn is not None:
            params.append(pytest.param(Target(name, dsn), id=f"{name}-external"))
        if dsn is None and not manageable(name):
            NO_SERVER.add(name)
    return params


def speaks(engine: Engine | type[Engine], dialect: str) -> bool:
    """Whether the engine speaks `dialect` or a kin of it (a dialect that extends it), so a
    test's dialect-specific check runs on every engine of that family."""
    return dialect in registry.get(engine.dialect).lineage


def by_dialect(values: dict[str, T], engine: Engine | type[Engine]) -> T:
    """The value kept for the engine's dialect, or for its nearest kin."""
    return next(values[d] for d in registry.get(engine.dialect).lineage if d in values)


def engines_for(dialects: tuple[str, ...], *, servers: bool = False) -> list[str]:
    """The registry's engines whose dialect is among `dialects` (a workload's), optionally
    only the client/server ones; importing each engine's module here, at collection."""
    names = []
    for name in ENGINES:
        cls = engine_class(name)
        if cls.dialect in dialects and (not servers or cls.is_server):
            names.append(name)
    return names


def engine_settings(
    target: Target, paths: dict, instance: int = 0, buffer_bytes: int | None = None
) -> EngineSettings:
    """A managed engine's settings (its data paths and buffer), or an external server's
    (its DSN: the server keeps its own files and memory)."""
    if target.external:
        return EngineSettings(dsn=target.dsn, instance=instance)
    return EngineSettings(paths=paths, buffer_bytes=buffer_bytes, instance=instance)

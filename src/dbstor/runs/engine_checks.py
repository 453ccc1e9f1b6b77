"""Checks of a study's database runs against the engines, made before anything exists:
what is already on the target paths where a managed engine's files or instance directories
go (each engine's own check_target(), the rules its start() applies), and an external
server's DSN and its parameters (parsed as a connection would, without connecting).
"""

from __future__ import annotations

from dbstor.engines.base import EngineSettings
from dbstor.engines.registry import engine_class
from dbstor.engines.server import ServerEngine
from dbstor.study.model import DatabaseSpec, Study


def instance_count(spec: DatabaseSpec) -> int:
    """How many instances a run of this database creates (an instances series: its most)."""
    series = spec.series
    return max(series.values) if series.kind == "instances" and series.values else 1


def check_engine_targets(study: Study, spec: DatabaseSpec, allow_overwrite: bool) -> None:
    """Someone else's file or directory where a managed engine's go, on any local target
    and for any instance the run makes: the UserError the engine's start() would give,
    before the first progress line. Read-only."""
    if spec.dsn is not None:
        return
    engine = engine_class(spec.engine)
    for target in study.targets:
        if target.clients or not target.paths:
            continue
        for instance in range(instance_count(spec)):
            settings = EngineSettings(
                paths=dict(target.roles), instance=instance, allow_overwrite=allow_overwrite
            )
            engine(settings).check_target()


def check_dsn(spec: DatabaseSpec) -> None:
    """An external server's DSN that does not parse or has a bad parameter (a timeout that
    is not a number): refused here, also when the server is reached from other hosts."""
    engine = engine_class(spec.engine)
    if spec.dsn is not None and issubclass(engine, ServerEngine):
        engine(EngineSettings(dsn=spec.dsn)).check_dsn()

"""A database run's checks before anything starts (runs/study.py's preflight), apart so
that a fio study never imports the engines, drivers and workloads."""

from __future__ import annotations

import stat

from dbstor.engines.base import EngineSettings
from dbstor.engines.memory_flags import (
    check_buffer_fits_host,
    check_embedded_cap,
    check_memory_flags,
)
from dbstor.engines.registry import engine_class
from dbstor.errors import UserError
from dbstor.runs.engine_checks import check_engine, check_open_files
from dbstor.runs.queries.checks import check_query_spec
from dbstor.study.model import DatabaseSpec, Study
from dbstor.testfiles import Safety
from dbstor.workloads.registry import workload_class


def preflight_database(
    study: Study, spec: DatabaseSpec, local_targets: bool, safety: Safety | None
) -> None:
    """A database run's checks before anything is created: the engine usable here, the
    workload's SQL for it, a DSN or a target directory, the engine's own checks, the load
    and the memory flags, and an external server reachable."""
    engine = engine_class(spec.engine)
    availability = engine.availability()
    if not availability.usable:
        raise UserError(f"engine {spec.engine} is not usable here: {availability.reason}")
    dialects = workload_class(spec.workload).dialects
    if engine.dialect not in dialects:
        raise UserError(
            f"workload {spec.workload} has no SQL for {engine.title}; it runs on: {', '.join(dialects)}"
        )
    if spec.dsn is not None and not engine.is_server:
        raise UserError(
            f"{spec.engine} is embedded: it takes target paths (--target), not a DSN; "
            "drop --dsn (or the dsn of the study file, or unset DBSTOR_DSN)"
        )
    if spec.dsn is None and any(not t.paths for t in study.targets if not t.clients):
        raise UserError(
            f"engine {spec.engine} needs a target directory (--target) or an external server (--dsn)"
        )
    if spec.dsn is None and local_targets:
        check_no_block_device(study)
    check_engine(study, spec, local_targets, safety.allow_overwrite if safety else None)
    check_query_spec(spec)
    check_load_spec(spec)
    if engine.is_server and spec.dsn is None:
        settings = EngineSettings(
            buffer_bytes=spec.buffer_bytes, memory_limit_bytes=spec.memory_limit_bytes
        )
        check_memory_flags(engine.title, settings, engine.memory_headroom)
    else:
        check_buffer_fits_host(spec.buffer_bytes, spec.memory_limit_bytes)
        check_embedded_cap(engine.name, engine.title, spec.memory_limit_bytes)
    if engine.is_server and spec.dsn is not None and local_targets:
        engine(EngineSettings(dsn=spec.dsn)).check_reachable()


def check_no_block_device(study: Study) -> None:
    """A managed database keeps its files in a directory: a raw device is fio's only."""
    for path in (p for t in study.targets for paths in t.roles.values() for p in paths):
        if path.exists() and stat.S_ISBLK(path.stat().st_mode):
            raise UserError(
                f"target path {path} is a block device, and a database engine keeps its files "
                "in a directory: make a file system on it, mount it and give the mount point "
                "(only fio runs on a raw device)"
            )


def check_load_spec(spec: DatabaseSpec) -> None:
    """The workload's scale and options (its constructor raises UserError on bad ones) and
    the load series, before anything is created."""
    cls = workload_class(spec.workload)
    workload = cls(
        spec.scale if spec.scale is not None else cls.default_scale, spec.seed, spec.options
    )
    if spec.series.kind == "rate" and spec.think_time_ms:
        raise UserError(
            "--think-time does not apply to --rate: at a rate, arrivals set the pace; drop one"
        )
    closed = not spec.think_time_ms and spec.series.kind != "rate"
    check_open_files(spec, not (closed and workload.submits(engine_class(spec.engine).dialect)))

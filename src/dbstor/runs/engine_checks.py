"""Checks of a study's database runs against the engines, made before anything exists:
what is already on the target paths where a managed engine's files or instance directories
go (each engine's own check_target(), the rules its start() applies), a managed engine
whose server binaries are missing, an external
server's DSN and its parameters (parsed as a connection would, without connecting), and
how many instances one host can hold.
"""

from __future__ import annotations

import resource

from dbstor.drivers.client_watch import FDS_PER_USER, FDS_SPARE
from dbstor.drivers.processes import processes_for
from dbstor.engines.base import EngineSettings
from dbstor.engines.memory_flags import host_memory_bytes
from dbstor.engines.place import check_place
from dbstor.engines.registry import engine_class
from dbstor.errors import UserError
from dbstor.runs.queries.checks import runs_queries
from dbstor.study.model import DatabaseSpec, Study
from dbstor.units import format_size
from dbstor.workloads.registry import workload_class

MAX_INSTANCES = 64  # instances one host drives in a run (TR-4403 ramped 1 to 8 servers)
SERVER_BUFFER = 32 << 20  # a managed server's own cache without --buffer
SERVER_OVERHEAD = 128 << 20  # its processes, connections and work memory besides the cache


def check_engine(
    study: Study, spec: DatabaseSpec, local: bool, allow_overwrite: bool | None
) -> None:
    """Every check below for one database of the study; `local`: its targets are on this
    host; allow_overwrite None: the target check is left to the run."""
    check_dsn(spec)
    check_spec_place(study, spec)
    check_engine_events(study, spec)
    if local:
        check_managed(spec)
    check_instances(study, spec, local)
    if local and allow_overwrite is not None:
        check_engine_targets(study, spec, allow_overwrite)


def check_engine_events(study: Study, spec: DatabaseSpec) -> None:
    """Events on a query run (its streams take none yet), and a crash or checkpoint event
    the engine cannot take (an embedded engine has no server to kill, an external server
    is not dbstor's to kill): its own reason, one line; `dbstor study` and `run` alike."""
    if study.events and runs_queries(spec):
        raise UserError(
            "events run inside fio and transaction points, not query streams (dss) "
            "yet: leave out the events or the query workload"
        )
    engine = engine_class(spec.engine)
    external = spec.dsn is not None
    for event in study.events:
        refusal = {
            "crash": engine.crash_refusal,
            "checkpoint": engine.checkpoint_refusal,
        }.get(event.kind, lambda external: None)(external)
        if refusal:
            raise UserError(f"{event.where}: {refusal}; leave out the {event.kind} event")


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


def check_spec_place(study: Study, spec: DatabaseSpec) -> None:
    """[databases] place on every target, before anything exists: the engine can place
    objects, each target has the roles named, each pattern names something the workload
    declares (engines/place.py)."""
    if not spec.place:
        return
    cls = workload_class(spec.workload)
    scale = spec.scale if spec.scale is not None else cls.default_scale
    objects = cls(scale, spec.seed, spec.options).object_names()
    for target in study.targets:
        check_place(
            engine_class(spec.engine),
            spec.place,
            target.roles,
            objects,
            spec.workload,
            spec.dsn is not None,
            target.label,
        )


def check_managed(spec: DatabaseSpec) -> None:
    """A managed server (no DSN) of an engine whose server binaries this host lacks."""
    if spec.dsn is not None:
        return
    availability = engine_class(spec.engine).availability()
    if availability.usable and not availability.managed:
        raise UserError(
            f"engine {spec.engine} cannot start its own server here: {availability.reason}; "
            "or give --dsn to run against an external server"
        )


def check_dsn(spec: DatabaseSpec) -> None:
    """An external server's DSN that does not parse or has a bad parameter (a timeout that
    is not a number): refused here, also when the server is reached from other hosts."""
    engine = engine_class(spec.engine)
    if spec.dsn is not None and engine.is_server:
        engine(EngineSettings(dsn=spec.dsn)).check_dsn()


def check_instances(study: Study, spec: DatabaseSpec, local: bool) -> None:
    """At most MAX_INSTANCES a host; a managed server's instances also within this host's
    memory (each is a server process with its cache and its connections)."""
    count = instance_count(spec)
    hosts = max([1, *(len(t.hosts) for t in study.targets)])
    most = MAX_INSTANCES * hosts
    memory = host_memory_bytes() if local and spec.dsn is None else None
    each = spec.memory_limit_bytes or (spec.buffer_bytes or SERVER_BUFFER) + SERVER_OVERHEAD
    if memory is not None and engine_class(spec.engine).is_server:
        most = max(1, min(most, memory // each))
    if count > most:
        why = (
            f"each managed {engine_class(spec.engine).title} instance is a server process "
            f"needing about {format_size(each)} and this host has {format_size(memory)}"
            if memory is not None and most < MAX_INSTANCES * hosts
            else f"dbstor drives at most {MAX_INSTANCES} instances from one host"
        )
        raise UserError(
            f"--instances (instances) {count:,} is too many: {why}; give at most {most:,}, "
            f"e.g. --instances {','.join(str(1 << k) for k in range(most.bit_length()))}"
        )


def check_open_files(spec: DatabaseSpec, threaded: bool = True) -> None:
    """The most users one client process will hold must fit under the host's hard limit
    on open files (each user holds a connection and its files); `threaded` as
    processes_for takes it."""
    series = spec.series
    if series.kind == "streams" or not series.values:
        return
    users = (
        series.users * max(series.values)
        if series.kind == "instances"
        else series.users
        if series.kind == "rate"
        else max(series.values)
    )
    processes = processes_for(
        users, spec.client_processes, external=spec.dsn is not None, threaded=threaded
    )
    per_process = -(-users // processes)
    wanted = per_process * FDS_PER_USER + FDS_SPARE
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    if hard != resource.RLIM_INFINITY and wanted > hard:
        most = max(1, (hard - FDS_SPARE) // FDS_PER_USER) * processes
        raise UserError(
            f"{users:,} users need about {wanted:,} open files in a client process but this "
            f"host allows {hard:,} (ulimit -Hn): use at most {most:,} users, more "
            "--client-processes, or raise the hard limit"
        )

"""Building the dss database: generate with tpchgen-cli into a staging folder on the target,
load it through the engine's bulk path, build keys and indexes, gather statistics, and
remove the staging folder.

The staging folder goes on the temp role's path when the target has one, else on the
first data path (an external server's target has neither: the system's temp folder), so
generating the data is I/O on the storage under test too, as a DBA's staging area would be.
"""

from __future__ import annotations

import importlib
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

from dbstor.dialects import registry
from dbstor.engines.base import Engine
from dbstor.engines.duckdb import cpu_threads
from dbstor.safefs import remove_tree
from dbstor.workloads.base import LoadReport
from dbstor.workloads.dss.generate import Generated, generate, scale_text, staging_directory
from dbstor.workloads.dss.phases import Phases


def loader(dialect: str) -> ModuleType:
    """The dialect's dss loader, load_<dialect>.py beside this module (it builds with the
    workload's own schema and generated files, so it lives in the workload), or its
    nearest kin's."""
    lineage = registry.get(dialect).lineage
    for name in lineage:
        module = f"dbstor.workloads.dss.load_{name}"
        try:
            return importlib.import_module(module)
        except ModuleNotFoundError as e:
            if e.name != module:
                raise
    raise ModuleNotFoundError(f"no dss loader for dialect {dialect!r}", name=f"load_{dialect}")


def default_indexes(dialect: str) -> str:
    return str(loader(dialect).DEFAULT_INDEXES)


def staging_parent(engine: Engine) -> Path:
    paths = engine.settings.paths
    for role in ("temp", "data"):
        if paths.get(role):
            return Path(paths[role][0])
    return Path(tempfile.gettempdir())


def build(
    engine: Engine, scale: float, indexes: str, say: Callable[[str], None]
) -> tuple[LoadReport, dict[str, float]]:
    """Generate, load, key, index and analyze; the report and the seconds per phase."""
    own = loader(engine.dialect)
    workers = cpu_threads()
    parts = workers if own.PARALLEL else 1
    started = time.monotonic()
    stage = staging_directory(staging_parent(engine), scale, own.FORMAT)
    try:
        say(
            f"  dss: generating TPC-H scale factor {scale_text(scale)} with tpchgen-cli "
            f"({own.FORMAT}) in {stage}"
        )
        data = generate(scale, own.FORMAT, stage, parts=parts)
        size = data.bytes
        say(
            f"  dss: generated {size / 1e6:,.0f} MB of {own.FORMAT} in {data.seconds:.1f} s "
            f"({size / 1e6 / max(data.seconds, 1e-9):,.0f} MB/s)"
        )
        if own.PARALLEL:
            phases = own.build(engine, data, scale, indexes, say, workers=workers)
        else:
            phases = own.build(engine, data, scale, indexes, say)
    finally:
        remove_tree(stage)  # made by mkdtemp; never follows a link
    seconds = time.monotonic() - started
    report = LoadReport(
        rows=sum(phases.rows.values()), seconds=seconds, bytes=size, tables=dict(phases.rows)
    )
    timings = {"generate_s": data.seconds, **{f"{k}_s": v for k, v in phases.seconds.items()}}
    timings["total_s"] = seconds
    say(_summary(report, phases, data, indexes))
    return report, timings


def _summary(report: LoadReport, phases: Phases, data: Generated, indexes: str) -> str:
    load = phases.seconds.get("load", 0.0)
    rate = report.rows / load if load > 0 else 0.0
    mbps = (report.bytes or 0) / 1e6 / load if load > 0 else 0.0
    keys = phases.seconds.get("keys")
    key_text = f", keys and indexes in {keys:.1f} s" if keys is not None else ", no keys"
    return (
        f"  dss: {report.rows:,} rows loaded in {load:.1f} s ({rate:,.0f} rows/s, "
        f"{mbps:,.1f} MB/s of {data.fmt}){key_text} (indexes={indexes}), statistics in "
        f"{phases.seconds.get('analyze', 0.0):.1f} s; {report.seconds:.1f} s in all "
        f"({report.rows_per_s:,.0f} rows/s)"
    )

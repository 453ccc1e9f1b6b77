"""Preparing a query run's database on the host that measures it: create and load it,
warm its caches with one unmeasured power run, or make them cold before a point (engine
restart and page-cache drop of its files)."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from dbstor.drivers.streams import StreamsRun, one_line
from dbstor.engines.base import Engine
from dbstor.errors import PointFailed
from dbstor.telemetry.window import WindowCounters


def files_bytes(paths: Sequence[Path]) -> int | None:
    """The bytes of every file under these paths (None when there are none)."""
    total, found = 0, False
    for path in paths:
        walker = os.walk(path) if path.is_dir() else [(str(path.parent), [], [path.name])]
        for root, _, names in walker:
            for name in names:
                with contextlib.suppress(OSError):
                    total += Path(root, name).lstat().st_size
                    found = True
    return total if found else None


def describe_workload(workload: Any) -> dict[str, Any]:
    try:
        return dict(workload.describe())
    except Exception:  # a workload without a transaction mix describes itself partly
        return {"name": workload.name, "scale": workload.scale}


def stream_queries(workload: Any, engine: Engine, streams: int) -> dict[int, list[tuple[Any, str]]]:
    """The queries of each stream: stream 0 for a power run, streams 1..N for N > 1."""
    numbers = [0] if streams == 1 else list(range(1, streams + 1))
    return {n: list(workload.stream(n, engine.dialect)) for n in numbers}


def warm_up(
    engine: Engine, workload: Any, counters: WindowCounters, timeout_s: float | None
) -> dict[str, Any]:
    """One unmeasured power run, so that the first point meets the caches the later ones
    do: how many queries ran, how many did not finish (the first of them), how long."""
    outcome = StreamsRun(
        engine,
        stream_queries(workload, engine, 1),
        workload.run_query,
        counters,
        timeout_s,
        "warm-up",
        lambda record: None,
    ).run()
    if outcome.fatal:
        raise PointFailed(f"warm-up: {outcome.fatal}")
    bad = [r for r in outcome.records if r["status"] != "ok"]
    return {
        "queries": len(outcome.records),
        "not_ok": len(bad),
        "seconds": round(outcome.wall_s, 3),
        "first_not_ok": (
            f"{bad[0]['name']} {bad[0]['status']}: {bad[0]['error']}" if bad else None
        ),
    }


def make_cold(engine: Engine, before: str = "the point") -> tuple[str, list[str]]:
    """Restart the engine and drop its files from the page cache: the point's note (what
    was done `before` what) and the run's notes. Raises PointFailed when the engine does
    not come back."""
    notes = []
    restarted = True
    try:
        engine.restart()
    except NotImplementedError as exc:
        restarted = False
        notes.append(f"cold: {exc}; the engine's own cache was not emptied before points")
    except Exception as exc:  # the server did not come back: no later point can run
        raise PointFailed(
            f"cold: {engine.title} did not come back after a restart: {one_line(exc)}"
        ) from None
    paths = engine.cache_paths()
    if not paths:
        notes.append(
            "cold: the database's files are not on this host (external server); its page "
            "cache was not dropped"
        )
        return "cold: no files on this host to drop from the page cache", notes
    dropped = engine.drop_cache()
    if dropped.note:
        notes.append(f"cold: {dropped.note}")
    what = f"{engine.title} restarted" if restarted else f"{engine.title} not restarted"
    return (
        f"cold: {what}, {dropped.files} files ({dropped.bytes / 1e6:,.1f} MB) dropped from "
        f"the page cache before {before}"
    ), notes

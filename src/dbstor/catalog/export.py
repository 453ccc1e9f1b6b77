"""Results as tables for SQL: `runs` (one row per run, with tags and the host's facts),
`points` (one row per load point, nested figures flattened to column_names) and `samples`
(samples.csv of every run), written to SQLite (the standard library), DuckDB or Parquet
(through duckdb, installed with `pip install 'dbstor[duckdb]'`)."""

from __future__ import annotations

import contextlib
import io
import json
import math
import os
import sqlite3
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from dbstor.catalog.entries import folders, run_entry
from dbstor.catalog.export_schema import column_names, declared_type
from dbstor.dialects import registry
from dbstor.errors import UserError
from dbstor.results.model import Run
from dbstor.results.store import read_run_folder, read_samples
from dbstor.safefs import place_new, refuse_link, staged_beside, user_dir, write_new
from dbstor.userfiles import HISTOGRAM_BYTES, read_text

SKIPPED_POINT_FIELDS = ("queries", "hosts", "error_messages", "layers")


def flatten(data: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    """{"read_lat_ms": {"p99": 1}} -> {"read_lat_ms_p99": 1}; lists and dicts deeper than
    a table holds become JSON text."""
    out: dict[str, Any] = {}
    for key, value in data.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict) and len(name) < 60:
            out |= flatten(value, f"{name}_")
        elif isinstance(value, dict | list):
            out[name] = json.dumps(value, allow_nan=False)
        elif isinstance(value, float) and not math.isfinite(value):
            out[name] = None
        else:
            out[name] = value
    return out


ENGINE_SKIPPED = ("name", "title", "dsn", "pid", "files")


def system_facts(run: Run) -> dict[str, Any]:
    """The target's device facts (scheduler, nr_requests, ...: one value per device, as
    "vda=mq-deadline; sdb=none" when there are several), its file system and mount options,
    and the engine's version and I/O settings, as columns of the runs table."""
    system = run.target.get("system") if isinstance(run.target.get("system"), dict) else {}
    devices = system.get("devices") if isinstance(system.get("devices"), dict) else {}
    fields: dict[str, dict[str, Any]] = {}
    for name, facts in devices.items():
        for key, value in (facts if isinstance(facts, dict) else {}).items():
            if not isinstance(value, dict | list):
                fields.setdefault(key, {})[name] = value
    out: dict[str, Any] = {
        key: next(iter(per.values())) if len(per) == 1 else
        "; ".join(f"{name}={value}" for name, value in per.items())
        for key, per in fields.items()
    }  # fmt: skip
    mount = run.target.get("mount") if isinstance(run.target.get("mount"), dict) else {}
    engine = {
        k: v
        for k, v in run.engine.items()
        if k not in ENGINE_SKIPPED and not isinstance(v, dict | list)
    }
    return {"target_device": out, "target_mount": mount, "engine_facts": engine}


def tables(root: Path) -> Iterator[tuple[str, dict[str, Any]]]:
    """("runs" | "points" | "samples", row) for every readable run under root."""
    for folder, kind in folders(root):
        if kind != "run":
            continue
        row = run_entry(folder, root)
        if row["kind"] != "run":
            continue
        run = read_run_folder(folder)
        yield (
            "runs",
            flatten(
                {k: v for k, v in row.items() if k not in ("stamp", "kind")}
                | {"host_facts": run.host, "target_facts": run.target.get("facts") or {}}
                | system_facts(run)
            ),
        )
        for index, point in enumerate(run.to_dict()["points"], start=1):
            kept = {k: v for k, v in point.items() if k not in SKIPPED_POINT_FIELDS}
            yield "points", {"run_id": run.run_id, "point": index} | flatten(kept)
        for sample in read_samples(folder):
            yield "samples", flatten(sample)


def _columns(rows: Iterable[dict[str, Any]]) -> list[str]:
    seen: dict[str, None] = {}
    for row in rows:
        seen.update(dict.fromkeys(row))
    return list(seen)


def collect(root: Path) -> dict[str, list[dict[str, Any]]]:
    found: dict[str, list[dict[str, Any]]] = {"runs": [], "points": [], "samples": []}
    for table, row in tables(root):
        found[table].append(row)
    if not found["runs"]:
        raise UserError(f"{root}: no run folder (results.json) under it: nothing to export")
    return found


def to_sqlite(data: dict[str, list[dict[str, Any]]], path: Path, dialect: str = "sqlite") -> None:
    """Write the tables into a new database file (DuckDB speaks the same DDL here), staged
    beside it and given its name only when whole: a link or a file at the name is refused,
    a full or read-only file system is one line, and nothing half-written is left."""
    fix = f"give a new file name for --{dialect}"
    refuse_link(path, f"--{dialect}")
    if path.exists():
        raise UserError(f"{path} exists: {fix} (dbstor does not replace it)")
    with staged_beside(path, fix) as scratch:
        staged = scratch / "export.db"
        _write_tables(data, staged, dialect, path)
        place_new(staged, path, fix)


def _database_errors() -> tuple[type[BaseException], ...]:
    errors: list[type[BaseException]] = [sqlite3.Error, OSError]
    with contextlib.suppress(ImportError):
        import duckdb

        errors.append(duckdb.Error)
    return tuple(errors)


def _write_tables(
    data: dict[str, list[dict[str, Any]]], file: Path, dialect: str, shown: Path
) -> None:
    try:
        db = registry.get(dialect).connect_file(file)
        try:
            for table, rows in data.items():
                columns = _columns(rows)
                if not columns:
                    continue
                types = [declared_type(table, c, [r.get(c) for r in rows]) for c in columns]
                names = column_names(columns)
                ddl = ", ".join(f"{c} {t}" for c, t in zip(names, types, strict=True))
                db.execute(f'CREATE TABLE "{table}" ({ddl})')
                marks = ", ".join("?" for _ in columns)
                db.executemany(
                    f'INSERT INTO "{table}" VALUES ({marks})',
                    [[r.get(c) for c in columns] for r in rows],
                )
            db.commit()
        finally:
            db.close()
    except _database_errors() as exc:
        raise write_failure(exc, file, shown) from None


def write_failure(exc: BaseException, written: Path, shown: Path) -> UserError:
    """One line for a database library's failure to write (its words name dbstor's
    temporary file: the user's name is shown instead)."""
    text = (str(exc).splitlines() or [type(exc).__name__])[0]
    if any(w in text.lower() for w in ("no space left", "disk is full", "quota")):
        return UserError(
            f"the file system is full (writing {shown}): free space and run again "
            "(nothing was left there)"
        )
    text = text.replace(str(written), str(shown))
    return UserError(f"cannot write {shown}: {text}; choose another place (nothing was left there)")


@contextlib.contextmanager
def _made_for(folder: Path, flag: str) -> Iterator[None]:
    """The folder output (user_dir), removed again if this export made it and failed."""
    made = not os.path.lexists(folder)
    user_dir(folder, flag)
    try:
        yield
    except BaseException:
        if made:
            with contextlib.suppress(OSError):
                folder.rmdir()  # only when still empty
        raise


def to_parquet(data: dict[str, list[dict[str, Any]]], folder: Path) -> list[Path]:
    """One Parquet file per table in folder (written through a scratch DuckDB database in a
    private folder inside it, each file given its name only when whole)."""
    with _made_for(folder, "--parquet"):
        return _parquet_files(data, folder)


def _parquet_files(data: dict[str, list[dict[str, Any]]], folder: Path) -> list[Path]:
    fix = "give an empty folder for --parquet"
    targets = [folder / f"{table}.parquet" for table in data]
    for target in targets:  # all checked before any is written
        refuse_link(target, "--parquet")
        if target.exists():
            raise UserError(f"{target} exists: {fix}")
    with staged_beside(folder / "parquet", fix) as scratch:
        staging = scratch / "staging.duckdb"
        _write_tables(data, staging, "duckdb", folder)
        import duckdb

        try:
            db = duckdb.connect(str(staging))
            try:
                for table in data:
                    quoted = (scratch / f"{table}.parquet").as_posix().replace("'", "''")
                    db.execute(f"COPY \"{table}\" TO '{quoted}' (FORMAT PARQUET)")
            finally:
                db.close()
        except _database_errors() as exc:
            raise write_failure(exc, scratch, folder) from None
        for table, target in zip(data, targets, strict=True):
            place_new(scratch / f"{table}.parquet", target, fix)
    return targets


def point_spans(run_folder: Path, count: int) -> list[tuple[float, float, float]]:
    """(start, end, base) of each point's interval in seconds: from the point's start and
    wall time, relative to the first point's start (base, epoch seconds); where the run
    does not say (an older run), one second per point from 0 with base 0."""
    try:
        points = read_run_folder(run_folder).points
        starts = [datetime.fromisoformat(str(p.started_at)).timestamp() for p in points]
        walls = [float(p.wall_s or p.duration_s) for p in points]
    except (UserError, ValueError, TypeError):
        return [(n, n + 1, 0.0) for n in range(count)]
    if len(starts) != count:
        return [(n, n + 1, 0.0) for n in range(count)]
    base = starts[0]
    return [(s - base, s - base + w, base) for s, w in zip(starts, walls, strict=True)]


def to_hdr(root: Path, folder: Path) -> list[Path]:
    """Each database point's transaction latency histogram (kept exact in the run folder's
    histograms/) as an HdrHistogram log, one file per run (an interval per point, values in
    microseconds), for HistogramLogAnalyzer and the tools that read the format. Every log
    is made (a histogram file that cannot be read is refused, naming it) and every name
    checked before any is written."""
    try:
        import hdrh.histogram  # noqa: F401
    except ImportError:
        raise UserError("--hdr needs the hdrhistogram package: pip install 'dbstor[hdr]'") from None
    with _made_for(folder, "--hdr"):
        return _hdr_files(root, folder)


def _hdr_files(root: Path, folder: Path) -> list[Path]:
    logs: list[tuple[Path, str]] = []
    for run_folder, kind in folders(root):
        kept = sorted((run_folder / "histograms").glob("point-*.json")) if kind == "run" else []
        if not kept:
            continue
        target = folder / f"{run_folder.name}.hlog"
        refuse_link(target, "--hdr")
        if target.exists():
            raise UserError(f"{target} exists: give an empty folder for --hdr")
        logs.append((target, _hdr_log(run_folder, kept)))
    if not logs:
        raise UserError(f"{root}: no run under it kept latency histograms (database runs do)")
    for target, text in logs:
        write_new(target, text.encode("utf-8"), "give an empty folder for --hdr")
    return [target for target, _ in logs]


def _hdr_log(run_folder: Path, kept: list[Path]) -> str:
    from hdrh.histogram import HdrHistogram
    from hdrh.log import HistogramLogWriter

    spans = point_spans(run_folder, len(kept))
    handle = io.StringIO()
    writer = HistogramLogWriter(handle)
    writer.output_comment(f"dbstor {run_folder.name}: transaction latency per point (us)")
    if spans[0][2]:  # hdrh's output_start_time fails (datetime.iso_format): by hand
        started = datetime.fromtimestamp(spans[0][2], UTC).isoformat(" ")
        handle.write(f"#[StartTime: {spans[0][2]:.3f} (seconds since epoch), {started}]\n")
        writer.output_base_time(spans[0][2] * 1000)
    writer.output_legend()
    for path, (start, end, _) in zip(kept, spans, strict=True):
        histogram = HdrHistogram(1, 3_600_000_000, 3)
        for value_us, count in _histogram_bins(path):
            histogram.record_value(value_us, count)
        writer.output_interval_histogram(histogram, start, end, max_value_unit_ratio=1000.0)
    return handle.getvalue()


def _histogram_bins(path: Path) -> list[tuple[int, int]]:
    """(value in microseconds, count) of a kept histogram; one line naming the file when it
    is not dbstor's shape ({"bins": {"<ns>": <count>}})."""
    try:
        bins = json.loads(read_text(path, "a latency histogram", HISTOGRAM_BYTES)).get("bins", {})
        out = []
        for value_ns, count in bins.items():
            value_us, n = max(1, round(int(value_ns) / 1000)), int(count)
            if n < 0 or value_us > 3_600_000_000:
                raise ValueError(f"{value_ns}: {count} is out of range")
            out.append((value_us, n))
        return out
    except UserError:
        raise
    except (OSError, ValueError, TypeError, AttributeError, RecursionError) as exc:
        raise UserError(
            f"{path}: not a latency histogram dbstor kept ({type(exc).__name__}: "
            f"{str(exc)[:80]}); remove it or export without --hdr"
        ) from None

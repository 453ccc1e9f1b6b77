"""The run folder on disk: results.json (atomic, rewritten after every point),
samples.csv (appended as points finish) and report.html.

A crash or Ctrl-C between points loses nothing that finished: every write goes to a
temporary file in the same folder and is renamed over the old one.
"""

from __future__ import annotations

import csv
import errno
import json
import os
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from dbstor.errors import UserError
from dbstor.results.model import SAMPLE_KEYS, SCHEMA_VERSION, Run, run_from_dict

RESULTS_FILE = "results.json"
SAMPLES_FILE = "samples.csv"
REPORT_FILE = "report.html"

SAMPLE_COLUMNS = (
    "run_id",
    "point",
    "repeat",
    "load_kind",
    "load_value",
    "phase",
    *SAMPLE_KEYS,  # what telemetry measured each second
    "io_read_iops",  # fio's own per-second IOPS
    "io_write_iops",
    "tps",  # a database run's commits per second
)


@contextmanager
def _disk_errors(path: Path) -> Iterator[None]:
    """A full or read-only disk while writing results is the user's to fix: one clear line."""
    try:
        yield
    except OSError as exc:
        if exc.errno == errno.ENOSPC:
            raise UserError(
                f"the disk holding {path.parent} is full: free space and run again (results written so far are kept)"
            ) from None
        if exc.errno in (errno.EROFS, errno.EACCES, errno.EPERM):
            raise UserError(f"cannot write {path}: {exc.strerror}; choose another --out") from None
        raise


def write_text_atomic(path: Path, text: str) -> None:
    """Write text so that readers see the old file or the new one, never half of one."""
    tmp = path.with_name(f".{path.name}.tmp")
    with _disk_errors(path):
        try:
            with open(tmp, "w", encoding="utf-8") as handle:
                handle.write(text)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(tmp, path)
        finally:
            tmp.unlink(missing_ok=True)


def save_run(folder: Path, run: Run) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    text = json.dumps(run.to_dict(), indent=2, allow_nan=False, default=_json_default)
    write_text_atomic(folder / RESULTS_FILE, text + "\n")


def _json_default(value: Any) -> Any:
    if isinstance(value, Path):
        return str(value)
    raise TypeError(f"cannot store {type(value).__name__} in results.json")


def append_samples(folder: Path, rows: Iterable[dict[str, Any]]) -> None:
    """Append telemetry rows; the header is written when the file is new."""
    path = folder / SAMPLES_FILE
    new = not path.exists()
    rows = list(rows)
    if new:  # rows measured on several hosts (a cluster) add a host column
        columns = [*SAMPLE_COLUMNS, "host"] if any("host" in r for r in rows) else SAMPLE_COLUMNS
    else:
        with open(path, newline="", encoding="utf-8") as handle:
            columns = next(csv.reader(handle), None) or SAMPLE_COLUMNS
    with _disk_errors(path), open(path, "a", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=columns, extrasaction="ignore")
        if new:
            writer.writeheader()
        for row in rows:
            writer.writerow({k: _csv_value(row.get(k)) for k in columns})
        handle.flush()
        os.fsync(handle.fileno())


def _csv_value(value: Any) -> Any:
    if isinstance(value, float):
        return f"{value:.6g}"
    return "" if value is None else value


def read_samples(folder: Path) -> list[dict[str, Any]]:
    path = folder / SAMPLES_FILE
    if not path.exists():
        return []
    rows = []
    with open(path, newline="", encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            rows.append({k: _parse_cell(v) for k, v in row.items()})
    return rows


def _parse_cell(text: str | None) -> Any:
    if text is None or text == "":
        return None
    try:
        number = float(text)
    except ValueError:
        return text
    return int(number) if number.is_integer() and "." not in text and "e" not in text else number


def migrate(data: dict[str, Any]) -> dict[str, Any]:
    """Bring an older results.json up to the current schema (none older than 1 exists yet)."""
    schema = data.get("schema")
    if schema is None:
        raise ValueError("no 'schema' field: not a dbstor results.json")
    if schema > SCHEMA_VERSION:
        raise ValueError(
            f"results schema {schema} is newer than this dbstor understands ({SCHEMA_VERSION}); "
            "upgrade dbstor"
        )
    return data


def read_run_folder(folder: Path, what: str = "") -> Run:
    """Load a run folder for a command; every failure is one UserError line naming it."""
    name = f"{what} {folder}".strip()
    if not (folder / RESULTS_FILE).is_file():
        raise UserError(f"{name}: not a dbstor run folder (no {RESULTS_FILE})")
    try:
        return load_run(folder)
    except (OSError, ValueError, TypeError, KeyError) as exc:
        raise UserError(f"{name}: cannot read {RESULTS_FILE} ({exc})") from None


def load_run(folder: Path) -> Run:
    path = folder / RESULTS_FILE
    with open(path, encoding="utf-8") as handle:
        data = json.load(handle)
    return run_from_dict(migrate(data))

"""The run folder on disk: results.json (atomic, rewritten after every point),
samples.csv (appended as points finish) and report.html.

A crash or Ctrl-C between points loses nothing that finished: every write goes to a
temporary file in the same folder and is renamed over the old one. No write follows a
symbolic link. While a run is going, results.json names the dbstor process writing it
(pid, host, boot id, start time); a folder still "running" whose writer is gone is read as
"interrupted".
"""

from __future__ import annotations

import contextlib
import csv
import errno
import json
import math
import os
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from dbstor import lifeline
from dbstor.errors import UserError
from dbstor.results.finite import finite_tree
from dbstor.results.model import SAMPLE_KEYS, SCHEMA_VERSION, FieldError, Run, run_from_dict
from dbstor.safefs import open_for_append, write_file
from dbstor.userfiles import RESULTS_BYTES, read_bytes

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
    "txn_lat_mean_ms",  # and the mean latency of the transactions that finished that second
    "txn_lat_p99_ms",  # and their p99 (points with events only: drivers/second_bins.py)
)


_NUMERIC_SAMPLES = frozenset(SAMPLE_COLUMNS) - {"run_id", "load_kind", "phase"}


def mount_point(path: Path) -> Path:
    """The mount point of the file system holding path (its nearest existing ancestor)."""
    path = Path(os.path.abspath(path))
    while not path.exists() and path != path.parent:
        path = path.parent
    device = path.stat().st_dev
    while path != path.parent and path.parent.stat().st_dev == device:
        path = path.parent
    return path


@contextmanager
def _disk_errors(path: Path, fix: str = "choose another --out") -> Iterator[None]:
    """A full or read-only disk while writing results is the user's to fix: one clear line."""
    try:
        yield
    except OSError as exc:
        if exc.errno in (errno.ENOSPC, errno.EDQUOT):
            where = mount_point(path.parent)
            raise UserError(
                f"the file system at {where} is full (writing {path}): the results written "
                f"before it are kept in {path.parent}; free space there and run again"
            ) from None
        if exc.errno == errno.ELOOP:
            raise UserError(
                f"{path} is a symbolic link: dbstor does not write through links; remove it "
                f"or {fix}"
            ) from None
        if exc.errno == errno.ENOENT and path.parent.is_dir():  # /proc, /sys: no new file
            raise UserError(
                f"cannot write {path}: {path.parent} takes no new files; {fix}"
            ) from None
        if exc.errno in (errno.EROFS, errno.EACCES, errno.EPERM, errno.ENOENT, errno.ENOTDIR):
            raise UserError(f"cannot write {path}: {exc.strerror}; {fix}") from None
        raise


def write_text_atomic(
    path: Path,
    text: str,
    before_rename: Callable[[int], object] | None = None,
    replaceable: Callable[[Path], bool] | None = None,
    fix: str = "choose another --out",
) -> None:
    """Write text so that readers see the old file or the new one, never half of one,
    never through a link nor over a file dbstor did not write (safefs.write_file)."""
    with _disk_errors(path, fix):
        write_file(path, text, replaceable, before_rename, fix)


def save_run(folder: Path, run: Run) -> None:
    """Write results.json; a running run records which process writes it."""
    if run.status == "running" and run.owner is None:
        run.owner = lifeline.owner_facts()
    with _disk_errors(folder / RESULTS_FILE):
        folder.mkdir(parents=True, exist_ok=True)
    data, nulled = finite_tree(run.to_dict())  # a NaN from outside never loses the run
    if nulled:
        note = f"not finite, stored as null: {', '.join(nulled[:8])}"
        data["notes"] = [*data.get("notes", []), note]
    text = json.dumps(data, indent=2, allow_nan=False, default=_json_default)
    write_text_atomic(folder / RESULTS_FILE, text + "\n")


def _json_default(value: Any) -> Any:
    if isinstance(value, Path):
        return str(value)
    raise TypeError(f"cannot store {type(value).__name__} in results.json")


def append_samples(folder: Path, rows: Iterable[dict[str, Any]]) -> None:
    """Append telemetry rows; the header is written when the file is new. On a failure the
    file is cut back to where it was, so no half row is ever left."""
    path = folder / SAMPLES_FILE
    rows = list(rows)
    with _disk_errors(path):
        fd = open_for_append(path)
        size = os.fstat(fd).st_size
        try:
            if size == 0:  # rows measured on several hosts (a cluster) add a host column
                host = any("host" in r for r in rows)
                columns = [*SAMPLE_COLUMNS, "host"] if host else list(SAMPLE_COLUMNS)
            else:
                columns = _header(fd) or list(SAMPLE_COLUMNS)
            with open(fd, "a", newline="", encoding="utf-8", closefd=False) as handle:
                writer = csv.DictWriter(handle, fieldnames=columns, extrasaction="ignore")
                if size == 0:
                    writer.writeheader()
                for row in rows:
                    writer.writerow({k: _csv_value(row.get(k)) for k in columns})
                handle.flush()
                os.fsync(fd)
        except BaseException:
            with contextlib.suppress(OSError):
                os.ftruncate(fd, size)
            raise
        finally:
            os.close(fd)


def _header(fd: int) -> list[str] | None:
    """The columns of an existing samples.csv (its first line), read through the same fd."""
    first = os.pread(fd, 65536, 0).decode("utf-8", "replace").splitlines()
    return next(csv.reader(first[:1]), None) if first else None


def _csv_value(value: Any) -> Any:
    if isinstance(value, float):
        return f"{value:.6g}"
    return "" if value is None else value


def read_samples(folder: Path) -> list[dict[str, Any]]:
    path = folder / SAMPLES_FILE
    if not path.exists():
        return []
    rows = []
    try:
        with open(path, newline="", encoding="utf-8") as handle:
            for line, row in enumerate(csv.DictReader(handle), 2):
                # cells beyond the header (key None) are not dbstor's: dropped
                parsed = {k: _parse_cell(v) for k, v in row.items() if k is not None}
                for column in _NUMERIC_SAMPLES.intersection(parsed):
                    if isinstance(parsed[column], float) and not math.isfinite(parsed[column]):
                        parsed[column] = None  # nan, inf: not a measurement
                    if isinstance(parsed[column], str):
                        raise UserError(
                            f"{path} (line {line}, {column}: expected a number or nothing, "
                            f"got {parsed[column][:40]!r}); move the file away to go on "
                            "without the samples"
                        )
                rows.append(parsed)
    except (UnicodeDecodeError, csv.Error) as exc:
        raise UserError(
            f"{path}: not a samples file dbstor wrote ({exc}); move it away to go on "
            "without the samples"
        ) from None
    return rows


def _parse_cell(text: str | None) -> Any:
    if not isinstance(text, str) or text == "":
        return None
    try:
        number = float(text)
    except ValueError:
        return text
    return int(number) if number.is_integer() and "." not in text and "e" not in text else number


def migrate(data: Any) -> dict[str, Any]:
    """Bring an older results.json up to the current schema (none older than 1 exists yet)."""
    if not isinstance(data, dict):
        raise FieldError("expected a JSON object at the top: not a dbstor results.json")
    schema = data.get("schema")
    if schema is None:
        raise ValueError("no 'schema' field: not a dbstor results.json")
    if not isinstance(schema, int) or isinstance(schema, bool) or schema < 1:
        raise FieldError(f"schema: expected a whole number from 1, got {schema!r}")
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
    except (OSError, ValueError, TypeError, KeyError, RecursionError) as exc:
        detail = str(exc) if str(exc).isprintable() else repr(str(exc))[1:-1]  # one line
        raise UserError(
            f"{name}: cannot read {folder / RESULTS_FILE} ({detail}); it is not a results.json "
            "this dbstor can read: run again or restore it"
        ) from None


def load_run(folder: Path) -> Run:
    """A run folder's results.json; a run still marked running whose dbstor process is gone
    (killed, crashed, the host rebooted) comes back as interrupted."""
    path = folder / RESULTS_FILE
    data = json.loads(read_bytes(path, "a results.json", RESULTS_BYTES))
    run = run_from_dict(migrate(data))
    if run.status == "running" and lifeline.owner_gone(run.owner):
        run.status = "interrupted"
        owner = run.owner or {}
        run.notes.append(
            f"dbstor (pid {owner.get('pid')} on {owner.get('host')}) ended before this run "
            "finished: it was killed or crashed; the finished points are kept"
        )
    return run


def read_study_index(folder: Path, index_file: str = "study.json") -> list[str]:
    """The run folder names a study folder's index lists; every failure is one UserError
    naming the file, the field and what was expected."""
    path = folder / index_file
    try:
        data = json.loads(read_bytes(path, "a study index", RESULTS_BYTES))
    except (OSError, ValueError, RecursionError) as exc:
        raise UserError(
            f"cannot read {path} ({exc}): not a study folder this dbstor can read; "
            "give a run folder, or run the study again"
        ) from None
    runs = data.get("runs") if isinstance(data, dict) else None
    if not isinstance(data, dict) or not isinstance(runs, list):
        raise UserError(f"{path}: field 'runs' must be a list of run folder names")
    for i, name in enumerate(runs):
        if not isinstance(name, str) or not name or name in (".", "..") or "/" in name:
            raise UserError(
                f"{path}: runs[{i}] must be the name of a run folder in {folder}, got {name!r}"[
                    :300
                ]
            )
    return list(runs)


def recorded_paths(results: Path, roles: tuple[str, ...] = ()) -> list[tuple[str, str]]:
    """(role, path) for the paths a run recorded in its results.json's target.paths (only
    `roles` when given), reading nothing else of the file; a file that is not JSON, or a
    field of the wrong type, is one UserError naming the file and the field."""
    try:
        data = json.loads(read_bytes(results, "a results.json", RESULTS_BYTES))
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise UserError(f"{results}: cannot read it as a dbstor results file ({exc})") from None
    target = data.get("target") if isinstance(data, dict) else None
    table = target.get("paths") if isinstance(target, dict) else None
    if not isinstance(table, dict | None):
        raise UserError(f"{results} (target.paths: expected a table of role = paths)")
    pairs: list[tuple[str, str]] = []
    for role, value in (table or {}).items():
        if (roles and role not in roles) or value is None:
            continue
        values = [value] if isinstance(value, str) else value
        if not isinstance(values, list) or not all(isinstance(v, str) and v for v in values):
            raise UserError(
                f"{results} (target.paths.{role}: expected a path or a list of paths, "
                f"got {json.dumps(value)[:40]})"
            )
        pairs += [(str(role), v) for v in values]
    return pairs

"""A run's folder kept up to date while it runs: results.json rewritten after every point
(with the run's peak and knee), samples.csv rows as points finish, fio's job files, and a
callback after every save (the study re-renders the report there)."""

from __future__ import annotations

import contextlib
import json
import os
import threading
from collections.abc import Callable, Iterable
from datetime import datetime
from pathlib import Path
from typing import Any

from dbstor.results.model import Run
from dbstor.results.store import append_samples, save_run, write_text_atomic
from dbstor.safefs import link_refusal, new_dir, remove_tree

JOBS_FOLDER = "jobs"
EVENTS_FOLDER = "events"  # command events' output
HISTOGRAMS_FOLDER = "histograms"


def new_run_id(label: str, workload: str, parent: Path) -> str:
    """<stamp>-<target label>-<workload>, with -2, -3... when the folder exists."""
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    base = f"{stamp}-{label}-{workload}"
    run_id, n = base, 2
    while os.path.lexists(parent / run_id):
        if os.path.islink(parent / run_id):
            raise link_refusal(parent / run_id)  # never followed, never passed over silently
        run_id, n = f"{base}-{n}", n + 1
    return run_id


class RunFolder:
    """Where one run's results live. `conclude(run)` fills the run-wide figures (peak,
    knee) before each save; `on_save(run)` is called after each save that notifies.
    Saves may come from several threads (a query run saves after every query)."""

    def __init__(
        self,
        path: Path,
        run: Run,
        conclude: Callable[[Run], None],
        on_save: Callable[[Run], None] | None = None,
    ):
        self.path, self.run, self.conclude = path, run, conclude
        self.on_save = on_save or (lambda run: None)
        self.lock = threading.RLock()  # held while results.json is written

    def save(self, notify: bool = True) -> None:
        with self.lock:
            self.conclude(self.run)
            save_run(self.path, self.run)
        if notify:
            self.on_save(self.run)

    def note(self, text: str) -> None:
        """Add a run note once."""
        if text not in self.run.notes:
            self.run.notes.append(text)

    def add_samples(self, rows: Iterable[dict[str, Any]]) -> None:
        append_samples(self.path, rows)

    def keep_job(self, name: str, job_text: str, output_text: str | None) -> None:
        """Keep a fio job file (and fio's json+ output) so the point can be rerun with fio."""
        jobs = self.path / JOBS_FOLDER
        if not jobs.is_dir() or jobs.is_symlink():
            new_dir(jobs)  # the run's own: a link or a file at its name is refused
        write_text_atomic(jobs / f"{name}.fio", job_text)
        if output_text is not None:
            write_text_atomic(jobs / f"{name}.json", output_text)

    def keep_event_output(self, name: str, text: str) -> str:
        """Keep a command event's output; returns its path inside the run folder."""
        folder = self.path / EVENTS_FOLDER
        if not folder.is_dir() or folder.is_symlink():
            new_dir(folder)
        write_text_atomic(folder / f"{name}.txt", text)
        return f"{EVENTS_FOLDER}/{name}.txt"

    def keep_histogram(self, point: int, histogram: dict[str, Any]) -> None:
        """Keep a point's transaction latency histogram (its bins, exact), for dbstor export
        --hdr and anyone who wants more than the percentiles in results.json."""
        folder = self.path / HISTOGRAMS_FOLDER
        if not folder.is_dir() or folder.is_symlink():
            new_dir(folder)
        write_text_atomic(folder / f"point-{point:02d}.json", json.dumps(histogram) + "\n")


def _measured(folder: Path) -> bool:
    """Whether a results.json under the folder holds a finished point."""
    for results in folder.rglob("results.json"):
        with contextlib.suppress(OSError, ValueError):
            points = json.loads(results.read_text(encoding="utf-8")).get("points") or []
            if any(isinstance(p, dict) and p.get("status") == "ok" for p in points):
                return True
    return False


def remove_unmeasured(folders: list[Path], out: Path | None = None) -> None:
    """After a refusal: remove the study and run folders this study made that hold no
    finished point (newest first), then `out` if this study made it and it is empty.
    A link is never followed; a folder with a finished point is kept."""
    for folder in reversed(folders):
        if folder.is_dir() and not folder.is_symlink() and not _measured(folder):
            remove_tree(folder)
    if out is not None:
        with contextlib.suppress(OSError):
            out.rmdir()  # only when empty

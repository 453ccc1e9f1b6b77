"""The io worker: prepares an io run's target and measures its points on the host it runs
on, taking and giving plain dicts (see runs/worker.py). It remembers what it laid out, so
that cleanup() removes it, and whether fio had to fall back from io_uring."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from dbstor.errors import PointFailed, UserError
from dbstor.runs.io.point import FALLBACK_ENGINE, IoPoint, measure_io_point, profile_from_dict
from dbstor.runs.io.prepare import Prepared, lay_out, plan_target, precondition
from dbstor.runs.io.target_state import check_usable, left_behind
from dbstor.study.data import DataPattern
from dbstor.telemetry.sampler import Sampler
from dbstor.testfiles import Safety


class IoWorker:
    kind = "io"
    hosts: tuple[str, ...] = ()  # this host

    def __init__(self, safety: Safety, say: Callable[[str], None] | None = None):
        self.safety = safety
        self.say = say or (lambda message: None)
        self.prepared: Prepared | None = None
        self.engine_override: str | None = None  # libaio once io_uring was refused
        self.sampler: Sampler | None = None
        self.figures: dict[str, Any] | None = None  # fio's running figures, live

    def plan(self, setup: dict[str, Any]) -> dict[str, Any]:
        """Decide and check the test files (nothing written yet): files, devices, notes.
        setup: paths, profile (dict), file_size (total bytes), data (study.data.DataPattern
        fields), precondition, duration_s, where."""
        self.prepared = plan_target(setup, self.safety)
        return self.prepared.to_dict()

    def path_layout(self) -> list[dict[str, Any]]:
        """None: only a database run records what sits on each path."""
        return []

    def prepare(self, setup: dict[str, Any]) -> dict[str, Any]:
        """Lay the files out (and precondition them when setup['precondition']); plan()
        first when it was not called. Returns the plan's facts with the new notes and the
        fio job files that ran."""
        if self.prepared is None:
            self.plan(setup)
        assert self.prepared is not None
        prepared = self.prepared
        prepared.notes.clear()
        prepared.jobs.clear()
        prepared.timings.clear()
        where = setup.get("where", "")
        lay_out(prepared, where, DataPattern(**setup.get("data", {})), self.say)
        if setup.get("precondition"):
            profile = profile_from_dict(setup["profile"])
            started = time.monotonic()
            note = precondition(prepared, profile, float(setup["duration_s"]), where, self.say)
            prepared.timings["precondition_s"] = round(time.monotonic() - started, 3)
            if note and self.engine_override is None:
                self.engine_override = FALLBACK_ENGINE
                prepared.notes.append(note)
        return prepared.to_dict()

    def measure(self, point: dict[str, Any]) -> dict[str, Any]:
        """One load point -> its IoOutcome as a dict."""
        described = IoPoint.from_dict(point)
        if self.engine_override:
            described = replace(described, ioengine=self.engine_override)
        self.sampler = Sampler(described.devices)
        self.figures = None
        files, writes = self._files(), described.profile.read_pct < 100
        check_usable(files, writes)  # before fio, which would make a removed folder anew
        try:
            outcome = measure_io_point(described, self.sampler, on_running=self._keep_figures)
        except (PointFailed, UserError):
            check_usable(files, writes)  # fio's words about it, said plainly
            raise
        if outcome.notes and outcome.ioengine == FALLBACK_ENGINE:
            self.engine_override = FALLBACK_ENGINE
        return outcome.to_dict()

    def _keep_figures(self, figures: dict[str, Any]) -> None:
        self.figures = figures

    def running(self) -> dict[str, Any] | None:
        """fio's latest running figures in the point being measured (drivers.fio_status),
        None in its warm-up or when the point is not live."""
        return self.figures

    def latest(self) -> dict[str, Any] | None:
        """The newest telemetry sample of the point being measured."""
        sample = self.sampler.latest() if self.sampler else None
        return dict(sample) if sample else None

    def host_views(self, load: Any, duration_s: float, warmup_s: float) -> None:
        """None: the point was measured on this host only."""
        return None

    def own_files(self) -> list[tuple[str, str]]:
        """The test files this run laid out (none before plan)."""
        return [("data", str(f)) for f in self.prepared.files.files] if self.prepared else []

    def _files(self) -> list[Path]:
        prepared = self.prepared
        if prepared is None or prepared.files.is_device:
            return []
        return list(prepared.files.files)

    def cleanup(self) -> dict[str, Any]:
        """Remove the test files dbstor created, unless kept; notes name any left."""
        if self.prepared and not self.safety.keep:
            line = left_behind(self.prepared.files.remove())
            return {"notes": [line] if line else []}
        return {"notes": []}

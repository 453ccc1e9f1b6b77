"""What a database run is asked to do (its plan), its results header, and the state every
database run (transactions or queries) starts from."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from dbstor import __version__
from dbstor.analysis.curve import find_knee, find_peak
from dbstor.analysis.layers import device_points
from dbstor.engines.registry import engine_class
from dbstor.host import host_facts
from dbstor.results.model import Run
from dbstor.runs.folder import RunFolder
from dbstor.runs.phases import Phases, process_age_s
from dbstor.runs.progress import Progress
from dbstor.runs.telemetry import RunTelemetry
from dbstor.study.model import DatabaseSpec, Slo, Target
from dbstor.telemetry.disk import devices_for_path, mount_facts
from dbstor.telemetry.roles import role_devices, target_roles
from dbstor.telemetry.system import target_system
from dbstor.testfiles import Safety
from dbstor.workloads.registry import workload_class


@dataclass(frozen=True)
class DbRunPlan:
    run_id: str
    target: Target
    database: DatabaseSpec
    slo: Slo
    duration_s: float
    warmup_s: float
    study: dict[str, Any]
    repeats: int = 1
    max_duration_s: float | None = None  # held until steady, up to this long; None: fixed


def new_database_run(
    plan: DbRunPlan, engine_cls: type, workload: dict[str, Any], slo: dict[str, Any]
) -> Run:
    """A database run's results before its first point: the target, the engine (its
    version comes once it is started), the workload, the host and the SLO."""
    return Run(
        run_id=plan.run_id,
        tool_version=__version__,
        study=plan.study,
        target={
            "label": plan.target.label,
            "paths": {r: [str(p) for p in ps] for r, ps in plan.target.roles.items()},
            "device": None,
            "facts": plan.target.facts,
        },
        engine={
            "name": engine_cls.name,
            "title": engine_cls.title,
            "version": None,
            "managed": plan.database.dsn is None,
        },
        workload=workload,
        host=host_facts(),
        slo=slo,
        created_at=datetime.now(UTC).isoformat(timespec="seconds"),
        tags=dict(plan.study.get("tags") or {}),
    )


def instance_setup(plan: DbRunPlan, scale: float, instance: int, users: int) -> dict[str, Any]:
    """The plain description of one database instance to create and load."""
    spec = plan.database
    return {
        "instance": instance,
        "engine": spec.engine,
        "paths": {role: [str(p) for p in paths] for role, paths in plan.target.roles.items()},
        "dsn": spec.dsn,
        "buffer_bytes": spec.buffer_bytes,
        "memory_limit_bytes": spec.memory_limit_bytes,
        "workload": spec.workload,
        "scale": scale,
        "seed": spec.seed,
        "options": dict(spec.options),
        "users": users,
        "place": dict(spec.place),
    }


def device_note(run: Run, devices: list[str], external: bool) -> None:
    """Record the target's device and say when device figures are missing or not the
    database's own."""
    run.target["device"] = ",".join(devices) or None
    if external:
        run.notes.append(
            "external server: device statistics are this host's; the database's storage may be elsewhere"
        )
    elif not devices:
        run.notes.append("no block device found under the target: device statistics are missing")


class DatabaseRunner:
    """What every database run starts from: its plan, folder, safety rules, progress, the
    engine and workload classes and scale it names, and its results header. A runner adds
    its own state in setup() and says what its results record of the workload
    (workload_header()), of the latency limit (slo()) and of the run as a whole
    (conclude(): peak and knee)."""

    def __init__(
        self,
        plan: DbRunPlan,
        folder: Path,
        safety: Safety,
        progress: Progress,
        on_point: Callable[[Run], None] | None = None,
        telemetry: RunTelemetry | None = None,
    ):
        self.plan, self.safety, self.progress = plan, safety, progress
        self.telemetry = telemetry
        spec = plan.database
        self.engine_cls = engine_class(spec.engine)
        self.workload_cls = workload_class(spec.workload)
        self.scale = spec.scale if spec.scale is not None else self.workload_cls.default_scale
        self.devices: list[str] = []  # the data path's, top device first
        self.role_devices: dict[str, list[str]] = {}  # every role's own (telemetry/roles.py)
        self.phases = Phases()  # the run's `timings`: where its seconds went
        self.launched_at: float | None = None  # epoch seconds when dbstor was launched
        self.setup()
        self.run = new_database_run(plan, self.engine_cls, self.workload_header(), slo=self.slo())
        self.folder = RunFolder(folder, self.run, self.conclude, on_point)

    def setup(self) -> None:
        """The runner's own state, before its results header is made."""

    def begin(self) -> None:
        """The devices under the target (none for an external server), said in the run's
        notes, and the first save of the results."""
        age = process_age_s()
        self.launched_at = time.time() - age if age is not None else None
        self.phases.set("launch_to_run_s", age)
        self.run.timings = self.phases.timings
        spec = self.plan.database
        data = self.plan.target.paths[0] if self.plan.target.paths else None
        self.devices = devices_for_path(data) if data and spec.dsn is None else []
        device_note(self.run, self.devices, external=spec.dsn is not None)
        if spec.dsn is None:
            roles = self.plan.target.roles
            self.role_devices = role_devices(roles)
            self.run.target["roles"] = target_roles(roles, self.role_devices)
        if spec.dsn is None:
            self.run.target["system"] = target_system(self.devices)
        if data and spec.dsn is None:
            self.run.target["mount"] = mount_facts(data)
        self.folder.save()

    def loaded(self, started_at: float, wall_s: float) -> None:
        """A measurement's load ran from `started_at` (epoch seconds) for `wall_s`."""
        self.phases.add("load_s", wall_s)
        if self.launched_at is not None and "first_load_after_launch_s" not in self.phases.timings:
            self.phases.set("first_load_after_launch_s", started_at - self.launched_at)

    def cleaned_up(self, seconds: float, series_s: float) -> None:
        """The engines stopped in `seconds`; the series took `series_s` in all, the part
        of it not under load is dbstor's own work between the points."""
        self.phases.add("cleanup_s", seconds)
        self.phases.set(
            "series_overhead_s", max(0.0, series_s - self.phases.timings.get("load_s", 0.0))
        )

    def workload_header(self) -> dict[str, Any]:
        spec = self.plan.database
        return {"name": spec.workload, "scale": self.scale, "series": spec.describe()["series"]}

    def slo(self) -> dict[str, Any]:
        return {"metric": self.plan.slo.metric, "limit_ms": self.plan.slo.limit_ms}

    def conclude(self, run: Run) -> None:
        # an external server's own device (--db-host) when this host saw none of its I/O
        points, layer = device_points(run.points)
        run.peak = find_peak(points)
        run.knee = find_knee(points, self.plan.slo.metric, self.plan.slo.limit_ms)
        for found in (run.peak, run.knee):
            if found is not None and layer is not None:
                found["layer"] = layer

"""The database worker: creates, loads and stops database instances and measures points
against them on the host it runs on, taking and giving plain dicts (see runs/worker.py)."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from dbstor.drivers.users import Instance
from dbstor.engines.base import EngineSettings
from dbstor.engines.registry import engine_class
from dbstor.errors import UserError, is_disk_full
from dbstor.runs.database.point import DbPoint
from dbstor.runs.database.steady import measure_until_steady
from dbstor.runs.own_files import engine_files
from dbstor.runs.path_layout import path_layout
from dbstor.telemetry.disk import devices_for_path
from dbstor.telemetry.roles import role_devices
from dbstor.telemetry.sampler import Sampler
from dbstor.testfiles import Safety
from dbstor.units import format_size
from dbstor.workloads.registry import workload_class


def dsn_of(setup: dict[str, Any]) -> str | None:
    """The external server's DSN: given, or read from the environment variable named by
    dsn_env (so that a password need not travel in the description)."""
    if setup.get("dsn"):
        return str(setup["dsn"])
    name = setup.get("dsn_env")
    if not name:
        return None
    value = os.environ.get(str(name))
    if not value:
        raise UserError(f"environment variable {name} is not set: set it to the server's DSN")
    return value


def load_or_say_full(workload: Any, engine: Any, say: Callable[[str], None]) -> Any:
    """Create and load the workload's data; a full file system is one line naming it (the
    run then stops the engine, which removes what it created unless kept)."""
    try:
        report = workload.create(engine, say)
        if engine.settings.place:  # tables and indexes onto their roles' paths
            engine.placed = engine.place_objects(workload.name, say)
        return report
    except Exception as exc:
        if not is_disk_full(exc):
            gone = engine.unanswered()  # an external server whose network went silent
            if gone is None:
                raise
            raise UserError(
                f"{gone} while {workload.name} was loading ({str(exc).splitlines()[0]}): "
                "check the network and the server, then run again"
            ) from None
        where = ", ".join(str(p) for p in engine.cache_paths()[:1]) or "the target"
        raise UserError(
            f"the file system holding {where} filled up while loading {workload.name}: free "
            "space or choose a smaller --scale (what was loaded is removed unless --keep)"
        ) from None


@contextlib.contextmanager
def loading(engine: Any) -> Iterator[None]:
    """A managed server's memory cap is lifted while it starts and its data loads (no
    point measures them) and set again before the first point; a server that then holds
    more than the cap is refused with the figure to give."""
    cap = engine.cap
    if cap is None or not engine.managed:
        yield
        return
    cap.lift()
    try:
        yield
    finally:
        restored = cap.restore()
    if not restored:
        held = cap.usage() or 0
        raise UserError(
            f"the {engine.title} server holds {format_size(held)} after loading its data, more "
            f"than --memory-limit {format_size(cap.limit)} lets it keep: give at least "
            f"--memory-limit {(held >> 20) + 64}MiB"
        )


class DatabaseWorker:
    kind = "database"
    hosts: tuple[str, ...] = ()  # this host

    def __init__(self, safety: Safety, say: Callable[[str], None] | None = None):
        self.safety = safety
        self.say = say or (lambda message: None)
        self.instances: list[Instance] = []
        self.sampler: Sampler | None = None
        self.figures: dict[str, Any] | None = None  # the users' running figures, live

    def plan(self, setup: dict[str, Any]) -> dict[str, Any]:
        """Nothing to decide before prepare(): the engine lays out its own files."""
        return {}

    def prepare(self, setup: dict[str, Any]) -> dict[str, Any]:
        """Create, start and load one instance (setup from runs.database.plan.instance_setup):
        its engine, data paths, workload description and load report."""
        settings = EngineSettings(
            paths={role: [Path(p) for p in paths] for role, paths in setup["paths"].items()},
            dsn=dsn_of(setup),
            instance=int(setup["instance"]),
            buffer_bytes=setup.get("buffer_bytes"),
            memory_limit_bytes=setup.get("memory_limit_bytes"),
            keep=self.safety.keep,
            allow_overwrite=self.safety.allow_overwrite,
            place=dict(setup.get("place") or {}),
            users=int(setup.get("users") or 0),
        )
        engine = engine_class(setup["engine"])(settings)
        workload = workload_class(setup["workload"])(
            setup["scale"], seed=setup["seed"], options=setup["options"]
        )
        workload.expect_users(int(setup["users"]))
        if setup.get("attach"):  # another host made and loaded it: only connect here
            return self._attach(engine, workload)
        with loading(engine):
            engine.start()
            self.instances.append(Instance(engine, workload))
            report = load_or_say_full(workload, engine, self.say)
        data = setup["paths"].get("data") or []
        return {
            "engine": engine.describe(),
            "data_paths": engine.data_paths(),
            # the devices under the data path on the host this runs on (none for a server
            # elsewhere): a cluster host measures its own device, not the coordinator's
            "devices": devices_for_path(data[0]) if data and settings.dsn is None else [],
            # each role's devices on this host (data, log, temp, fast): sampled here too
            "role_devices": role_devices(setup["paths"]) if settings.dsn is None else {},
            "workload": workload.describe(),
            "load": {
                "rows": report.rows,
                "seconds": report.seconds,
                "rows_per_s": report.rows_per_s,
                "bytes": report.bytes,
            },
        }

    def _attach(self, engine: Any, workload: Any) -> dict[str, Any]:
        """Drive an external server's database that another client host created and
        loaded: nothing is created here and nothing is dropped at cleanup (stop() drops only
        what start() made); one connection checks that this host reaches the server."""
        if engine.managed:
            raise UserError("only an external server (a DSN) can be driven from several hosts")
        try:
            engine.connect().close()
        except Exception as exc:
            raise UserError(
                f"cannot reach the {engine.title} server from this host ({type(exc).__name__}): "
                "check that the DSN's host name and port are reachable from every client host"
            ) from None
        self.instances.append(Instance(engine, workload))
        return {"attached": True}

    def measure(self, point: dict[str, Any]) -> dict[str, Any]:
        """One load point -> its TxnOutcome as a dict."""
        described = DbPoint.from_dict(point)
        self.figures = None

        def new_sampler() -> Sampler:  # each round's own; the latest serves live figures
            self.sampler = Sampler(described.devices)
            return self.sampler

        outcome = measure_until_steady(
            self.instances, described, new_sampler, on_running=self._keep_figures
        )
        return outcome.to_dict()

    def _keep_figures(self, figures: dict[str, Any]) -> None:
        self.figures = figures

    def latest(self) -> dict[str, Any] | None:
        sample = self.sampler.latest() if self.sampler else None
        return dict(sample) if sample else None

    def running(self) -> dict[str, Any] | None:
        """The users' latest running figures in the point being measured (drivers.running),
        None before the measured window starts."""
        return self.figures

    def objects(self) -> list[dict[str, Any]]:
        """Per-object I/O of the first instance since it started (for the placement advisor)."""
        if not self.instances:
            return []
        return [vars(o) for o in self.instances[0].engine.object_io()]

    def path_layout(self) -> list[dict[str, Any]]:
        """Each instance's paths by role at the run's end: device, files, bytes on disk."""
        return path_layout([i.engine for i in self.instances])

    def host_views(self, load: Any, duration_s: float, warmup_s: float) -> None:
        """None: the point was measured on this host only."""
        return None

    def own_files(self) -> list[tuple[str, str]]:
        """Each instance's database files by role (none for an external server)."""
        return engine_files([i.engine for i in self.instances])

    def cleanup(self) -> dict[str, Any]:
        """Stop every instance (removing what it created unless kept); stopping one that
        fails must not keep the others running."""
        notes = []
        for instance in self.instances:
            try:
                instance.engine.stop()
            except Exception as exc:
                notes.append(f"stopping {instance.engine.title} failed: {exc}")
        return {"notes": notes}

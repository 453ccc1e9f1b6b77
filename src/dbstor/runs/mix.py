"""A study's [mix]: several workloads on one storage at once (docs/mix.md).

Each member of the mix is the study's own run of that workload (a DatabaseRun, QueryRun
or IoRun with its own worker, users, streams or fio jobs), in a process of its own, so
that the per-process accounting (telemetry/own.py: each point's cgroups around dbstor's
process and a managed server's) counts each workload's block I/O apart. The members meet
before every load point (and every repeat) at one barrier; the last to arrive sets one
start time a moment ahead, and every member's point description gets it as `start_at`,
which each kind's point runner already honours (runs/*/point.py): the points start at the
same instant with the same warm-up. Nothing here measures: the point runners do.

The figures stay each run's own; analysis/mix.py sets each beside the same workload alone.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import signal
import sys
import time
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from multiprocessing.connection import wait
from pathlib import Path
from threading import BrokenBarrierError
from typing import Any

from dbstor import lifeline
from dbstor.errors import UserError
from dbstor.runs.folder import new_run_id
from dbstor.runs.io.plan import IoRunPlan

LEAD_S = 0.5  # the start time set at the barrier lies this far ahead: every member sees it
EXIT_REFUSED, EXIT_BROKEN = 2, 3


def check_one_storage(study: Any) -> None:
    """Every path of a target in a mix on one device (one storage), or one line."""
    if study.mix is None:
        return
    for target in study.targets:
        devices: dict[int, str] = {}
        for role, paths in target.roles.items():
            for path in paths:
                if path.exists():
                    devices.setdefault(path.stat().st_dev, f"{role} {path}")
        if len(devices) > 1:
            first, second = list(devices.values())[:2]
            raise UserError(
                f"{study.source}: mix: target {target.label!r} is not one storage ({first} and "
                f"{second} are on different devices): a mix puts its workloads on one storage; "
                "give the target paths on one file system, or leave out the [mix]"
            )


def member_name(plan: Any) -> str:
    """The workload a plan runs, as [mix] names it (a database workload or a fio profile)."""
    return plan.profile.name if isinstance(plan, IoRunPlan) else plan.database.workload


@dataclass(frozen=True)
class MixGroup:
    """One target's mix: the member plans run together, and each one's run alone."""

    target: str
    plans: tuple[Any, ...]
    alone: dict[str, str]  # workload -> the run id of its run alone


def mix_groups(study: Any, plans: Sequence[Any], parent: Path) -> list[MixGroup]:
    """Per target, the mix's member plans (new run ids) beside the alone plans given."""
    if study.mix is None:
        return []
    groups = []
    for target in study.targets:
        alone = {
            member_name(p): p
            for p in plans
            if p.target.label == target.label and member_name(p) in study.mix.workloads
        }
        members = tuple(
            # held for the study's duration (a steady round would move one member's
            # measured window away from the others') and measured once (a point's figures
            # are its median repeat's, which need not be the same repeat for every member)
            replace(
                alone[name],
                run_id=new_run_id(target.label, f"{name}-mix", parent),
                max_duration_s=None,
                repeats=1,
            )
            for name in study.mix.workloads
            if name in alone
        )
        if len(members) > 1:
            groups.append(MixGroup(target.label, members, {n: p.run_id for n, p in alone.items()}))
    return groups


def query_offset_s(plan: Any) -> float:
    """How long after the others a member's point starts: a query run's streams (which
    have no warm-up) start when the other members' warm-up ends, so that every member's
    measured window begins at one instant; 0 for the others."""
    if isinstance(plan, IoRunPlan):
        return 0.0
    from dbstor.runs.queries.checks import runs_queries

    return plan.warmup_s if runs_queries(plan.database) else 0.0


class TogetherWorker:
    """A run's worker whose every measure() waits for the other members, then starts at
    the time the barrier set."""

    def __init__(
        self,
        worker: Any,
        barrier: Any,
        start: Any,
        offset_s: float = 0.0,
        ready: Callable[[dict[str, Any]], None] | None = None,
    ):
        self.worker, self.barrier, self.start = worker, barrier, start
        self.offset_s = offset_s  # a query point has no warm-up: it starts after the others'
        self.ready = ready  # what a point does before it can start (a cold query point's step)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.worker, name)

    def measure(self, point: dict[str, Any], *more: Any) -> dict[str, Any]:
        if self.ready is not None:
            self.ready(point)  # before the others wait for it, not inside their window
        self.barrier.wait()
        start_at = self.start.value + self.offset_s
        return self.worker.measure({**point, "start_at": start_at}, *more)


def run_together(
    group: MixGroup,
    parent: Path,
    build: Callable[[Any, Path], Any],
    say: Callable[[str], None],
) -> list[Path]:
    """Run the group's plans together, each in its own process; their folders. A member
    refused or failed stops the others at their next point (finished points stay) and
    is raised here as one line. Ctrl-C (or SIGTERM) here reaches each member once."""
    context = multiprocessing.get_context("fork")
    start = context.Value("d", 0.0)

    def set_start() -> None:
        start.value = time.time() + LEAD_S

    barrier = context.Barrier(len(group.plans), action=set_start)
    record = {
        "workloads": [member_name(p) for p in group.plans],
        "runs": {member_name(p): p.run_id for p in group.plans},
        "target": group.target,
    }
    children = []
    for plan in group.plans:
        receive, send = context.Pipe(duplex=False)
        together = record | {
            "workload": member_name(plan),
            "alone": group.alone.get(member_name(plan)),
        }
        process = context.Process(
            target=_member,
            args=(build, plan, parent / plan.run_id, together, barrier, start, send),
            name=f"dbstor-mix-{member_name(plan)}",
        )
        process.start()
        lifeline.watch_tree(process.pid)  # dbstor killed: its members (and theirs) go too
        send.close()
        children.append((member_name(plan), process, receive))
    say(f"mix on {group.target}: {', '.join(record['workloads'])} started together")
    problems = _wait_all(children, barrier)
    if problems:
        raise UserError(problems[0])
    return [parent / p.run_id for p in group.plans]


def _wait_all(children: list[tuple[str, Any, Any]], barrier: Any) -> list[str]:
    """Wait for every member; the first to fail breaks the barrier for the others."""
    problems: list[str] = []
    messages = {name: "" for name, _, _ in children}
    running = {process.sentinel: (name, process, pipe) for name, process, pipe in children}
    try:
        while running:
            for sentinel in wait(list(running)):
                name, process, pipe = running.pop(sentinel)
                process.join()
                lifeline.forget_tree(process.pid)
                if pipe.poll():
                    messages[name] = pipe.recv()
                if process.exitcode:
                    barrier.abort()  # the others stop at their next point
                    if process.exitcode != EXIT_BROKEN:
                        problems.append(
                            messages[name] or f"mix: {name} ended with status {process.exitcode}"
                        )
    except KeyboardInterrupt:  # passed on once: each member unwinds and keeps its points
        barrier.abort()
        for _, process, _ in children:
            if process.is_alive():
                with contextlib.suppress(ProcessLookupError):
                    os.kill(process.pid, signal.SIGTERM)
        for _, process, _ in children:
            process.join()
        raise
    return problems


def _unwind_once(signum: int, frame: object) -> None:
    """The first stop signal unwinds the member as Ctrl-C; later ones (a kill of the whole
    process group beside the study's own) cannot break its cleanup."""
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    raise KeyboardInterrupt


def _member(
    build: Callable[[Any, Path], Any],
    plan: Any,
    folder: Path,
    together: dict[str, Any],
    barrier: Any,
    start: Any,
    send: Any,
) -> None:
    """One member's run in its own process; its exit status and one line say how it ended."""
    status, message = 0, ""
    for signum in (signal.SIGINT, signal.SIGHUP):  # the terminal's reach the study, which
        signal.signal(signum, signal.SIG_IGN)  # passes one SIGTERM on (unwinds as Ctrl-C)
    signal.signal(signal.SIGTERM, _unwind_once)
    try:
        run = build(plan, folder)
        run.run.together = together
        others = [n for n in together["workloads"] if n != together["workload"]]
        run.run.notes.append(  # the run's own report says what ran beside it
            f"measured together with {' and '.join(others)} on the same target, every point "
            f"started at one instant ([mix], docs/mix.md); this workload alone: "
            f"{together['alone']}"
        )
        from dbstor.runs.queries.worker import QueryWorker  # a fio study imports none of it

        ready = run.worker.ready_point if isinstance(run.worker, QueryWorker) else None
        run.worker = TogetherWorker(run.worker, barrier, start, query_offset_s(plan), ready)
        run.execute()
    except UserError as exc:
        status, message = EXIT_REFUSED, f"{together['workload']} (in the mix): {exc}"
    except BrokenBarrierError:
        status = EXIT_BROKEN  # another member failed; its own line says why
    except KeyboardInterrupt:
        status = 130
    except BaseException:  # a bug: its traceback on stderr, one line to the study
        traceback.print_exc()
        status, message = 1, f"{together['workload']} (in the mix) failed: see the traceback above"
    finally:
        send.send(message)
        sys.stdout.flush()
        sys.stderr.flush()
    os._exit(status)

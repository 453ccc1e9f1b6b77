"""Virtual users spread over several client processes, so the client is not held to one core.

The parent forks one process per share of the users before any user thread starts; each
child runs its share with VirtualUsers, says when its users are connected, starts at the
moment the parent gives (time.monotonic is one clock for every process on the host) and
sends back its users' merged result (plain data: histograms, counts, its CPU over the
measured window, what its users cost in memory); the parent merges those with the same
exact merge as across instances and hosts (tally.merge_results). A fatal error in one child stops the others.
"""

from __future__ import annotations

import contextlib
import gc
import multiprocessing
import os
import signal
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from dbstor import lifeline
from dbstor.drivers.client_watch import ClientWatch
from dbstor.drivers.running import merge_figures
from dbstor.drivers.tally import DriveResult, error_line, merge, merge_results
from dbstor.drivers.users import Instance, VirtualUsers
from dbstor.drivers.window import Window

AUTO = 0  # client processes chosen per point by processes_for()
USERS_PER_PROCESS = 256  # past this many users, another client process (bench_users_scale.py)
PROCESSES_PER_CORE = 1  # at most this many client processes per core by default

HELD_SIGNALS = {signal.SIGINT, signal.SIGTERM, signal.SIGHUP}
START_MARGIN_S = 0.05  # between telling the children the start moment and that moment
CHILD_TIMEOUT_S = 600


def processes_for(
    users: int,
    asked: int,
    external: bool = False,
    cores: int | None = None,
    threaded: bool = True,
) -> int:
    """The client processes a point's users run in: `asked` unless AUTO; by default one
    process up to USERS_PER_PROCESS users and one more for each further share (users that
    each hold a thread wait on Python's lock longer the more there are in one process), at
    least one per core for an external server (the server is not on these cores), at most
    PROCESSES_PER_CORE per core. Users that keep no thread (not `threaded`: one loop
    thread drives them, multiplex.py) stay in one process on the server's host: another
    would add its own copy of the interpreter's heap (18-32 MiB at 1,000 users) and its own
    loop waking for its share of the replies (docs/benchmarks.md)."""
    if asked != AUTO:
        return asked
    cores = cores or os.cpu_count() or 1
    shares = -(-users // USERS_PER_PROCESS) if threaded else 1
    wanted = max(cores if external else 1, shares)
    return max(1, min(wanted, users, PROCESSES_PER_CORE * cores))


@contextlib.contextmanager
def _signals_held() -> Iterator[None]:
    """Hold Ctrl-C, SIGTERM and SIGHUP while forking; they are delivered when released."""
    signal.pthread_sigmask(signal.SIG_BLOCK, HELD_SIGNALS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, HELD_SIGNALS)


class ClientGroup(Protocol):
    """What the client processes of an embedded engine join (engines/embedded_cap.py)."""

    def join(self) -> None: ...

    def tighten(self) -> None: ...


class _Link:
    """Two one-way pipes: a process that exits with messages unread cannot wipe out what
    it sent (a socket pair would reset the connection)."""

    def __init__(self, incoming: Any, outgoing: Any):
        self.incoming, self.outgoing = incoming, outgoing

    def send(self, message: tuple[str, Any]) -> None:
        self.outgoing.send(message)

    def recv(self) -> tuple[str, Any]:
        return self.incoming.recv()

    def poll(self, timeout: float = 0.0) -> bool:
        return self.incoming.poll(timeout)

    def close(self) -> None:
        self.incoming.close()
        self.outgoing.close()


@dataclass(frozen=True)
class UserLoad:
    """One point's users as the client processes drive them: the instances, how many users
    each, their think time, seed and rate, the warm-up and measured seconds, and every
    user's (instance, user number) slot; a process drives a share of the slots."""

    instances: tuple[Instance, ...]
    users_per_instance: int
    think_time_ms: float
    seed: int
    rate: float | None
    warmup_s: float
    duration_s: float
    slots: tuple[tuple[int, int], ...]
    survive_restarts: bool = False  # a crash event: users reconnect (VirtualUsers)
    second_bins: bool = False  # latency bins per measured second (points with events)

    @classmethod
    def of(
        cls,
        instances: Sequence[Instance],
        users_per_instance: int,
        warmup_s: float,
        duration_s: float,
        *,
        think_time_ms: float = 0.0,
        seed: int = 1,
        rate: float | None = None,
        first_user: int = 0,
        survive_restarts: bool = False,
        second_bins: bool = False,
    ) -> UserLoad:
        """The load of `users_per_instance` users on each instance, numbered from
        `first_user`."""
        users = range(first_user, first_user + users_per_instance)
        slots = tuple((i, u) for i in range(len(instances)) for u in users)
        return cls(
            tuple(instances), users_per_instance, think_time_ms, seed, rate, warmup_s,
            duration_s, slots, survive_restarts, second_bins,
        )  # fmt: skip


@dataclass(frozen=True)
class Hooks:
    """What the parent does while the children drive one point: `tick` while it waits,
    `on_mark` at the measured window's start and end, an embedded engine's memory `group`,
    `on_running` with the users' running figures, and the `clock` it reads (time.monotonic,
    the one clock every process on the host shares; injected as pacing.py's is)."""

    tick: Callable[[], None] | None = None
    on_mark: Callable[[str], None] | None = None
    group: ClientGroup | None = None
    on_running: Callable[[dict[str, Any]], None] | None = None
    clock: Callable[[], float] = time.monotonic


def run_in_processes(load: UserLoad, processes: int, hooks: Hooks = Hooks()) -> DriveResult:
    """Like VirtualUsers(...).run(), with the load's users dealt round-robin over `processes`.
    Users are numbered from the load's first user (UserLoad.of: several client hosts driving
    one server each run their own numbers, so that no two users share a random stream or a
    terminal). `hooks.on_running(figures)` gets the users' running figures once a second
    while the measured window runs (drivers.running): with several processes each sends its
    own once a second and the latest of each are added up. `hooks.on_mark("measure_start")`
    and `hooks.on_mark("end")` are called, in this process, when the measured window starts
    and ends. With `hooks.group` (an embedded engine's memory cap) the users always run in
    forked processes that join the group before they connect, and the group is tightened
    once every user has connected, before the point starts."""
    processes = max(1, min(processes, len(load.slots)))
    children: list[tuple[Any, Any]] = []
    watch = ClientWatch(lambda: [child.pid for child, _ in children if child.pid])
    watch.start()
    windows: list[Window] = []
    try:
        if processes == 1 and hooks.group is None:
            driver = VirtualUsers(
                list(load.instances), load.users_per_instance, load.think_time_ms, load.seed,
                load.rate, list(load.slots), survive_restarts=load.survive_restarts,
                second_bins=load.second_bins,
            )  # fmt: skip
            driver.on_running = hooks.on_running
            result = driver.run(load.warmup_s, load.duration_s, hooks.tick, hooks.on_mark)
            windows.append(driver.window)
        else:
            result = _forked(children, windows, load, processes, hooks)
    finally:
        watch.finish()
    if windows:
        result.client_memory = watch.figures(
            len(load.slots), windows[0].measure_start, windows[0].end
        )
    return result


def _forked(
    children: list[tuple[Any, Any]],
    windows: list[Window],
    load: UserLoad,
    processes: int,
    hooks: Hooks,
) -> DriveResult:
    """The users in `processes` forked client processes (their pids in `children`)."""
    context = multiprocessing.get_context("fork")
    gc.freeze()  # the parent's objects out of the collector's reach: fewer pages copied
    try:
        for share in (list(load.slots[p::processes]) for p in range(processes)):
            down_read, down_write = context.Pipe(duplex=False)
            up_read, up_write = context.Pipe(duplex=False)
            there, here = _Link(down_read, up_write), _Link(up_read, down_write)
            # the parent's ends, this child's and every earlier child's: the child closes its
            # copies, so that the parent's death is an end of file it sees, not a silence
            parents_ends = [here, *(link for _, link in children)]
            args = (there, load, share, hooks.group, hooks.on_running is not None, parents_ends)
            child = context.Process(target=_child, args=args, daemon=True, name="dbstor-client")
            with _signals_held():  # a Ctrl-C that lands mid-fork must not be lost
                child.start()
                children.append((child, here))  # before Ctrl-C can land: always cleaned up
                lifeline.watch_tree(child.pid)  # killed by the watcher if dbstor is killed
            there.close()
        return _conduct(children, load, hooks, windows)
    finally:
        gc.unfreeze()
        for child, pipe in children:
            with contextlib.suppress(OSError):
                pipe.send(("stop", None))
            child.join(timeout=10)
            if child.is_alive():
                child.kill()
                child.join(timeout=10)
            lifeline.forget_tree(child.pid)
            pipe.close()


def _conduct(
    children: list[tuple[Any, Any]],
    load: UserLoad,
    hooks: Hooks,
    windows: list[Window] | None = None,
) -> DriveResult:
    """The parent's side of a point: wait for every child's users, give them one window on
    the hooks' clock, gather their reports and merge them."""
    tick, on_mark, on_running, clock = hooks.tick, hooks.on_mark, hooks.on_running, hooks.clock
    fatal: str | None = None
    latest: dict[int, dict[str, Any]] = {}  # each child's running figures
    for _, pipe in children:
        kind, value = _receive(pipe, tick, clock)
        if kind == "fatal":
            fatal = fatal or value
    if hooks.group is not None and not fatal:
        hooks.group.tighten()
    now = clock() + START_MARGIN_S
    window = Window(now, now + load.warmup_s, now + load.warmup_s + load.duration_s)
    if windows is not None:
        windows.append(window)
    for _, pipe in children:
        pipe.send(("go", None if fatal else window))
    marks = _Marks(window, on_mark, clock) if on_mark and not fatal else None
    reports = []
    pending = list(children)
    while pending:
        for child in list(pending):
            pipe = child[1]
            if pipe.poll(0.2):
                try:
                    kind, value = pipe.recv()
                except EOFError:
                    kind, value = "fatal", "a client process ended without its results"
                    pending.remove(child)
                if kind == "running":
                    latest[id(child)] = value
                    if on_running is not None:
                        on_running(merge_figures(list(latest.values())))
                    continue
                if kind == "fatal":
                    fatal = fatal or value
                    for _, other in pending:
                        with contextlib.suppress(OSError):
                            other.send(("stop", None))
                    continue
                reports.append(value)
                pending.remove(child)
            elif not child[0].is_alive() and not pipe.poll(0):  # what it sent before ending
                fatal = fatal or "a client process died"
                pending.remove(child)
        if tick:
            tick()
    if marks:
        marks.finish()
    measured = max(0.0, min(clock(), window.end) - window.measure_start)
    if not reports:
        mix = list(load.instances[0].workload.mix)
        result = merge([], mix, measured, open_loop=bool(load.rate))
    else:
        result = merge_results([DriveResult.from_dict(r) for r in reports])
        result.measured_s = measured
    result.fatal = fatal or result.fatal
    result.processes = len(children)
    return result


class _Marks(threading.Thread):
    """Calls on_mark at the measured window's start and end, while the children drive."""

    def __init__(self, window: Window, on_mark: Callable[[str], None], clock: Callable[[], float]):
        super().__init__(name="dbstor-window-marks", daemon=True)
        self.window, self.on_mark, self.clock = window, on_mark, clock
        self.stopped = threading.Event()
        self.start()

    def run(self) -> None:
        for name, moment in (
            ("measure_start", self.window.measure_start),
            ("end", self.window.end),
        ):
            if self.stopped.wait(max(0.0, moment - self.clock())):
                return
            self.on_mark(name)

    def finish(self) -> None:
        """Wait for the end mark when the window ran its course; skip it when cut short."""
        if self.clock() < self.window.end:
            self.stopped.set()
        self.join(timeout=30)


def _receive(
    pipe: Any, tick: Callable[[], None] | None, clock: Callable[[], float]
) -> tuple[str, Any]:
    deadline = clock() + CHILD_TIMEOUT_S
    while clock() < deadline:
        if pipe.poll(0.2):
            try:
                return pipe.recv()
            except EOFError:
                return "fatal", "a client process ended before its users connected"
        if tick:
            tick()
    return "fatal", "a client process did not get its users connected in time"


def _child(
    pipe: Any,
    load: UserLoad,
    slots: list[tuple[int, int]],
    group: ClientGroup | None = None,
    live: bool = False,
    parents_ends: Sequence[_Link] = (),
) -> None:
    """One client process: its share of the users, on the parent's clock (with `live`, its
    running figures to the parent once a second). It closes its copies of the parent's pipe
    ends first: if the parent dies, its reads then end instead of waiting for ever."""
    for link in parents_ends:
        link.close()
    signal.pthread_sigmask(signal.SIG_UNBLOCK, HELD_SIGNALS)
    if group is not None:
        group.join()  # before any memory of its own: all of it counts in the group
    driver = VirtualUsers(
        list(load.instances), load.users_per_instance, load.think_time_ms, load.seed,
        load.rate, slots, len(load.slots),
        survive_restarts=load.survive_restarts, second_bins=load.second_bins,
    )  # fmt: skip
    if live:
        driver.on_running = lambda figures: pipe.send(("running", figures))
    try:
        driver.prepare()
        pipe.send(("fatal", driver.fatal) if driver.fatal else ("ready", None))
        kind, window = pipe.recv()
        if kind != "go" or window is None:
            driver.stop.set()
            driver.go.set()
            driver.close_multiplexed()
            return

        def listen() -> None:
            if pipe.poll() and pipe.recv()[0] == "stop":
                driver.stop.set()

        tallies, cpu = driver.drive(window, listen)
        result = driver.result(tallies, cpu)
        if driver.fatal:
            with contextlib.suppress(OSError):
                pipe.send(("fatal", driver.fatal))
        pipe.send(("done", result.to_dict()))
    except KeyboardInterrupt:
        driver.stop.set()
        driver.go.set()
    except Exception as exc:  # say why, so the parent's message is not "it died"
        driver.stop.set()
        driver.go.set()
        with contextlib.suppress(OSError):
            pipe.send(("fatal", f"client process: {error_line(exc, 300)}"))

"""Query streams in a client process inside an embedded engine's memory cap (--memory-limit
on SQLite and DuckDB): the same StreamsRun as in dbstor's own process, run in a spawned
process that joins the engine's memory cgroup (engines/embedded_cap.py) before it opens
the database.

The engine takes part through its client hooks (engines/base.Engine): detach() lets go of the
database in this process (DuckDB closes its instance: it is not fork-safe and lets one
process at a time open a file for writing; SQLite holds nothing open), attach(capped=True)
opens it in the client process with the engine's capped settings (DuckDB's instance with
its capped memory_limit; SQLite a connection that reads the schema, and its capped
cache_size for every connection after), attach() takes it back here, and capped_settings()
names those settings for the description.

So: this process detaches, drops the database's files from the page cache (pages read
while loading or warming up would otherwise serve the capped client), and starts the
client with multiprocessing's spawn (a fresh interpreter, nothing of this process's
database in it). The client joins the group, attaches and says so; the group is then
tightened (what the client holds + --memory-limit) and the client runs the streams, each
opening its own connection there, sending every query's record as it finishes and the
outcome at the end. close() attaches this process again. The client's I/O is added to
this process's /proc/self/io when it is reaped, so the engine's counters over the point
include it.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import signal
import time
from collections.abc import Callable, Sequence
from typing import Any

from dbstor import lifeline
from dbstor.drivers.streams import STOP_WAIT_S, StreamsOutcome, StreamsRun, one_line
from dbstor.engines.base import Engine, EngineSettings
from dbstor.engines.embedded_cap import EmbeddedCap
from dbstor.telemetry.window import WindowCounters

READY_TIMEOUT_S = 300.0  # for the client to start and open the database
POLL_S = 0.2


def capped_group(engine: Engine) -> EmbeddedCap | None:
    """The engine's client memory cap when one is in force (an embedded engine with
    --memory-limit, which hands its database to a client process through its
    detach()/attach()); None: run the streams in this process."""
    cap = engine.client_cap
    return cap if cap is not None and cap.active else None


class CappedStreamsRun:
    """StreamsRun's outcome, measured in a capped client process: prepare(), run(), close()."""

    def __init__(
        self,
        engine: Engine,
        group: EmbeddedCap,
        streams: dict[int, list[tuple[Any, str]]],
        run_query: Callable[[Any, str, str], int],
        devices: Sequence[str],
        timeout_s: float | None,
        cache: str,
        on_query: Callable[[dict[str, Any]], None],
    ):
        self.engine, self.group, self.on_query = engine, group, on_query
        self.args = (type(engine), engine.settings, streams, run_query, list(devices))
        self.timeout_s, self.cache = timeout_s, cache
        self.outcome = StreamsOutcome()
        self.process: Any = None
        self.pipe: Any = None
        self.dropped = ""  # what was dropped from the page cache

    def prepare(self) -> None:
        """Hand the database to a new client process in the group and tighten the group
        once the client has opened it (not measured)."""
        self.engine.detach()
        dropped = self.engine.drop_cache()
        files = "file" if dropped.files == 1 else "files"
        self.dropped = f"{dropped.files} {files} ({dropped.bytes / 1e6:,.1f} MB)"
        context = multiprocessing.get_context("spawn")
        down_read, down_write = context.Pipe(duplex=False)
        up_read, up_write = context.Pipe(duplex=False)
        args = (down_read, up_write, self.group, *self.args, self.timeout_s, self.cache)
        self.process = context.Process(
            target=_client, args=args, daemon=True, name="dbstor-streams"
        )
        self.process.start()
        lifeline.watch_tree(self.process.pid)  # killed by the watcher if dbstor is killed
        down_read.close()
        up_write.close()
        self.pipe = (up_read, down_write)
        kind, value = self._next(time.monotonic() + READY_TIMEOUT_S)
        if kind == "ready":
            self.group.moment = "when it had opened the database"
            self.group.tighten()
        else:
            self.outcome.fatal = value or "the client process did not open the database"

    def describe(self) -> str:
        """The cap as applied at this point, for results.json's engine.memory_cap."""
        settings = self.engine.capped_settings()
        own = f", {settings}" if settings else ""
        return (
            f"{self.group.describe()}{own}; the streams ran in that process (spawned), the "
            f"database's {self.dropped} dropped from the page cache before the point"
        )

    def run(self) -> StreamsOutcome:
        """Start the client's streams and wait for them (every record to on_query as it
        comes); Ctrl-C is passed on to the client, which stops its queries."""
        if self.outcome.fatal:
            return self.outcome
        self.pipe[1].send(("go", None))
        try:
            while True:
                kind, value = self._next(None)
                if kind == "record":
                    self.outcome.records.append(value)
                    self.on_query(value)
                    continue
                if kind == "done":
                    self.outcome = value
                else:
                    self.outcome.fatal = self.outcome.fatal or value
                break
        except KeyboardInterrupt:
            self.outcome.interrupted = True
            with contextlib.suppress(OSError):
                os.kill(self.process.pid, signal.SIGINT)
            self.process.join(STOP_WAIT_S)
            raise
        finally:
            self.process.join(STOP_WAIT_S)  # reaped: its I/O counts in this process's
        return self.outcome

    def _next(self, deadline: float | None) -> tuple[str, Any]:
        """The client's next message; ("fatal", why) when it died or ran out of time."""
        while deadline is None or time.monotonic() < deadline:
            if self.pipe[0].poll(POLL_S):
                try:
                    return self.pipe[0].recv()
                except EOFError:
                    return "fatal", self._death()
            if not self.process.is_alive() and not self.pipe[0].poll(0):
                return "fatal", self._death()
        return "fatal", "the client process did not open the database in time"

    def _death(self) -> str:
        self.process.join(5)
        code = self.process.exitcode
        if self.group.oom_killed():
            return (
                f"the {self.engine.title} client process was killed for memory by the cap "
                f"(exit {code}): raise --memory-limit"
            )
        return f"the {self.engine.title} client process ended without its results (exit {code})"

    def close(self) -> None:
        """Stop the client if it is still there and open this process's instance again."""
        if self.process is not None:
            if self.process.is_alive():
                self.process.kill()
                self.process.join(10)
            lifeline.forget_tree(self.process.pid)
            for end in self.pipe:
                end.close()
            self.process = None
        self.engine.attach()


def _client(
    incoming: Any,
    outgoing: Any,
    group: EmbeddedCap,
    engine_class: type[Engine],
    settings: EngineSettings,
    streams: dict[int, list[tuple[Any, str]]],
    run_query: Callable[[Any, str, str], int],
    devices: list[str],
    timeout_s: float | None,
    cache: str,
) -> None:
    """The client process: join the group, open the database, run the streams on 'go'."""
    group.join()  # before the database takes any memory: all of it counts in the group
    engine = engine_class(settings)
    try:
        engine.attach(capped=True)
    except Exception as exc:
        outgoing.send(("fatal", f"the client process could not open the database: {one_line(exc)}"))
        return
    try:
        outgoing.send(("ready", None))
        if incoming.recv()[0] != "go":
            return
        runner = StreamsRun(
            engine, streams, run_query, WindowCounters(devices), timeout_s, cache,
            lambda record: outgoing.send(("record", record)),
        )  # fmt: skip
        try:
            outcome = runner.run()
        except KeyboardInterrupt:
            signal.signal(signal.SIGINT, signal.SIG_IGN)  # one Ctrl-C is enough
            outcome = runner.outcome
        with contextlib.suppress(OSError):
            outgoing.send(("done", outcome))
    except (EOFError, OSError, KeyboardInterrupt):
        return
    finally:
        engine.detach(quiet=True)

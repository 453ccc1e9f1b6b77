"""Query streams: each stream runs its queries one after another on its own connection,
every query timed, with the device's and the host's counters read around it; a per-query
timeout interrupts the statement, and a failed query is recorded and the stream goes on.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from dbstor.dialects import registry
from dbstor.engines.base import Engine, mask_dsn
from dbstor.telemetry.window import WindowCounters, window_stats

ERROR_CHARS = 300  # a query's error line is cut to this length
JOIN_POLL_S = 0.2  # how often the main thread looks up from waiting (so Ctrl-C is prompt)
STOP_WAIT_S = 15.0  # how long interrupted streams get to give their connections back


class QueryInfo(Protocol):
    """What a stream's query says about itself (workloads/dss/catalog.py: QuerySpec)."""

    number: int
    name: str
    title: str
    tr3476: str | None
    tr3476_code: str | None


# --- one query ---------------------------------------------------------------------------


SERVER_GONE_GRACE_S = 1.0  # a killed server's processes take a moment to be reaped


def server_gone(
    engine: Engine,
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], None] = time.sleep,
) -> bool:
    """Whether the engine's server has stopped, allowing it a moment (on `clock`) to be seen
    gone."""
    deadline = clock() + SERVER_GONE_GRACE_S
    while engine.alive():
        if clock() >= deadline:
            return False
        sleep(0.1)
    return True


def one_line(exc: BaseException) -> str:
    """The first non-empty line of an error, passwords masked, at most ERROR_CHARS long."""
    text = str(exc).strip() or type(exc).__name__
    line = next((ln.strip() for ln in text.splitlines() if ln.strip()), text)
    line = mask_dsn(line)
    return line if len(line) <= ERROR_CHARS else line[: ERROR_CHARS - 1] + "…"


class QueryTimer:
    """Calls `stop` (the engine interrupting the statement on one connection) once it has
    run `seconds` (None: never).
    Fires only while the statement runs, so the next one is never hit by a late timer."""

    def __init__(self, stop: Callable[[], object], seconds: float | None):
        self.stop, self.seconds = stop, seconds
        self.fired = False
        self._lock = threading.Lock()
        self._running = False
        self._timer: threading.Timer | None = None

    def _fire(self) -> None:
        with self._lock:
            if self._running:
                self.fired = True
                self.stop()

    def __enter__(self) -> QueryTimer:
        self._running = True
        if self.seconds is not None:
            self._timer = threading.Timer(self.seconds, self._fire)
            self._timer.daemon = True
            self._timer.start()
        return self

    def __exit__(self, *exc: object) -> None:
        with self._lock:
            self._running = False
        if self._timer is not None:
            self._timer.cancel()


def end_transaction(connection: Any) -> None:
    """Leave no transaction open after a query (psycopg opens one per statement)."""
    with contextlib.suppress(Exception):
        connection.rollback()


def set_statement_timeout(connection: Any, dialect: str, seconds: float | None) -> None:
    """The server-side limit where the dialect has one (dialects/: statement_timeout);
    elsewhere the QueryTimer interrupts from the client."""
    sql = None if seconds is None else registry.get(dialect).statement_timeout(seconds)
    if sql is None:
        return
    cursor = connection.cursor()
    cursor.execute(sql)
    cursor.close()
    connection.commit()


# --- streams of queries ------------------------------------------------------------------


@dataclass
class StreamsOutcome:
    records: list[dict[str, Any]] = field(default_factory=list)
    stream_s: dict[int, float] = field(default_factory=dict)  # stream -> its wall seconds
    wall_s: float = 0.0
    fatal: str | None = None  # why the point cannot count (the server died, no connection)
    interrupted: bool = False


class StreamsRun:
    """Runs query streams at once, one thread and one connection each, and records every
    query. `on_query(record)` is called (under a lock) as each query finishes."""

    def __init__(
        self,
        engine: Engine,
        streams: dict[int, list[tuple[QueryInfo, str]]],
        run_query: Callable[[Any, str, str], int],  # (connection, sql, dialect)
        counters: WindowCounters,
        timeout_s: float | None,
        cache: str,
        on_query: Callable[[dict[str, Any]], None],
        clock: Callable[[], float] = time.monotonic,
    ):
        """`clock`: the monotonic clock the streams' and queries' times are read on (the
        telemetry counters' clock; a test may give its own)."""
        self.engine, self.streams, self.run_query = engine, streams, run_query
        self.clock = clock
        self.counters, self.timeout_s, self.cache = counters, timeout_s, cache
        self.on_query = on_query
        self.outcome = StreamsOutcome()
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._open: dict[int, Any] = {}  # stream -> its connection while a query runs
        self._t0 = 0.0

    def run(self) -> StreamsOutcome:
        """Run every stream to its end (or to a fatal error); Ctrl-C interrupts the running
        queries, waits briefly for the streams, marks the outcome and re-raises."""
        self._t0 = self.clock()
        threads = [
            threading.Thread(
                target=self._stream, args=(number, queries), name=f"dbstor-stream-{number}",
                daemon=True,
            )
            for number, queries in self.streams.items()
        ]  # fmt: skip
        for thread in threads:
            thread.start()
        try:
            for thread in threads:
                while thread.is_alive():
                    thread.join(JOIN_POLL_S)
        except KeyboardInterrupt:
            self.outcome.interrupted = True
            self._stop.set()
            with self._lock:
                running = list(self._open.values())
            for connection in running:
                self.engine.interrupt(connection)
            deadline = self.clock() + STOP_WAIT_S
            for thread in threads:
                thread.join(max(0.0, deadline - self.clock()))
            raise
        finally:
            self.outcome.wall_s = self.clock() - self._t0
        return self.outcome

    def _fatal(self, why: str) -> None:
        with self._lock:
            if self.outcome.fatal is None:
                self.outcome.fatal = why
        self._stop.set()

    def _gone(self) -> str:
        """What stopped: an external server named by host:port, else the server."""
        return self.engine.unanswered() or f"the {self.engine.title} server stopped"

    def _stream(self, number: int, queries: list[tuple[QueryInfo, str]]) -> None:
        connection = None
        try:
            connection = self.engine.connect()
            set_statement_timeout(connection, self.engine.dialect, self.timeout_s)
            for position, (spec, sql) in enumerate(queries, 1):
                if self._stop.is_set():
                    break
                record = self._query(connection, number, position, spec, sql)
                with self._lock:
                    self.outcome.records.append(record)
                    self.on_query(record)
                if record["status"] != "ok" and not self.engine.alive():
                    self._fatal(
                        f"{self._gone()} during the point; "
                        f"{record['name']} {record['status']}: {record['error']}"
                    )
                    break
        except Exception as exc:  # no connection: the stream cannot run at all
            gone = server_gone(self.engine, self.clock)
            why = f"{self._gone()} during the point; " if gone else ""
            self._fatal(f"{why}stream {number} could not connect: {one_line(exc)}")
        finally:
            with self._lock:
                self.outcome.stream_s[number] = self.clock() - self._t0
            if connection is not None:
                with contextlib.suppress(Exception):
                    connection.close()

    def _query(
        self, connection: Any, number: int, position: int, spec: QueryInfo, sql: str
    ) -> dict[str, Any]:
        rows: int | None = None
        error: str | None = None
        status = "ok"
        before = self.counters.read()
        with self._lock:
            self._open[number] = connection
        timer = QueryTimer(lambda: self.engine.interrupt(connection), self.timeout_s)
        started = self.clock()
        try:
            with timer:
                rows = int(self.run_query(connection, sql, self.engine.dialect))
        except Exception as exc:
            error = one_line(exc)
            timed_out = timer.fired or (self.timeout_s is not None and self.engine.timed_out(exc))
            status = "timeout" if timed_out else "failed"
            if self._stop.is_set() and not timed_out:
                status, error = "failed", f"interrupted: {error}"
        finally:
            elapsed = self.clock() - started
            with self._lock:
                self._open.pop(number, None)
        after = self.counters.read()
        end_transaction(connection)
        window = window_stats(before, after)
        if status == "timeout":
            error = f"over the query timeout of {self.timeout_s:g} s, stopped after {elapsed:.1f} s"
        elif (
            status == "ok"
            and self.timeout_s is not None
            and elapsed > self.timeout_s
            and self.engine.interrupter(connection) is None
        ):
            status = "timeout"
            error = (
                f"ran {elapsed:.1f} s, over the query timeout of {self.timeout_s:g} s "
                "(this engine's queries cannot be interrupted)"
            )
        device, cpu = window.device, window.cpu
        return {
            "stream": number,
            "position": position,
            "number": spec.number,
            "name": str(spec.name),
            "title": spec.title,
            "tr3476": spec.tr3476,
            "tr3476_code": spec.tr3476_code,
            "status": status,
            "error": error,
            "elapsed_s": elapsed,
            "rows": rows,
            "started_s": round(before.t - self._t0, 3),
            "read_mbps": device.read_mbps if device else None,
            "read_iops": device.read_iops if device else None,
            "write_mbps": device.write_mbps if device else None,
            "read_mb": window.read_bytes / 1e6 if window.read_bytes is not None else None,
            "cpu_pct": cpu.util_pct,
            "iowait_pct": cpu.iowait_pct,
            "cache": self.cache,
        }

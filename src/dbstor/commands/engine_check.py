"""dbstor engines --check: what a DBA checks before a study.

Connects to the engine (an external server by its DSN, or a scratch database in a temporary
folder of dbstor's own), runs every query its counters need once (Engine.counter_queries())
and says which work and which are missing, with what to grant or set; with a workload, also
builds it at a small scale in dbstor's own schema or database, runs each transaction type
or query once, and removes what it made. Only the engine contract is used: a new engine's
check is its counter_queries().
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from dbstor import lifeline
from dbstor.commands.common import parse_flag
from dbstor.drivers.streams import end_transaction, one_line
from dbstor.engines.base import COUNTER_NAMES, Engine, EngineSettings, mask_dsn
from dbstor.engines.probes import CounterQuery
from dbstor.engines.registry import engine_class
from dbstor.errors import UserError
from dbstor.runs.queries.checks import is_query_workload
from dbstor.study.shrink import SMALL_SCALE
from dbstor.units import parse_scale
from dbstor.workloads.base import Workload
from dbstor.workloads.registry import workload_class

# On an external server the check works in dbstor_999 (instance 999), a schema or database
# no study uses (studies use dbstor, dbstor_1, ...), so it never replaces a study's data.
CHECK_INSTANCE = 999


@dataclass
class Line:
    """One thing checked: ok, or what is missing and what to do."""

    ok: bool
    what: str
    detail: str  # ok: what it returned; missing: the error and the fix
    seconds: float | None = None

    def text(self) -> str:
        took = "" if self.seconds is None else f"  {self.seconds * 1000:,.0f} ms"
        return f"  {'ok     ' if self.ok else 'MISSING'}  {self.what}: {self.detail}{took}"


def small_workload(name: str, scale: str | None) -> Workload:
    """The workload at the given scale, else at the smallest one dbstor tries it at."""
    cls = workload_class(name)
    if scale is not None:
        return cls(parse_flag("--scale", parse_scale, scale))
    return cls(SMALL_SCALE.get(name, cls.default_scale))


def rows(count: int) -> str:
    return f"{count:,} row{'' if count == 1 else 's'}"


def run_counter_query(connection: Any, query: CounterQuery) -> Line:
    """Run one counter query as the counters would; a failure says what it needs."""
    started = time.perf_counter()
    try:
        cursor = connection.cursor()
        if query.params is None:  # sqlite3 takes no None for "no parameters"
            cursor.execute(query.sql)
        else:
            cursor.execute(query.sql, query.params)
        found = list(cursor.fetchall())
        cursor.close()
    except Exception as exc:
        end_transaction(connection)
        return Line(False, query.name, f"{one_line(exc)}; needs {query.needs}")
    end_transaction(connection)
    took = time.perf_counter() - started
    problem = query.verdict(found) if query.verdict else None
    if problem:
        return Line(False, query.name, problem, took)
    return Line(True, query.name, rows(len(found)), took)


def counter_lines(engine: Engine) -> list[Line]:
    """Every counter query once on one connection, then counters() as a study reads them."""
    queries = engine.counter_queries()
    lines = []
    if queries:
        connection = engine.connect()
        try:
            lines = [run_counter_query(connection, q) for q in queries]
        finally:
            with contextlib.suppress(Exception):
                connection.close()
    counters = vars(engine.counters())
    read = [name for name in COUNTER_NAMES if counters[name] is not None]
    unread = [name for name in COUNTER_NAMES if counters[name] is None]
    shown = ", ".join(read) if read else "none from the engine (fio-level figures only)"
    lines.append(
        Line(
            True,
            "counters a study reads",
            shown + (f"; null in results: {', '.join(unread)}" if read and unread else ""),
        )
    )
    return lines


def timed(what: str, action: Callable[[], Any]) -> Line:
    """Run one action: ok with its time, or the error's one line."""
    started = time.perf_counter()
    try:
        result = action()
    except Exception as exc:
        return Line(False, what, one_line(exc), time.perf_counter() - started)
    if result is False:  # a transaction that rolls back by design (TPC-C's unused item)
        detail = "ok (rolled back by design)"
    else:
        detail = "ok" if result is None or result is True else rows(int(result))
    return Line(True, what, detail, time.perf_counter() - started)


def workload_lines(engine: Engine, workload: Workload, say: Callable[[str], None]) -> list[Line]:
    """Build the workload in dbstor's own schema or database, then run each transaction
    type (or each query) once."""
    if engine.dialect not in workload.dialects:
        return [Line(False, workload.name, f"has no SQL for {engine.title} ({engine.dialect})")]
    workload.expect_users(1)
    build = timed(
        f"build {workload.name} at scale {workload.scale:g} ({workload.scale_unit})",
        lambda: workload.create(engine, say).rows,
    )
    if not build.ok:
        return [build]
    lines = [build]
    connection = engine.connect()
    try:
        if is_query_workload(type(workload)):
            for spec, sql in workload.stream(0, engine.dialect):  # type: ignore[attr-defined]
                run = workload.run_query  # type: ignore[attr-defined]
                lines.append(
                    timed(
                        f"query {spec.name}", lambda s=sql, r=run: r(connection, s, engine.dialect)
                    )
                )
                end_transaction(connection)
        else:
            try:
                session = workload.session(engine, connection, 0)
            except Exception as exc:
                return [*lines, Line(False, "a user's session", mask_dsn(one_line(exc)))]
            for txn in workload.mix:
                lines.append(timed(f"transaction {txn}", lambda t=txn: session.run(t)))
                end_transaction(connection)
            session.close()
    finally:
        with contextlib.suppress(Exception):
            connection.close()
    return lines


def check(
    engine_name: str,
    dsn: str | None,
    workload: str | None,
    scale: str | None,
    say: Callable[[str], None],
) -> int:
    """Print what works and what is missing; 0 when everything works, else 2. An
    unreachable server or a bad DSN is a UserError (one line) before anything exists."""
    cls = engine_class(engine_name)
    chosen = small_workload(workload, scale) if workload else None
    availability = cls.availability()
    if not availability.usable:
        raise UserError(f"engine {cls.name} cannot run here: {availability.reason}")
    if dsn is None and not availability.managed:
        raise UserError(f"engine {cls.name} cannot start its own server here; give --dsn")
    if dsn is not None:
        engine = cls(EngineSettings(dsn=dsn, instance=CHECK_INSTANCE))
        return checked_engine(engine, chosen, say)
    with lifeline.scratch_dir("dbstor-check-") as scratch:  # removed even after kill -9
        scratch.chmod(0o755)  # a managed server's own account reaches its folders
        (scratch / "data").mkdir()
        engine = cls(EngineSettings(paths={"data": [scratch / "data"]}))
        return checked_engine(engine, chosen, say)


def quiet(message: str) -> None:
    """The build's progress lines are not shown: its one line says how it went."""


def guarded(what: str, lines: Callable[[], list[Line]]) -> list[Line]:
    """The lines, or one MISSING line when a connection fails before any query runs."""
    try:
        return lines()
    except Exception as exc:
        return [Line(False, what, f"could not connect or run: {mask_dsn(one_line(exc))}")]


def checked_engine(engine: Engine, workload: Workload | None, say: Callable[[str], None]) -> int:
    engine.start()  # an unreachable server: UserError here, before anything exists
    try:
        where = engine.describe().get("dsn") or "a scratch database in a temporary folder"
        say(f"{engine.title} {engine.version()} at {where}")
        lines = guarded("counter queries", lambda: counter_lines(engine))
        for line in lines:
            say(line.text())
        if workload is not None:
            for line in guarded(workload.name, lambda: workload_lines(engine, workload, quiet)):
                say(line.text())
                lines.append(line)
    finally:
        engine.stop()
    missing = [line for line in lines if not line.ok]
    if missing:
        say(f"{len(missing)} of {len(lines)} checks failed: see MISSING above")
        return 2
    checks = "the check" if len(lines) == 1 else f"all {len(lines)} checks"
    say(f"{checks} passed; what the check made is removed")
    return 0

"""Oracle Database: an external server only (dbstor cannot install or start one), reached
with python-oracledb in thin mode (pure Python: no Instant Client).

External: oracle://user@host:1521/service_name (DBSTOR_DSN; the password in the DSN or in
DBSTOR_ORACLE_PASSWORD, never in a process's arguments). dbstor creates a schema user
DBSTOR (instance n > 0: DBSTOR_n) without a password of its own, tablespaces for the
target's data and temp paths (engines/oracle_space.py), and a marker table in the schema;
every connection sets CURRENT_SCHEMA to it; at the end it drops that user, and only if
the marker is in it, and the tablespaces it made, and only if they are empty. The user in
the DSN needs CREATE USER, DROP USER, CREATE TABLESPACE, DROP TABLESPACE and the ANY
privileges on another schema's tables and procedures (the DBA role has them all), and
SELECT_CATALOG_ROLE for the counters (engines/oracle_stats.py).

Verified here: SQL parsed by sqlglot and counters tested on recorded output; not run
against a live server (none can be installed from the registries this project reaches).
"""

from __future__ import annotations

import contextlib
import importlib.util
import time
from typing import Any, ClassVar

from dbstor.engines import oracle_space as space
from dbstor.engines import oracle_stats as stats
from dbstor.engines.base import (
    COUNTER_NAMES,
    MARKER_TABLE,
    Availability,
    EngineCounters,
    EngineSettings,
    ErrorKind,
    ObjectIO,
    mask_dsn,
)
from dbstor.engines.messages import hide
from dbstor.engines.network import NoAnswer, address, answer_within, timed_out_note
from dbstor.engines.oracle_dsn import PASSWORD_ENV, awr_asked, dsn_secrets, parse_dsn
from dbstor.engines.probes import CounterQuery
from dbstor.engines.server import ServerEngine, import_driver
from dbstor.engines.window import Edge
from dbstor.errors import UserError

VERIFIED = "SQL parsed and counters tested on recorded output; not run against a live server here"
RETRY_CODES = {"ORA-00060", "ORA-08177"}  # deadlock, cannot serialize access
LOST_CODES = {  # the connection or the instance is gone
    "ORA-03113",  # end-of-file on communication channel
    "ORA-03114",  # not connected
    "ORA-03135",  # connection lost contact
    "ORA-12541",  # no listener
    "ORA-12170",  # connect timeout
    "ORA-12537",  # connection closed
    "ORA-01012",  # not logged on
    "ORA-01033",  # initialization or shutdown in progress
    "ORA-01034",  # not available
    "ORA-01089",  # immediate shutdown
    "ORA-01092",  # instance terminated
    "DPY-1001",  # not connected
    "DPY-4011",  # the database or network closed the connection
    "DPY-6005",  # cannot connect
}
FULL_CODES = {"ORA-01653", "ORA-01654", "ORA-01688", "ORA-01536"}  # cannot extend, quota
KEEPALIVE_MINUTES = 1  # oracledb's expire_time: probes after a minute of silence
CONNECT_S = 30  # users' connections; dbstor's own wait ADMIN_CONNECT_S or less
ADMIN_CALL_MS = 600_000  # oracledb's call_timeout on dbstor's own connections: any round
#   trip of its own (counters, DDL, dropping the schema) longer than 10 minutes ends


def _oracledb() -> Any:
    return import_driver(
        "oracledb",
        "Oracle needs the python-oracledb driver, which is not installed: pip install oracledb",
    )


def error_code(exc: BaseException) -> str | None:
    """'ORA-00060', 'DPY-6005', ... of a python-oracledb error, else None."""
    first = exc.args[0] if exc.args else None
    code = getattr(first, "full_code", None)
    return str(code) if code else None


def classify_code(code: str | None) -> str:
    """ErrorKind of an Oracle or python-oracledb error code."""
    if code in RETRY_CODES:
        return ErrorKind.RETRY
    if code in LOST_CODES or code in FULL_CODES:
        return ErrorKind.FATAL
    return ErrorKind.ERROR


class OracleEngine(ServerEngine):
    """Oracle Database through python-oracledb (thin mode), on an external server."""

    name = "oracle"
    title = "Oracle Database"
    dialect = "oracle"
    paramstyle = "named"  # :b1, :b2, ... (bound by position from a sequence)
    driver = "oracledb"
    dsn_form: ClassVar[str] = "oracle://{user}@{host}:{port}/service_name"
    password_env: ClassVar[str | None] = PASSWORD_ENV
    file_stats_query = stats.FILESTAT_SQL  # per file; READTIM/WRITETIM in centiseconds
    workspace_kind = "schema"
    grant_hint = (
        "grant the user CREATE USER, DROP USER, CREATE TABLESPACE and DROP TABLESPACE "
        "(or the DBA role) so that dbstor can make schema {name}"
    )

    def __init__(self, settings: EngineSettings):
        super().__init__(settings)
        n = settings.instance
        self.user = "DBSTOR" if n == 0 else f"DBSTOR_{n}"
        data = [str(p) for p in settings.paths.get("data") or []]
        self.spaces = space.space_names(n, data, bool(settings.paths.get("temp")))
        self._made_spaces: list[str] = []

    @property
    def workspace(self) -> str:
        return self.user

    @classmethod
    def availability(cls) -> Availability:
        if importlib.util.find_spec("oracledb") is None:
            return Availability(
                False, "the python-oracledb driver is missing: pip install oracledb", managed=False
            )
        return Availability(
            True,
            f"python-oracledb (thin mode): external servers only (--dsn "
            f"oracle://user@host:1521/service); {VERIFIED}",
            managed=False,
        )

    def _start_managed(self) -> None:
        raise UserError(
            "dbstor cannot start an Oracle server of its own: give --dsn "
            "oracle://user@host:1521/service_name (or DBSTOR_DSN)"
        )

    # --- connections ------------------------------------------------------------------------

    def _open(self, timeout: float, own: bool, user_error: bool = True) -> Any:
        """A connection to the DSN's server; `own`: dbstor's (autocommit, call_timeout).
        Failures are one-line UserErrors naming host:port unless `user_error` is False."""
        oracledb = _oracledb()
        args = parse_dsn(self.settings.dsn or "")
        args.setdefault("tcp_connect_timeout", timeout)
        args.setdefault("expire_time", KEEPALIVE_MINUTES)
        bound = float(args["tcp_connect_timeout"])
        try:
            conn = answer_within(
                bound,
                lambda: oracledb.connect(**args),
                "connect_timeout",
            )
        except (oracledb.Error, NoAnswer) as exc:
            if not user_error:
                raise
            hidden = timed_out_note(self._hide(exc), bound, "connect_timeout")
            raise UserError(
                f"cannot connect to {self.title} at {self.server_address()}: {hidden}"
                "; check the DSN, the password, and that the listener runs"
            ) from None
        if own:
            conn.autocommit = True
            conn.call_timeout = ADMIN_CALL_MS
        return conn

    def _admin(self, timeout: int = 10) -> Any:
        return self._open(timeout, own=True)

    def connect(self) -> Any:
        """A connection in dbstor's schema, autocommit off (oracledb's default)."""
        conn = self._open(CONNECT_S, own=False, user_error=False)
        with conn.cursor() as cur:
            cur.execute(f"ALTER SESSION SET CURRENT_SCHEMA = {self.user}")
        return conn

    def _driver_error(self) -> type[Exception]:
        return _oracledb().Error

    def _hide(self, exc: BaseException) -> str:
        """The error's first line and its cause (a refused connection says why), with
        every password removed."""
        text = (str(exc).strip().splitlines() or [""])[0]
        cause = exc.__cause__ or exc.__context__
        if cause is not None and str(cause) and str(cause) not in text:
            text = f"{text} ({str(cause).strip().splitlines()[0]})"
        return hide(text, dsn_secrets(self.settings.dsn or ""))

    def server_address(self) -> str:
        args = parse_dsn(self.settings.dsn or "")
        return f"{address(args['host'], args['port'])}/{args['service_name']}"

    def _connection_lost(self, exc: BaseException) -> bool:
        return error_code(exc) in LOST_CODES

    def classify(self, exc: BaseException) -> str:
        return classify_code(error_code(exc))

    def _read_version(self, conn: Any) -> None:
        with contextlib.suppress(Exception), conn.cursor() as cur:
            cur.execute(stats.VERSION_SQL)
            row = cur.fetchone()
            self._version = str(row[0]) if row else None
        self._version = self._version or f"Oracle {getattr(conn, 'version', 'unknown')}"

    def _installed_version(self) -> str | None:
        return None

    # --- the schema -------------------------------------------------------------------------

    def _one(self, conn: Any, sql: str, params: tuple = ()) -> Any:
        with conn.cursor() as cur:
            cur.execute(sql, params)
            row = cur.fetchone()
            return row[0] if row else None

    def _workspace_exists(self, conn: Any) -> bool:
        return bool(
            self._one(conn, "SELECT COUNT(*) FROM all_users WHERE username = :b1", (self.user,))
        )

    def _marked(self, conn: Any) -> bool:
        found = self._one(
            conn,
            "SELECT COUNT(*) FROM all_tables WHERE owner = :b1 AND table_name = :b2",
            (self.user, MARKER_TABLE.upper()),
        )
        if not found:
            return False
        sql = f"SELECT COUNT(*) FROM {self.user}.{MARKER_TABLE} WHERE created_by = 'dbstor'"
        return bool(self._one(conn, sql))

    def _create_workspace(self, conn: Any) -> None:
        taken = [s for s in self.spaces if self._space_exists(conn, s)]
        if taken:
            raise UserError(
                f"tablespace {taken[0]} already exists at {mask_dsn(self.settings.dsn or '')}: "
                f"if an earlier dbstor run left it, drop it yourself (DROP TABLESPACE {taken[0]} "
                "INCLUDING CONTENTS AND DATAFILES), or use another instance number"
            )
        made = space.create_spaces(self.settings.instance, self._paths())
        try:
            with conn.cursor() as cur:
                for sql, name in zip(made, self.spaces, strict=True):
                    cur.execute(sql)
                    self._made_spaces.append(name)
                default = self._one(
                    conn,
                    "SELECT property_value FROM database_properties"
                    " WHERE property_name = 'DEFAULT_PERMANENT_TABLESPACE'",
                )
                cur.execute(space.create_user(self.user, self.spaces, str(default or "USERS")))
        except BaseException:
            self._drop_made_spaces(conn)  # the user was not made: its spaces are empty
            raise

    def _drop_made_spaces(self, conn: Any) -> None:
        """The tablespaces this engine made, dropped again (a failed start), each only
        when it holds no segment."""
        with contextlib.suppress(Exception), conn.cursor() as cur:
            used = "SELECT COUNT(*) FROM dba_segments WHERE tablespace_name = :b1"
            for name in reversed(self._made_spaces):
                if not self._one(conn, used, (name,)):
                    cur.execute(space.drop_space(name))
        self._made_spaces.clear()

    def _paths(self) -> dict[str, list[str]]:
        return {role: [str(p) for p in paths] for role, paths in self.settings.paths.items()}

    def _space_exists(self, conn: Any, name: str) -> bool:
        sql = "SELECT COUNT(*) FROM dba_tablespaces WHERE tablespace_name = :b1"
        return bool(self._one(conn, sql, (name,)))

    def _mark_workspace(self, conn: Any) -> None:
        with conn.cursor() as cur:
            cur.execute(
                f"CREATE TABLE {self.user}.{MARKER_TABLE} (created_by VARCHAR2(32) NOT NULL,"
                " created_at TIMESTAMP DEFAULT SYSTIMESTAMP NOT NULL, instance NUMBER(10))"
            )
            cur.execute(
                f"INSERT INTO {self.user}.{MARKER_TABLE} (created_by, instance) VALUES ('dbstor', :b1)",
                (self.settings.instance,),
            )

    def _drop_workspace(self, conn: Any) -> None:
        """The schema, then each of dbstor's tablespaces that now holds no segment."""
        with conn.cursor() as cur:
            cur.execute(space.drop_user(self.user))
            for name in self.spaces:
                if not self._space_exists(conn, name):
                    continue
                used = "SELECT COUNT(*) FROM dba_segments WHERE tablespace_name = :b1"
                if not self._one(conn, used, (name,)):
                    cur.execute(space.drop_space(name))

    # --- statistics -------------------------------------------------------------------------

    def snapshot(self) -> stats.Snapshot:
        """One reading of the four views (engines/oracle_stats.py)."""
        return stats.snapshot(
            self.query(stats.FILESTAT_SQL),
            self.query(stats.TEMPSTAT_SQL),
            self.query(stats.SYSSTAT_SQL),
            self.query(stats.EVENTS_SQL),
        )

    def _buffer_counters(self) -> tuple[float | None, float | None, float | None]:
        found = stats.engine_counters(stats.Snapshot(stats=dict(self.query(stats.SYSSTAT_SQL))))
        return found.logical_reads, found.physical_reads, found.physical_writes

    def counters(self) -> EngineCounters:
        """v$sysstat's cache and byte counters (instance-wide), and as the edge of the
        engine's own window figures the same reading with v$system_event's waits; none,
        with the reason, when they cannot be read."""
        try:
            snap = stats.Snapshot(stats=dict(self.query(stats.SYSSTAT_SQL)))
        except (self._driver_error(), UserError) as exc:
            out = EngineCounters()
            why = f"v$sysstat could not be read: {self._hide(exc)} (grant SELECT_CATALOG_ROLE)"
            out.why_null.update(dict.fromkeys(COUNTER_NAMES, why))
            out.edge = Edge(time.monotonic(), None, why)
            return out
        out = stats.engine_counters(snap)
        try:
            snap.events = stats.snapshot((), (), (), self.query(stats.EVENTS_SQL)).events
            snap.awr = self._awr_snapshot() if awr_asked(self.settings.dsn or "") else None
            out.edge = Edge(time.monotonic(), snap)
        except (self._driver_error(), UserError) as exc:
            why = f"v$system_event could not be read: {self._hide(exc)} (grant {stats.CATALOG})"
            out.edge = Edge(time.monotonic(), None, why)
        return out

    def window_figures(self, before: EngineCounters, after: EngineCounters) -> dict[str, Any]:
        """v$system_event's waits and v$sysstat's rates over the window (oracle_stats),
        and with ?awr=on the AWR snapshots at its edges, for awrrpt.sql."""
        out = stats.window_figures(before.edge, after.edge)
        edges = [e.reading.awr for e in (before.edge, after.edge) if e and e.reading]
        if any(a is not None for a in edges):
            out["awr"] = stats.awr_pair(edges)
        return out

    def _awr_snapshot(self) -> int | str:
        """An AWR snapshot's id, or why none was taken."""
        try:
            conn = self._admin()
            try:
                cur = conn.cursor()
                snap = cur.var(int)
                cur.execute(stats.AWR_SNAPSHOT, snap=snap)
                return int(snap.getvalue())
            finally:
                conn.close()
        except (self._driver_error(), UserError) as exc:
            return f"{self._hide(exc)} ({stats.AWR_NEEDS})"

    def object_io(self) -> list[ObjectIO]:
        """Per data and temp file: of dbstor's tablespaces when it made any, else every file
        of the database (v$filestat and v$tempstat are instance-wide)."""
        snap = stats.snapshot(
            self.query(stats.FILESTAT_SQL), self.query(stats.TEMPSTAT_SQL), (), ()
        )
        return stats.object_io(snap.files, self.spaces if self._made_spaces else None)

    def counter_queries(self) -> list[CounterQuery]:
        return stats.counter_queries()

    def placement(self, index: int) -> tuple[str, str]:
        data = [s for s, role in self.spaces.items() if role == "data"]
        if len(data) < 2:
            return "", ""  # the schema's default tablespace
        return "", f" TABLESPACE {data[index % len(data)]}"

    def data_paths(self) -> dict[str, list[str]]:
        return self._paths() if self._made_spaces else {}

    def server_settings(self) -> dict[str, Any]:
        return {}

    def describe(self) -> dict[str, Any]:
        out = super().describe()
        out["tablespaces"] = dict(self.spaces)
        advice = space.redo_advice(self.settings.instance, self._paths().get("log") or [])
        if advice:
            out["redo_advice"] = advice
        out["verified"] = VERIFIED
        return out

"""Microsoft SQL Server, external only: a marked database on a server the user runs.

`--dsn mssql://user@host:1433/database` (or DBSTOR_DSN), the password in
DBSTOR_MSSQL_PASSWORD (engines/sqlserver_dsn.py). dbstor creates database `dbstor`
(`dbstor_<n>`) holding a marker table, works only there and drops only it. With target
paths (a server on this host, or the server's own paths), the database is laid out as the
seeds laid theirs: the primary file on the first data path, one filegroup per further data
path (tables placed round-robin with ON [filegroup]), the log on the log path; tempdb is
the server's own and is only advised on (describe()). Connections are pymssql (FreeTDS in
its wheel), autocommit off, %s placeholders. Counters: engines/sqlserver_stats.py.

Verified here: the SQL is parsed by sqlglot and the counters' arithmetic is tested on
recorded output of the views; it has not run against a live SQL Server on this machine.
"""

from __future__ import annotations

import importlib.util
import time
from pathlib import Path
from typing import Any, ClassVar

from dbstor.engines.base import (
    MARKER_TABLE,
    Availability,
    EngineCounters,
    ErrorKind,
    ObjectIO,
    mask_dsn,
)
from dbstor.engines.network import NoAnswer, answer_within, timed_out_note
from dbstor.engines.probes import CounterQuery
from dbstor.engines.server import ServerEngine, import_driver
from dbstor.engines.sqlserver_dsn import EXAMPLE, PASSWORD_ENV, dsn_address, parse_dsn, secrets
from dbstor.engines.sqlserver_stats import (
    NEEDS,
    PERF_SQL,
    VERSION_SQL,
    WAITS_SQL,
    buffer_counters,
    counter_queries,
    file_objects,
    file_stats_sql,
    perf_values,
    waits,
    window_figures,
)
from dbstor.engines.window import Edge
from dbstor.errors import UserError

VERIFIED = "SQL parsed and counters tested on recorded output; not run against a live server here"
RETRY_CODES = {1205, 1222, 3960}  # deadlock victim, lock request timeout, snapshot conflict
LOST_CODES = {20003, 20004, 20006, 20009, 20047}  # timeout, read/write failed, no server, dead
FATAL_CODES = LOST_CODES | {9002, 1105, 6005, 18456, 4060, 823, 824}  # log/filegroup full, ...
USER_CONNECT_S = 30


def _pymssql() -> Any:
    return import_driver(
        "pymssql",
        "SQL Server needs the pymssql driver, which is not installed: pip install 'dbstor[sqlserver]'",
    )


def _parts(exc: BaseException) -> tuple[Any, ...]:
    """(number, message) of a pymssql error: its one argument is that pair."""
    args = exc.args
    return tuple(args[0]) if len(args) == 1 and isinstance(args[0], tuple) else tuple(args)


def error_code(exc: BaseException) -> int | None:
    """The SQL Server or DB-Library message number of a pymssql error."""
    parts = _parts(exc)
    code = parts[0] if parts else None
    return code if isinstance(code, int) else None


def driver_line(exc: BaseException) -> str:
    """The telling part of a pymssql error: its message lines without FreeTDS's
    'DB-Lib error message N, severity S:' headers, repeats dropped, joined by '; '."""
    parts = _parts(exc)
    raw = parts[1] if len(parts) > 1 else (parts[0] if parts else exc)
    text = raw.decode(errors="replace") if isinstance(raw, bytes) else str(raw)
    lines: list[str] = []
    for line in (ln.strip() for ln in text.splitlines()):
        if line and not line.startswith("DB-Lib error message") and line not in lines:
            lines.append(line)
    return "; ".join(lines[:2]) or type(exc).__name__


def quoted(name: str) -> str:
    """A T-SQL identifier in brackets (a ']' doubled)."""
    return "[" + name.replace("]", "]]") + "]"


def create_database_sql(database: str, paths: dict[str, list[Path]]) -> str:
    """CREATE DATABASE with the seeds' layout: the primary file on the first data path, a
    filegroup `<database>_dK` with one file on each further data path, the log on the log
    path; the server's defaults for what the target does not name."""

    def spec(name: str, where: Path, ext: str) -> str:
        path = str(Path(where).absolute() / f"{name}.{ext}").replace("'", "''")
        return f"(NAME = N'{name}', FILENAME = N'{path}')"

    data = paths.get("data") or []
    parts = [f"CREATE DATABASE {quoted(database)}"]
    if data:
        files = [f"PRIMARY {spec(f'{database}_d0', data[0], 'mdf')}"]
        files += [
            f"FILEGROUP {quoted(f'{database}_d{k}')} {spec(f'{database}_d{k}', p, 'ndf')}"
            for k, p in enumerate(data[1:], 1)
        ]
        parts.append("ON " + ", ".join(files))
    if paths.get("log"):
        parts.append(f"LOG ON {spec(f'{database}_log', paths['log'][0], 'ldf')}")
    return " ".join(parts)


class SqlServerEngine(ServerEngine):
    """SQL Server through pymssql, on an external server behind a DSN."""

    name = "sqlserver"
    title = "SQL Server"
    dialect = "tsql"
    paramstyle = "pyformat"  # pymssql: %s placeholders
    driver = "pymssql"
    dsn_form: ClassVar[str] = "mssql://{user}@{host}:{port}/"
    password_env: ClassVar[str | None] = PASSWORD_ENV
    connect_bound: ClassVar[str] = "login_timeout"
    file_stats_query = file_stats_sql("dbstor")
    verified: ClassVar[str] = VERIFIED  # what was verified where (dbstor engines, results)
    grant_hint: ClassVar[str] = (
        "grant the login CREATE ANY DATABASE (and VIEW SERVER STATE for the counters)"
    )

    def __init__(self, settings: Any):
        super().__init__(settings)
        n = settings.instance
        self.database = "dbstor" if n == 0 else f"dbstor_{n}"

    @property
    def workspace(self) -> str:
        return self.database

    @classmethod
    def availability(cls) -> Availability:
        if importlib.util.find_spec("pymssql") is None:
            return Availability(
                False,
                f"the pymssql driver is missing: pip install 'dbstor[sqlserver]'; {cls.verified}",
            )
        return Availability(
            True,
            f"pymssql found: external servers only (--dsn {EXAMPLE}); {cls.verified}",
            managed=False,
        )

    def _start_managed(self) -> None:
        raise UserError(f"dbstor does not run SQL Server itself: give --dsn {EXAMPLE}")

    def _installed_version(self) -> str | None:
        return None

    def server_settings(self) -> dict[str, Any]:
        return {}

    # --- the DSN and connections ------------------------------------------------------------

    def _args(self) -> dict[str, Any]:
        return parse_dsn(self.settings.dsn or "")

    def check_dsn(self) -> None:
        """The DSN parses, names a login and a password is at hand; nothing is contacted."""
        if not self._args()["password"]:
            raise UserError(
                f"no password for {mask_dsn(self.settings.dsn or '')}: set {PASSWORD_ENV} "
                "(never in the command line)"
            )

    def server_address(self) -> str:
        return dsn_address(self.settings.dsn or "")

    def _open(self, database: str | None, autocommit: bool, timeout: int, user_error: bool) -> Any:
        """A pymssql connection; a failure is one UserError line (host:port, never the
        password) unless `user_error` is False (connect(): the driver's own, for classify())."""
        pymssql = _pymssql()
        args = self._args()
        args.setdefault("login_timeout", timeout)
        if database:
            args["database"] = database
        bound = float(args["login_timeout"])
        try:
            return answer_within(
                bound,
                lambda: pymssql.connect(**args, autocommit=autocommit, appname="dbstor"),
                "login_timeout",
            )
        except (pymssql.Error, NoAnswer) as exc:
            if not user_error:
                raise
            hidden = timed_out_note(self._hide(exc), bound, "login_timeout")
            raise UserError(
                f"cannot connect to SQL Server at {self.server_address()}: {hidden}; "
                f"check the DSN, the password ({PASSWORD_ENV}) and that the server runs"
            ) from None

    def _admin(self, timeout: int = 10) -> Any:
        return self._open(None, autocommit=True, timeout=timeout, user_error=True)

    def connect(self) -> Any:
        """A pymssql connection, autocommit off, in dbstor's database."""
        return self._open(self.database, autocommit=False, timeout=USER_CONNECT_S, user_error=False)

    def _driver_error(self) -> type[Exception]:
        return _pymssql().Error

    def _hide(self, exc: BaseException) -> str:
        secret = secrets(self._args()) if self.settings.dsn else []
        line = driver_line(exc)
        for s in secret:
            line = line.replace(s, "***")
        return mask_dsn(line)

    def _connection_lost(self, exc: BaseException) -> bool:
        pymssql = _pymssql()
        return isinstance(exc, pymssql.InterfaceError) or error_code(exc) in LOST_CODES

    def _read_version(self, conn: Any) -> None:
        cur = conn.cursor()
        cur.execute(VERSION_SQL)
        number, text = cur.fetchone()
        first = str(text).splitlines()[0].strip() if text else ""
        self._version = f"{number} ({first})" if first else str(number)

    # --- dbstor's database ------------------------------------------------------------------

    def _run(self, conn: Any, sql: str, params: Any = None) -> list[tuple[Any, ...]]:
        cur = conn.cursor()
        cur.execute(sql, params)
        rows = list(cur.fetchall()) if cur.description else []
        cur.close()
        return rows

    def _workspace_exists(self, conn: Any) -> bool:
        return bool(
            self._run(conn, "SELECT 1 FROM sys.databases WHERE name = %s", (self.database,))
        )

    def _marked(self, conn: Any) -> bool:
        db = quoted(self.database)
        table = f"{db}.dbo.{MARKER_TABLE}"
        if self._run(conn, "SELECT OBJECT_ID(%s, 'U')", (table,))[0][0] is None:
            return False
        rows = self._run(conn, f"SELECT COUNT(*) FROM {table} WHERE created_by = 'dbstor'")
        return bool(rows[0][0])

    def _create_workspace(self, conn: Any) -> None:
        self._run(conn, create_database_sql(self.database, self.settings.paths))

    def _mark_workspace(self, conn: Any) -> None:
        table = f"{quoted(self.database)}.dbo.{MARKER_TABLE}"
        self._run(
            conn,
            f"CREATE TABLE {table} (created_by VARCHAR(32) NOT NULL, "
            "created_at DATETIME2 NOT NULL DEFAULT SYSUTCDATETIME(), instance INT)",
        )
        self._run(
            conn,
            f"INSERT INTO {table} (created_by, instance) VALUES ('dbstor', %s)",
            (self.settings.instance,),
        )

    def _drop_workspace(self, conn: Any) -> None:
        db = quoted(self.database)
        self._run(conn, f"ALTER DATABASE {db} SET SINGLE_USER WITH ROLLBACK IMMEDIATE")
        self._run(conn, f"DROP DATABASE {db}")

    # --- statistics -------------------------------------------------------------------------

    def _buffer_counters(self) -> tuple[float | None, float | None, float | None]:
        """The buffer manager's page lookups, page reads and page writes (server-wide,
        cumulative "/sec" counters: the window's figures are their difference)."""
        return buffer_counters(perf_values(self.query(PERF_SQL)))

    def counters(self) -> EngineCounters:
        """The buffer manager's counters, and as the edge of the engine's own window figures
        the same reading with the wait statistics; none, with the reason, when they cannot
        be read."""
        out = EngineCounters()
        try:
            values = perf_values(self.query(PERF_SQL))
            out.logical_reads, out.physical_reads, out.physical_writes = buffer_counters(values)
            out.edge = Edge(time.monotonic(), (values, waits(self.query(WAITS_SQL))))
        except (self._driver_error(), UserError) as exc:
            why = f"the server's statistics could not be read: {self._hide(exc)} (grant {NEEDS})"
            out.edge = Edge(time.monotonic(), None, why)
        out.storage_read_bytes, out.storage_write_bytes = self.storage_io()
        return out

    def window_figures(self, before: EngineCounters, after: EngineCounters) -> dict[str, Any]:
        """sys.dm_os_wait_stats' I/O waits, batch requests and hit ratio over the window."""
        return window_figures(before.edge, after.edge)

    def object_io(self) -> list[ObjectIO]:
        """Per file of dbstor's database (data files by filegroup, the log), cumulative
        since the database came online: reads, writes, bytes and stall."""
        return file_objects(self.query(file_stats_sql(self.database)))

    def counter_queries(self) -> list[CounterQuery]:
        return counter_queries(self.database)

    def classify(self, exc: BaseException) -> str:
        code = error_code(exc)
        if code in RETRY_CODES:
            return ErrorKind.RETRY
        if code in FATAL_CODES or isinstance(exc, _pymssql().InterfaceError):
            return ErrorKind.FATAL
        return ErrorKind.ERROR

    def placement(self, index: int) -> tuple[str, str]:
        data = self.settings.paths.get("data") or []
        k = index % len(data) if len(data) > 1 else 0
        return ("", f" ON {quoted(f'{self.database}_d{k}')}") if k else ("", "")

    def describe(self) -> dict[str, Any]:
        out = super().describe()
        temp = self.settings.paths.get("temp")
        out["verified"] = self.verified
        out["tempdb"] = (
            "dbstor does not move tempdb (the server's own); as the seeds did, give it files "
            f"on {temp[0]}: ALTER DATABASE tempdb MODIFY FILE, then restart the server"
            if temp
            else "tempdb stays where the server keeps it"
        )
        return out

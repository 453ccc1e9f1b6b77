"""PostgreSQL: a managed cluster on the target paths, or a marked schema on an external server.

Managed: initdb in <data>/dbstor-pg-<n>/data, WAL in <log>/dbstor-pg-<n>/wal, a temp
tablespace in <temp>/dbstor-pg-<n>/temp, tablespaces dbstor_d1..dN on the other data paths;
the server listens on 127.0.0.1 at a free port and on a socket in a private directory, as an
unprivileged account when dbstor runs as root. External: schema `dbstor` (`dbstor_<n>`) with
a marker table in the DSN's database; only that schema is ever dropped. psycopg 3
connections (autocommit off), %s placeholders. See docs/engines.md."""

from __future__ import annotations

import importlib.util
import signal
from functools import partial
from pathlib import Path
from typing import Any, ClassVar

from dbstor.engines import postgres_stats as stats
from dbstor.engines.account import run_as
from dbstor.engines.base import (
    MARKER_TABLE,
    ROLES,
    Availability,
    EngineSettings,
    ErrorKind,
    ObjectIO,
    mask_dsn,
)
from dbstor.engines.messages import hide, last_line
from dbstor.engines.network import NoAnswer, answer_within, timed_out_note
from dbstor.engines.owned_dirs import refuse_running
from dbstor.engines.place import place_dirs
from dbstor.engines.postgres_binaries import binary_version, find_bindir
from dbstor.engines.postgres_dsn import connect_bound, connect_bounds, dsn_address, dsn_secrets
from dbstor.engines.postgres_place import create_spaces, place
from dbstor.engines.probes import CounterQuery
from dbstor.engines.server import ServerEngine, import_driver
from dbstor.errors import UserError

SUPERUSER = DATABASE = "dbstor"
DEFAULT_BUFFER_BYTES = 32 << 20
MAX_CONNECTIONS, CONNECTIONS_SPARE = 600, 64  # at least; or the run's users and a spare
RETRY_STATES = {"40001", "40P01", "55P03"}  # serialization, deadlock, lock_not_available
FATAL_STATES = {"53100", "58030", "XX001", "XX002"}  # disk full, I/O error, corruption


def _psycopg() -> Any:
    return import_driver(
        "psycopg",
        "PostgreSQL needs psycopg 3, which is not installed: pip install 'dbstor[postgres]'",
    )


class PostgresEngine(ServerEngine):
    """PostgreSQL through psycopg 3: managed on the target paths, or external via a DSN."""

    name = "postgres"
    title = "PostgreSQL"
    dialect = "postgres"
    paramstyle = "pyformat"  # psycopg: %s (and %(name)s) placeholders
    driver = "psycopg"
    file_stats_query = stats.STATS_SQL  # parameters: {"schema": ...}; reads are blocks
    placeable = ("table", "index")
    accounts: ClassVar[tuple[str, ...]] = ("postgres",)
    stop_signal: ClassVar[signal.Signals] = signal.SIGINT  # = pg_ctl stop -m fast
    workspace_kind: ClassVar[str] = "schema"
    workspace_place: ClassVar[str] = "in"
    grant_hint: ClassVar[str] = "grant the user CREATE on the database"
    shm_prefix: ClassVar[str | None] = "PostgreSQL."  # dynamic shared memory (posix)
    checkpoint_statement: ClassVar[str | None] = "CHECKPOINT"
    commit_probe: ClassVar[str | None] = "SELECT txid_current()"  # an xid: a WAL commit record
    placer = staticmethod(place)
    dsn_form: ClassVar[str] = "postgresql://{user}:{password}@{host}:{port}/postgres"

    def __init__(self, settings: EngineSettings):
        super().__init__(settings)
        n = settings.instance
        self.schema = "public" if self.managed else ("dbstor" if n == 0 else f"dbstor_{n}")
        self._server_num = 0

    @property
    def workspace(self) -> str:
        return self.schema

    @classmethod
    def availability(cls) -> Availability:
        if importlib.util.find_spec("psycopg") is None:
            return Availability(
                False, "the psycopg driver is missing: pip install 'dbstor[postgres]'"
            )
        bindir = find_bindir()
        if bindir is None:
            return Availability(
                True,
                "psycopg found but no PostgreSQL server binaries: external servers "
                "only (apt-get install postgresql for managed ones)",
                managed=False,
            )
        return Availability(True, f"PostgreSQL {binary_version(bindir)} in {bindir}")

    def instance_dirs(self) -> list[Path]:
        name, paths = f"dbstor-pg-{self.settings.instance}", self.settings.paths
        firsts = [Path(p[0]) for role in ROLES if (p := paths.get(role))]
        return [(p / name).absolute() for p in firsts + list(paths.get("data", [])[1:])]

    def check_target(self) -> None:
        super().check_target()
        if self.managed and (dirs := self.instance_dirs()):  # a server left running there
            pidfile = dirs[0] / "data" / "postmaster.pid"
            refuse_running(pidfile, dirs[0], [b"postgres"], "a PostgreSQL server", "kill -INT")

    def _start_managed(self) -> None:
        sql = _psycopg().sql
        bindir = find_bindir()
        if bindir is None:
            raise UserError(
                "PostgreSQL server binaries not found under /usr/lib/postgresql/*/bin "
                "or on PATH: apt-get install postgresql"
            )
        name, paths = f"dbstor-pg-{self.settings.instance}", self.settings.paths
        self.check_target()
        account, home = self.prepare(name)
        dirs = self.dirs
        assert dirs is not None
        self.datadir = home / "data"  # initdb creates it, and the WAL directory
        wal = dirs.claim(paths["log"][0], name, "log") / "wal" if paths.get("log") else None
        temp = self.role_subdir("temp", name, "temp")
        spaces = [
            dirs.subdir(dirs.claim(p, name, "data"), f"ts{k}")
            for k, p in enumerate(paths["data"][1:], 1)
        ]
        self.place_dirs = place_dirs(self, name)  # a tablespace per role place names
        self.roles = {
            "data": [self.datadir, *spaces],
            "log": [wal] if wal else [],
            "temp": [temp] if temp else [],
        }
        for role, where in self.place_dirs.items():
            self.roles.setdefault(role, []).append(where)
        cmd = [
            str(bindir / "initdb"),
            "-D",
            str(self.datadir),
            "-U",
            SUPERUSER,
            "-E",
            "UTF8",
            "--no-locale",
            "--auth-local=trust",
            "--auth-host=scram-sha-256",
            "--no-sync",
            "--no-instructions",
        ]
        done = run_as([*cmd, *(["--waldir", str(wal)] if wal else [])], account, home)
        dirs.write(home / "initdb.log", done.stdout + done.stderr)
        if done.returncode != 0:
            raise UserError(
                f"initdb failed in {self.datadir}: {last_line(done.stderr or done.stdout)}; "
                "check that the data path is writable and has free space"
            )
        buffers = max(128 << 10, self.settings.buffer_bytes or DEFAULT_BUFFER_BYTES)
        conf = {
            "listen_addresses": "'127.0.0.1'",
            "port": self.port,
            "unix_socket_directories": f"'{self.sockdir}'",
            "max_connections": max(MAX_CONNECTIONS, self.settings.users + CONNECTIONS_SPARE),
            "shared_buffers": f"'{buffers // 1024}kB'",
            "fsync": "on",
            "full_page_writes": "on",
            "synchronous_commit": "on",
            "track_io_timing": "on",
            "log_line_prefix": "'%m [%p] '",
        }
        cap = self.settings.memory_limit_bytes
        if cap is not None:  # index builds of the load share the cap with the buffers
            conf["maintenance_work_mem"] = f"'{max(1024, min(64 << 10, cap // 8 // 1024))}kB'"
        with (self.datadir / "postgresql.conf").open("a", encoding="utf-8") as out:
            out.write("\n# dbstor\n" + "".join(f"{k} = {v}\n" for k, v in conf.items()))
        self.launch([str(bindir / "postgres"), "-D", str(self.datadir)], account, home)
        with self._server_admin() as conn:
            for space, where in [
                ("dbstor_temp", temp),
                *((f"dbstor_d{k}", p) for k, p in enumerate(spaces, 1)),
            ]:
                if where is not None:
                    conn.execute(
                        sql.SQL("CREATE TABLESPACE {} LOCATION {}").format(
                            sql.Identifier(space), sql.Literal(str(where))
                        )
                    )
            create_spaces(conn, self.place_dirs)
            conn.execute(f"CREATE DATABASE {DATABASE}")
            if temp is not None:
                conn.execute(f"ALTER DATABASE {DATABASE} SET temp_tablespaces = dbstor_temp")
            self._read_version(conn)

    def _workspace_exists(self, conn: Any) -> bool:
        query = "SELECT 1 FROM pg_namespace WHERE nspname = %s"
        return conn.execute(query, (self.schema,)).fetchone() is not None

    def _marked(self, conn: Any) -> bool:
        table = f'"{self.schema}".{MARKER_TABLE}'
        if conn.execute("SELECT to_regclass(%s)", (table,)).fetchone()[0] is None:
            return False
        return bool(
            conn.execute(f"SELECT count(*) FROM {table} WHERE created_by = 'dbstor'").fetchone()[0]
        )

    def _create_workspace(self, conn: Any) -> None:
        sql = _psycopg().sql
        conn.execute(sql.SQL("CREATE SCHEMA {}").format(sql.Identifier(self.schema)))

    def _mark_workspace(self, conn: Any) -> None:
        sql = _psycopg().sql
        schema, marker = sql.Identifier(self.schema), sql.Identifier(MARKER_TABLE)
        conn.execute(
            sql.SQL(
                "CREATE TABLE {}.{} (created_by text NOT NULL, created_at timestamptz "
                "NOT NULL DEFAULT now(), instance int)"
            ).format(schema, marker)
        )
        conn.execute(
            sql.SQL("INSERT INTO {}.{} (created_by, instance) VALUES ('dbstor', %s)").format(
                schema, marker
            ),
            (self.settings.instance,),
        )

    def _drop_workspace(self, conn: Any) -> None:
        sql = _psycopg().sql
        conn.execute(sql.SQL("DROP SCHEMA {} CASCADE").format(sql.Identifier(self.schema)))

    # --- connections ------------------------------------------------------------------------

    def _admin(self, timeout: int = 10, dbname: str = DATABASE) -> Any:
        return self._open(autocommit=True, timeout=timeout, dbname=dbname)

    def _server_admin(self, timeout: int = 10) -> Any:
        return self._admin(timeout, dbname="postgres")  # exists before dbstor's database

    def _open(
        self,
        autocommit: bool = False,
        timeout: int = 30,
        dbname: str = DATABASE,
        user_error: bool = True,
    ) -> Any:
        """A connection; failures are UserError (password scrubbed), or with `user_error`
        False the driver's own exception (connect(), for classify())."""
        psycopg = _psycopg()
        if self.managed:
            if self.sockdir is None:
                raise UserError("the PostgreSQL engine is not started")
            return psycopg.connect(
                host=str(self.sockdir),
                port=self.port,
                user=SUPERUSER,
                dbname=dbname,
                autocommit=autocommit,
                connect_timeout=timeout,
            )
        dsn = self.settings.dsn or ""
        bounds = connect_bounds(dsn, timeout)  # the user's own parameters win
        bound = connect_bound(dsn, timeout)
        try:
            opened = partial(psycopg.connect, dsn, autocommit=autocommit, **bounds)
            return answer_within(bound, opened, "connect_timeout")
        except (psycopg.Error, ValueError, NoAnswer) as exc:
            if not user_error:
                raise
            hidden = timed_out_note(self._hide(exc), bound, "connect_timeout")
            raise UserError(
                f"cannot connect to PostgreSQL at {mask_dsn(dsn)}: {hidden}; check the "
                "DSN, the password, and that the server runs and lets you in"
            ) from None

    def server_address(self) -> str:
        return dsn_address(self.settings.dsn or "")

    def _connection_lost(self, exc: BaseException) -> bool:
        state = getattr(exc, "sqlstate", None)
        if state:
            return str(state).startswith("08")
        psycopg = _psycopg()
        return isinstance(exc, (psycopg.InterfaceError, psycopg.OperationalError))

    def _driver_error(self) -> type[Exception]:
        return _psycopg().Error

    def _hide(self, exc: BaseException) -> str:
        return hide(str(exc), dsn_secrets(self.settings.dsn or ""))

    def connect(self) -> Any:
        """A psycopg connection, autocommit off, in dbstor's database (managed) or schema."""
        conn = self._open(user_error=False)
        if not self.managed:
            conn.execute(f'SET search_path TO "{self.schema}"')
            conn.commit()
        return conn

    def _read_version(self, conn: Any) -> None:
        row = conn.execute(
            "SELECT current_setting('server_version'), current_setting('server_version_num')::int"
        ).fetchone()
        self._version, self._server_num = str(row[0]).split()[0], int(row[1])

    def _installed_version(self) -> str | None:
        bindir = find_bindir()
        return binary_version(bindir) if bindir else None

    # --- statistics -------------------------------------------------------------------------

    def _buffer_counters(self) -> tuple[float | None, float | None, float | None]:
        """Block requests and misses (managed: dbstor's database, external: its schema) and
        buffers written (server-wide); backends report about once a second (a reading lags)."""
        q = stats.buffer_query(self._server_num, self.managed, DATABASE, self.schema)
        rows = self.query(q.sql, q.params)
        logical, physical, written = (float(v) for v in rows[0]) if rows else (None,) * 3
        return logical, physical, written

    def counter_queries(self) -> list[CounterQuery]:
        return stats.counter_queries(self._server_num, self.managed, DATABASE, self.schema)

    def object_io(self) -> list[ObjectIO]:
        """Per table (heap + TOAST + TOAST index) and per index: blocks read from outside
        shared buffers (page cache or storage), size, and where it lies (its tablespace's
        directory; the data directory for the default one, known for a managed server).
        PostgreSQL counts no block writes per relation, so writes are None."""
        block, q = int(self.query(stats.BLOCK_SIZE.sql)[0][0]), stats.objects_query(self.schema)
        default = str(self.datadir) if self.managed and self.datadir else None
        return stats.objects_from_rows(self.query(q.sql, q.params), block, default)

    def classify(self, exc: BaseException) -> str:
        state = getattr(exc, "sqlstate", None)
        if state in RETRY_STATES:
            return ErrorKind.RETRY
        if state and (state.startswith(("08", "57P")) or state in FATAL_STATES):
            return ErrorKind.FATAL
        psycopg = _psycopg()  # a statement ran: the driver is there
        if isinstance(exc, psycopg.InterfaceError) or (
            isinstance(exc, psycopg.OperationalError) and not state
        ):
            return ErrorKind.FATAL  # connection closed or lost, server gone
        return ErrorKind.ERROR

    def placement(self, index: int) -> tuple[str, str]:
        count = len(self.settings.paths.get("data") or []) if self.managed else 1
        k = index % count if count > 1 else 0
        return ("", f" TABLESPACE dbstor_d{k}") if k else ("", "")

    def server_settings(self) -> dict[str, Any]:
        return {
            "shared_buffers_bytes": self.settings.buffer_bytes or DEFAULT_BUFFER_BYTES,
            "fsync": "on",
            "full_page_writes": "on",
            "synchronous_commit": "on",
            "max_connections": max(MAX_CONNECTIONS, self.settings.users + CONNECTIONS_SPARE),
        }

    def managed_description(self) -> dict[str, Any]:
        return {"database": DATABASE, **super().managed_description()}

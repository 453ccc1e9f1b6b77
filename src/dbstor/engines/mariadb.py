"""MariaDB and MySQL: a managed server on the target paths, or a marked database on an external one.

Managed: a data directory in <data>/dbstor-mariadb-<n>/data, redo logs in
<log>/dbstor-mariadb-<n>/redo, tmpdir in <temp>/dbstor-mariadb-<n>/tmp, and tables placed
on the other data paths with DATA DIRECTORY='<path>/dbstor-mariadb-<n>-dK'. InnoDB opens its
data files with O_DIRECT; performance_schema is on for per-file I/O. The server listens on
127.0.0.1 at a free port and on a socket in a private directory, as the `mysql` account when
dbstor runs as root. External: mysql://user:PASSWORD@host:port/ - dbstor creates database
`dbstor` (`dbstor_<n>`) holding a marker table, works only there and drops only it.
Connections are mysqlclient's (C over libmariadb, autocommit off; engines/mariadb_connect.py);
workloads write %s placeholders.
"""

from __future__ import annotations

import importlib.util
import os
import re
import urllib.parse
from pathlib import Path
from typing import Any, ClassVar

from dbstor.engines import mariadb_connect as link
from dbstor.engines import mariadb_stats as stats
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
from dbstor.engines.mariadb_dsn import parse_dsn
from dbstor.engines.mariadb_place import place
from dbstor.engines.mariadb_server import (
    DEFAULT_BUFFER_BYTES,
    MAX_CONNECTIONS,
    binary_version,
    check_option_path,
    find_binary,
    my_cnf,
)
from dbstor.engines.messages import hide, last_line
from dbstor.engines.network import NoAnswer, address, timed_out
from dbstor.engines.owned_dirs import refuse_running
from dbstor.engines.place import place_dirs
from dbstor.engines.probes import CounterQuery
from dbstor.engines.server import PROBE_CONNECT_S, ServerEngine
from dbstor.errors import UserError
from dbstor.safefs import write_file


class MariaDBEngine(ServerEngine):
    """MariaDB through mysqlclient: managed on the target paths, or external via a DSN."""

    name = "mariadb"
    dsn_form: ClassVar[str] = "mysql://{user}:{password}@{host}:{port}/"
    title = "MariaDB"
    dialect = "mysql"
    paramstyle = "pyformat"  # mysqlclient: %s (and %(name)s) placeholders
    driver = "MySQLdb"  # mysqlclient's module
    file_stats_query = stats.FILE_STATS_SQL  # per file; timers in picoseconds
    placeable, place_limit = ("table",), "InnoDB keeps a table's indexes in the table's own file"
    placer = staticmethod(place)
    accounts: ClassVar[tuple[str, ...]] = ("mysql",)
    memory_headroom: ClassVar[int] = 352 << 20  # 10.11, 32 MiB pool: 312 MiB after a load
    server_names: ClassVar[tuple[str, ...]] = ("mariadbd", "mysqld")
    is_mariadb: ClassVar[bool] = True
    install_hint: ClassVar[str] = "apt-get install mariadb-server"
    grant_hint: ClassVar[str] = "grant the user CREATE and DROP on `{name}`"
    checkpoint_statement: ClassVar[str | None] = "FLUSH TABLES"  # InnoDB: pages on its own

    def __init__(self, settings: EngineSettings):
        super().__init__(settings)
        n = settings.instance
        self.database = "dbstor" if self.managed or n == 0 else f"dbstor_{n}"

    @property
    def workspace(self) -> str:
        return self.database

    @classmethod
    def find_server(cls) -> tuple[Path, str] | None:
        """(server binary, version) of this flavour, or None."""
        server = find_binary(cls.server_names)
        text = binary_version(server) if server else ""
        match = re.search(r"Ver\s+(\S+)", text)
        if server is None or match is None or (("MariaDB" in text) != cls.is_mariadb):
            return None
        return server, match.group(1)

    @classmethod
    def availability(cls) -> Availability:
        if importlib.util.find_spec(link.MODULE) is None:
            return Availability(False, link.MISSING)
        found = cls.find_server()
        if found is None:
            return Availability(
                True,
                f"mysqlclient found but no {cls.title} server binary: external servers "
                f"only ({cls.install_hint} for managed ones)",
                managed=False,
            )
        return Availability(True, f"{cls.title} {found[1]} at {found[0]}")

    # --- start and stop ---------------------------------------------------------------------

    def _extra_config(self) -> list[str]:
        return ["performance-schema-instrument='wait/io/file/%=ON'"]

    def _init_command(self, server: Path, cnf: Path) -> list[str]:
        tool = find_binary(("mariadb-install-db", "mysql_install_db"))
        if tool is None:
            raise UserError(f"mariadb-install-db not found: {self.install_hint}")
        return [
            str(tool),
            f"--defaults-file={cnf}",
            "--auth-root-authentication-method=normal",
            "--skip-test-db",
            "--skip-name-resolve",
        ]

    def instance_dirs(self) -> list[Path]:
        name, paths = f"dbstor-{self.name}-{self.settings.instance}", self.settings.paths
        firsts = [Path(p[0]) / name for role in ROLES if (p := paths.get(role))]
        extra = [Path(p) / f"{name}-d{k}" for k, p in enumerate(paths.get("data", [])[1:], 1)]
        return [p.absolute() for p in firsts + extra]

    def check_target(self) -> None:
        for role, paths in self.settings.paths.items() if self.managed else ():
            for path in paths:  # into my.cnf and DATA DIRECTORY as written, or refused
                check_option_path(path, f"the {role} path")
        super().check_target()
        if self.managed and (dirs := self.instance_dirs()):  # a server left running there
            pidfile = dirs[0] / "server.pid"
            refuse_running(pidfile, dirs[0], [b"mysqld", b"mariadbd"], "a server", "kill")

    def _start_managed(self) -> None:
        link.driver()
        found = self.find_server()
        if found is None:
            raise UserError(
                f"{self.title} server ({', '.join(self.server_names)}) not found: {self.install_hint}"
            )
        server, self._version = found
        name, paths = f"dbstor-{self.name}-{self.settings.instance}", self.settings.paths
        self.check_target()
        account, home = self.prepare(name)
        dirs = self.dirs
        assert dirs is not None and self.sockdir is not None
        self.datadir = dirs.subdir(home, "data", 0o750)
        redo = self.role_subdir("log", name, "redo")
        tmp = self.role_subdir("temp", name, "tmp")
        extra = [dirs.claim(p, f"{name}-d{k}", "data") for k, p in enumerate(paths["data"][1:], 1)]
        self.roles = {
            "data": [self.datadir, *extra],
            "log": [redo] if redo else [],
            "temp": [tmp] if tmp else [],
        }
        self.place_dirs = place_dirs(self, name)  # DATA DIRECTORY of the tables placed
        for role, where in self.place_dirs.items():
            self.roles.setdefault(role, []).append(where)
        buffers = max(8 << 20, self.settings.buffer_bytes or DEFAULT_BUFFER_BYTES)
        conf = my_cnf(
            self.datadir, self.sockdir, self.port, home, tmp, redo, buffers, self._extra_config()
        )
        cnf = home / "my.cnf"
        write_file(cnf, "\n".join(["[mysqld]", *conf, ""]), None, lambda fd: os.fchmod(fd, 0o644))
        done = run_as(self._init_command(server, cnf), account, home)
        write_file(home / "install-db.log", done.stdout + done.stderr, fix="choose another path")
        if done.returncode != 0:
            raise UserError(
                f"{self.title} data directory setup failed in {self.datadir}: "
                f"{last_line(done.stderr + done.stdout)}; check that the data path is writable "
                "and its file system supports O_DIRECT"
            )
        self.launch([str(server), f"--defaults-file={cnf}"], account, home)
        with self._admin() as conn:
            with conn.cursor() as cur:
                cur.execute(
                    "SELECT User, Host FROM mysql.user WHERE Host <> 'localhost' OR User = ''"
                )
                for user, host in cur.fetchall():  # passwordless root over TCP: socket only
                    cur.execute("DROP USER %s@%s", (user, host))
            self._create_workspace(conn)
            self._read_version(conn)

    def _workspace_exists(self, conn: Any) -> bool:
        with conn.cursor() as cur:
            query = "SELECT 1 FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = %s"
            cur.execute(query, (self.database,))
            return cur.fetchone() is not None

    def _marked(self, conn: Any) -> bool:
        with conn.cursor() as cur:
            cur.execute(
                "SELECT 1 FROM information_schema.TABLES WHERE TABLE_SCHEMA = %s AND TABLE_NAME = %s",
                (self.database, MARKER_TABLE),
            )
            if cur.fetchone() is None:
                return False
            cur.execute(
                f"SELECT COUNT(*) FROM `{self.database}`.{MARKER_TABLE} WHERE created_by = 'dbstor'"
            )
            return bool(cur.fetchone()[0])

    def _create_workspace(self, conn: Any) -> None:
        with conn.cursor() as cur:
            cur.execute(f"CREATE DATABASE `{self.database}`")

    def _mark_workspace(self, conn: Any) -> None:
        db = self.database
        with conn.cursor() as cur:
            cur.execute(
                f"CREATE TABLE `{db}`.{MARKER_TABLE} (created_by VARCHAR(32) NOT NULL, "
                "created_at TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP, instance INT)"
            )
            cur.execute(
                f"INSERT INTO `{db}`.{MARKER_TABLE} (created_by, instance) VALUES ('dbstor', %s)",
                (self.settings.instance,),
            )

    def _drop_workspace(self, conn: Any) -> None:
        with conn.cursor() as cur:
            cur.execute(f"DROP DATABASE `{self.database}`")

    # --- connections ------------------------------------------------------------------------

    def _open(
        self,
        database: str | None,
        autocommit: bool = False,
        timeout: int = 30,
        user_error: bool = True,
    ) -> Any:
        """A connection; external failures are UserError (password scrubbed) unless
        `user_error` is False (connect(): the driver's exception, for classify())."""
        mysqldb = link.driver()
        if self.managed:
            if self.sockdir is None:
                raise UserError(f"the {self.title} engine is not started")
            args = {
                "unix_socket": str(self.sockdir / "mysqld.sock"),
                "user": "root",
                "password": "",
            }
        else:
            args = parse_dsn(self.settings.dsn or "")
        args.setdefault("connect_timeout", timeout)
        try:
            return link.connect(args, database, autocommit)
        except (mysqldb.MySQLError, NoAnswer) as exc:
            if self.managed or not user_error:
                raise
            said = link.connect_note(self._hide(exc), exc, float(args["connect_timeout"]))
            raise UserError(
                f"cannot connect to {self.title} at {mask_dsn(self.settings.dsn or '')}: "
                f"{said}; check the DSN, the password, and that the server runs"
            ) from None

    def server_address(self) -> str:
        args = parse_dsn(self.settings.dsn or "")
        return args.get("unix_socket") or address(args["host"], args["port"])

    def _connection_lost(self, exc: BaseException) -> bool:
        return link.lost(exc)

    def lost_server(self, exc: BaseException) -> str | None:
        """As every server engine words it; but libmariadb reports a connection the
        kernel's bounds ended (TCP_USER_TIMEOUT, engines/network.py) as a plain "Lost
        connection" (2013) without the errno, so one connect, bounded as a probe, tells
        a network gone silent (it times out: "stopped answering") from a closed one."""
        line = super().lost_server(exc)
        if line is None or timed_out(exc):
            return line
        try:
            self._server_admin(timeout=PROBE_CONNECT_S).close()
        except Exception as probe:
            if timed_out(probe) or link.timed_out_text(probe):
                return f"{self.title} at {self.server_address()} stopped answering"
        return line

    def _admin(self, timeout: int = 10) -> Any:
        return self._open(None, autocommit=True, timeout=timeout)

    def _driver_error(self) -> type[Exception]:
        return link.driver().MySQLError

    def _hide(self, exc: BaseException) -> str:
        secret = parse_dsn(self.settings.dsn).get("password", "") if self.settings.dsn else ""
        return hide(str(exc), [secret, urllib.parse.quote(secret)])

    def connect(self) -> Any:
        """A mysqlclient connection, autocommit off, in dbstor's database."""
        return self._open(self.database, user_error=False)

    def _read_version(self, conn: Any) -> None:
        with conn.cursor() as cur:
            cur.execute("SELECT VERSION()")
            self._version = str(cur.fetchone()[0])

    def _installed_version(self) -> str | None:
        found = self.find_server()
        return found[1] if found else None

    # --- statistics -------------------------------------------------------------------------

    def _buffer_counters(self) -> tuple[float | None, float | None, float | None]:
        """InnoDB buffer pool page requests, misses and pages flushed (server-wide)."""
        values = dict(self.query(stats.BUFFER.sql))
        found = (float(values[c]) if c in values else None for c in stats.COUNTERS)
        requests, misses, flushed = found
        return requests, misses, flushed

    def counter_queries(self) -> list[CounterQuery]:
        return stats.counter_queries(self.database)

    def object_io(self) -> list[ObjectIO]:
        """Per .ibd file of dbstor's database (a table with its indexes) and, when the server
        instruments it, the redo log, from performance_schema.file_summary_by_instance;
        without performance_schema, table sizes only (reads None)."""
        q = stats.sizes_query(self.database)
        sizes = {str(t): int(s) for t, s in self.query(q.sql, q.params)}
        if not int(self.query(stats.PERFORMANCE_SCHEMA.sql)[0][0]):
            return [ObjectIO(name=t, kind="table", size_bytes=s) for t, s in sorted(sizes.items())]
        rows = self.query(stats.FILES.sql)
        return stats.file_objects(rows, sizes, self.database, self.datadir, self.managed)

    def classify(self, exc: BaseException) -> str:
        if link.error_code(exc) in link.RETRY_CODES:
            return ErrorKind.RETRY
        if link.fatal(exc):  # lost or closed, shut down, disk full
            return ErrorKind.FATAL
        return ErrorKind.ERROR

    def placement(self, index: int) -> tuple[str, str]:
        data = (self.settings.paths.get("data") or []) if self.managed else []
        k = index % len(data) if len(data) > 1 else 0
        if not k:
            return "", ""
        directory = Path(data[k]).absolute() / f"dbstor-{self.name}-{self.settings.instance}-d{k}"
        return "", f" DATA DIRECTORY='{directory}'"

    def server_settings(self) -> dict[str, Any]:
        return {
            "innodb_buffer_pool_size": self.settings.buffer_bytes or DEFAULT_BUFFER_BYTES,
            "innodb_flush_method": "O_DIRECT",
            "innodb_flush_log_at_trx_commit": 1,
            "innodb_file_per_table": "ON",
            "max_connections": MAX_CONNECTIONS,
            "performance_schema": "ON",
        }


class MySQLEngine(MariaDBEngine):
    """Oracle MySQL through the same code: mysqld, initialised with --initialize-insecure."""

    name = "mysql"
    title = "MySQL"
    server_names: ClassVar[tuple[str, ...]] = ("mysqld",)
    is_mariadb: ClassVar[bool] = False
    install_hint: ClassVar[str] = (
        "install mysql-server from MySQL's apt repository (Debian's mysqld "
        "is MariaDB: use engine mariadb)"
    )

    def _extra_config(self) -> list[str]:
        return ["performance-schema-instrument='wait/io/file/%=ON'", "mysqlx=OFF", "skip-log-bin"]

    def _init_command(self, server: Path, cnf: Path) -> list[str]:
        return [str(server), f"--defaults-file={cnf}", "--initialize-insecure"]

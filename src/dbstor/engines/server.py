"""What the client/server engines share: a managed server on the target or an external one.

Managed: an unprivileged account (account.py), marked instance directories (owned_dirs.py),
a private socket directory and a free port, the server process (process.py) under a memory
cap (cgroup.py). External: a schema or database dbstor creates on the DSN's server and marks
with a row in MARKER_TABLE; one of that name without the marker is refused, and only a
marked one is ever dropped. Each engine supplies its SQL through the hooks below.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import signal
import tempfile
import threading
import time
from abc import abstractmethod
from pathlib import Path
from typing import Any, ClassVar

from dbstor import lifeline
from dbstor.engines import window
from dbstor.engines.account import Account, chown_tree, service_account
from dbstor.engines.base import MARKER_TABLE, EngineCounters, EngineSettings, mask_dsn
from dbstor.engines.cgroup import MemoryCap
from dbstor.engines.memory_flags import SERVER_HEADROOM, check_memory_flags, memory_flags
from dbstor.engines.network import lost_line
from dbstor.engines.owned_dirs import OwnedDirs, check_claimable
from dbstor.engines.process import ServerProcess, free_port, tree_io
from dbstor.engines.server_events import ServerLifecycle
from dbstor.errors import UserError
from dbstor.safefs import remove_tree


def import_driver(module: str, missing: str) -> Any:
    """The DB-API driver module; UserError `missing` (how to install it) when it is not."""
    try:
        return importlib.import_module(module)
    except ImportError:
        raise UserError(missing) from None


ADMIN_CONNECT_S = 10  # connect timeout of dbstor's own connections (statistics, cleanup)
PROBE_CONNECT_S = 2  # of a liveness probe, and of dbstor's own once a probe went unanswered


class ServerEngine(ServerLifecycle):
    """A client/server engine: a managed server process on the target, or an external one
    behind a DSN; a monitoring connection for counters; liveness; cleanup."""

    accounts: ClassVar[tuple[str, ...]] = ()  # distro accounts to run the server as (root)
    stop_signal: ClassVar[signal.Signals] = signal.SIGTERM  # a clean, fast shutdown
    workspace_kind: ClassVar[str] = "database"  # what dbstor makes on an external server
    workspace_place: ClassVar[str] = "at"  # "{kind} {name} already exists {place} {dsn}"
    grant_hint: ClassVar[str] = ""  # what the external user needs; {name}: the workspace
    shm_prefix: ClassVar[str | None] = None  # the managed server's /dev/shm segment names
    memory_headroom: ClassVar[int] = SERVER_HEADROOM  # a cap's least room beside the buffer
    # an external server's DSN ({user} {password} {host} {port}; password_env: where it is read
    # when not in the DSN) and the parameter bounding a connect: docs and DSN tests use them
    dsn_form: ClassVar[str] = ""
    password_env: ClassVar[str | None] = None
    connect_bound: ClassVar[str] = "connect_timeout"

    def __init__(self, settings: EngineSettings):
        super().__init__(settings)
        self.cap: MemoryCap = MemoryCap(self.name, settings.instance, settings.memory_limit_bytes)
        self.server = ServerProcess(self.cap, self.shm_prefix)
        self.port: int | None = None
        self.sockdir: Path | None = None
        self.datadir: Path | None = None
        self.roles: dict[str, list[Path]] = {}
        self.dirs: OwnedDirs | None = None
        self._version: str | None = None
        self._made = False  # external: dbstor's schema or database exists
        self._monitor: Any = None
        self._admin_wait = ADMIN_CONNECT_S  # PROBE_CONNECT_S after an unanswered probe
        self._lock = threading.Lock()
        self._launched: tuple[list[str], Account, Path] | None = None  # for restart()

    is_server: ClassVar[bool] = True

    def server_pids(self) -> list[int]:
        return self.server.pids() if self.managed else []

    # --- what each engine supplies ----------------------------------------------------------

    @abstractmethod
    def _start_managed(self) -> None:
        """Create the database on the target paths, start the server and wait for it."""

    @abstractmethod
    def _admin(self, timeout: int = 10) -> Any:
        """An autocommit connection for dbstor's own statements."""

    def _server_admin(self, timeout: int = 10) -> Any:
        """An autocommit connection that needs no dbstor database (probes, setup)."""
        return self._admin(timeout)

    @abstractmethod
    def _driver_error(self) -> type[Exception]:
        """The driver's base exception class (UserError when the driver is missing)."""

    @abstractmethod
    def _hide(self, exc: BaseException) -> str:
        """One line of a driver error with the DSN's password removed."""

    @abstractmethod
    def _read_version(self, conn: Any) -> None:
        """Remember the server's version, read over a connection."""

    @abstractmethod
    def _installed_version(self) -> str | None:
        """The version of the server binaries here, without starting them (None: none)."""

    @property
    @abstractmethod
    def workspace(self) -> str:
        """The schema or database dbstor works in."""

    @abstractmethod
    def _workspace_exists(self, conn: Any) -> bool: ...

    @abstractmethod
    def _marked(self, conn: Any) -> bool:
        """Whether the workspace holds dbstor's marker row."""

    @abstractmethod
    def _create_workspace(self, conn: Any) -> None: ...

    @abstractmethod
    def _mark_workspace(self, conn: Any) -> None:
        """Create the marker table in the workspace and write dbstor's row."""

    @abstractmethod
    def _drop_workspace(self, conn: Any) -> None: ...

    @abstractmethod
    def _buffer_counters(self) -> tuple[float | None, float | None, float | None]:
        """Cumulative (logical reads, physical reads, physical writes) of the buffer cache."""

    @abstractmethod
    def server_settings(self) -> dict[str, Any]:
        """The settings a managed server is started with, for results.json."""

    # --- start and stop ---------------------------------------------------------------------

    def start(self) -> None:
        try:
            self._start_managed() if self.managed else self._start_external()
        except BaseException:
            with contextlib.suppress(Exception):
                self.stop()
            raise

    def stop(self) -> None:
        self._close_monitor()
        if self.managed:
            self.server.stop(self.stop_signal)
            self.cap.remove()
            if self.sockdir is not None:
                remove_tree(self.sockdir)
                lifeline.forget_dir(self.sockdir)
                self.sockdir = None
            if self.dirs is not None and not self.settings.keep:
                self.dirs.remove()
        elif self._made and not self.settings.keep:
            self._made = False
            self._drop_external()

    def instance_dirs(self) -> list[Path]:
        """Each directory a managed start claims on the target paths (OwnedDirs.claim)."""
        return []

    def check_target(self) -> None:
        """Managed: each instance directory start() would claim, by owned_dirs' rules."""
        for path in self.instance_dirs() if self.managed else ():
            check_claimable(path, self.settings.allow_overwrite)

    def prepare(self, name: str) -> tuple[Account, Path]:
        """Managed start, first steps: the account, the instance directory on the first
        data path (`name`), a private socket directory and a free port."""
        data = self.settings.paths.get("data") or []
        if not data:
            raise UserError(f"the {self.name} engine needs a data path in the target")
        check_memory_flags(self.title, self.settings, self.memory_headroom)
        account = service_account(self.accounts)
        self.dirs = OwnedDirs(
            self.name,
            self.settings.instance,
            account,
            self.settings.allow_overwrite,
            keep=self.settings.keep,
        )
        home = self.dirs.claim(data[0], name, "data")
        short = "/tmp" if os.access("/tmp", os.W_OK) else None  # a socket path has ~100 bytes
        self.sockdir = Path(tempfile.mkdtemp(prefix=f"{name}-", dir=short))
        lifeline.watch_dir(self.sockdir)  # removed by the watcher if dbstor is killed
        chown_tree(self.sockdir, account)
        self.port = free_port()
        return account, home

    def role_subdir(self, role: str, name: str, sub: str) -> Path | None:
        """A new directory `sub`, owned by the account, in the instance directory `name` on
        the role's first path; None when the target has no path for the role."""
        paths = self.settings.paths.get(role)
        if not paths:
            return None
        assert self.dirs is not None
        return self.dirs.subdir(self.dirs.claim(paths[0], name, role), sub)

    def launch(self, cmd: list[str], account: Account, home: Path) -> None:
        """Start the server under the memory cap, logging to home/server.log, and wait until
        it takes connections."""
        self._launched = (list(cmd), account, home)
        self.cap.create()
        self.server.start(cmd, account, home, home / "server.log")
        try:
            self.server.wait_ready(self.probe, f"{self.title} on port {self.port}")
        except UserError as exc:
            given = memory_flags(self.settings)
            if not given:
                raise
            raise UserError(
                f"{exc}; it was started with {given}: try smaller values, e.g. --buffer 128MiB "
                "--memory-limit 2GiB"
            ) from None

    def _start_external(self) -> None:
        """Create and mark dbstor's workspace; refuse one of that name dbstor did not make."""
        errors = self._driver_error()
        what, dsn = f"{self.workspace_kind} {self.workspace}", mask_dsn(self.settings.dsn or "")
        with self._admin() as conn:
            self._read_version(conn)
            found = self._workspace_exists(conn)
            if found and not self._marked(conn):
                raise UserError(
                    f"{what} already exists {self.workspace_place} {dsn} and was not created by "
                    f"dbstor (no {MARKER_TABLE} row): drop it yourself or use another instance "
                    "number"
                )
            try:
                if found:
                    self._drop_workspace(conn)
                self._create_workspace(conn)
                self._made = True
                self._mark_workspace(conn)
            except errors as exc:
                raise UserError(
                    f"cannot create {what} at {dsn}: {self._hide(exc)}; "
                    + self.grant_hint.format(name=self.workspace)
                ) from None

    def _drop_external(self) -> None:
        """Drop dbstor's workspace, and only if it holds the marker."""
        errors = self._driver_error()
        try:
            with self._admin(self._admin_wait) as conn:
                if self._marked(conn):
                    self._drop_workspace(conn)
        except (errors, UserError) as exc:
            raise UserError(
                f"could not drop {self.workspace_kind} {self.workspace} at "
                f"{mask_dsn(self.settings.dsn or '')}: {self._hide(exc)}; drop it yourself"
            ) from None

    # --- liveness, monitoring, statistics ---------------------------------------------------

    def probe(self) -> bool:
        """Whether the server takes connections now. An external one that does not is
        remembered: dbstor's own connections then wait only PROBE_CONNECT_S to connect."""
        try:
            self._server_admin(timeout=PROBE_CONNECT_S).close()
            self._admin_wait = ADMIN_CONNECT_S
            return True
        except Exception:
            self._admin_wait = ADMIN_CONNECT_S if self.managed else PROBE_CONNECT_S
            return False

    def check_dsn(self) -> None:
        """External: the DSN parsed and its parameters checked as a connection would
        (server_address parses it), without connecting: UserError naming the parameter."""
        if not self.managed:
            self.server_address()

    def check_reachable(self) -> None:
        """External: connect once, so that an unreachable server or a wrong password is
        refused (UserError naming the server) before any folder or progress line."""
        if not self.managed:
            self._server_admin().close()

    def alive(self) -> bool:
        return self.server.alive() if self.managed else self.probe()

    def server_address(self) -> str:
        """Where the external server is: host:port (or a socket path), never a password."""
        return mask_dsn(self.settings.dsn or "")

    def _connection_lost(self, exc: BaseException) -> bool:
        """Whether a driver error says the connection broke (not a statement's error)."""
        return False

    def lost_server(self, exc: BaseException) -> str | None:
        if self.managed or not self._connection_lost(exc):
            return None
        return lost_line(self.title, self.server_address(), exc)

    def unanswered(self) -> str | None:
        if self.managed or self.probe():
            return None
        return f"{self.title} at {self.server_address()} stopped answering"

    def version(self) -> str:
        if self._version:
            return self._version
        return (self._installed_version() if self.managed else None) or "unknown"

    def query(self, sql: str, params: Any = None) -> list[tuple[Any, ...]]:
        """Rows of one statement on the monitoring connection (opened on first use)."""
        with self._lock:
            if self._monitor is None:
                self._monitor = self._admin(self._admin_wait)
            try:
                cur = self._monitor.cursor()
                cur.execute(sql, params)
                rows = list(cur.fetchall())
                cur.close()
                return rows
            except Exception:
                self._close_monitor(locked=True)
                raise

    def _close_monitor(self, locked: bool = False) -> None:
        with contextlib.nullcontext() if locked else self._lock:
            if self._monitor is not None:
                with contextlib.suppress(Exception):
                    self._monitor.close()
                self._monitor = None

    def counters(self) -> EngineCounters:
        """The buffer cache's counters (none when the server cannot be asked) and the
        managed server's /proc I/O bytes."""
        out = EngineCounters()
        with contextlib.suppress(self._driver_error(), UserError):
            out.logical_reads, out.physical_reads, out.physical_writes = self._buffer_counters()
        out.storage_read_bytes, out.storage_write_bytes = self.storage_io()
        own = window.kin_reader(type(self))
        if own is not None:  # the edge of the engine's own window figures
            try:
                out.edge = own.edge(self)
            except (self._driver_error(), UserError) as exc:
                why = f"{self.title}'s own statistics could not be read: {self._hide(exc)}"
                out.edge = window.Edge(time.monotonic(), None, why)
        return out

    def window_figures(
        self, before: EngineCounters, after: EngineCounters
    ) -> dict[str, Any] | None:
        own = window.kin_reader(type(self))
        return None if own is None else own.window_figures(before.edge, after.edge)

    def storage_io(self) -> tuple[float, float] | tuple[None, None]:
        """Bytes the managed server's processes read from and wrote to storage."""
        io = tree_io(self.server.pids()) if self.managed else None
        return (float(io[0]), float(io[1])) if io else (None, None)

    def data_paths(self) -> dict[str, list[str]]:
        if not self.managed:
            return {}
        return {role: [str(p) for p in paths] for role, paths in self.roles.items() if paths}

    def describe(self) -> dict[str, Any]:
        out = super().describe()
        out[self.workspace_kind] = self.workspace
        if self.managed:
            out.update(self.managed_description())
        return out

    def managed_description(self) -> dict[str, Any]:
        """What describe() adds for a managed server."""
        return {
            "port": self.port,
            "memory_cap": self.cap.describe(),
            "settings": self.server_settings(),
        }

"""The engine contract: what every database engine module provides.

An engine puts a real database on the storage under test. It is *managed* (dbstor creates
the database files on the target paths, starts what it needs, stops it and removes what it
created unless kept) or *external* (a DSN to a server the user runs; dbstor works only in
a schema it created and marked, and never drops anything else).

A new engine (SQL Server, Oracle, ...) needs: a dialect name (a package in dbstor/dialects/
holding the SQL the workloads emit for it; docs/architecture.md lists the files), a DB-API driver, a query for per-file or per-object I/O statistics, and error
classification (which errors to retry, which mean the server is gone).
"""

from __future__ import annotations

import contextlib
from abc import ABC, abstractmethod
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from dbstor.engines import window
from dbstor.engines.dsn_mask import mask_dsn
from dbstor.engines.page_cache import CacheDrop, drop_page_cache
from dbstor.engines.probes import CounterQuery
from dbstor.results.finite import checked_figure

if TYPE_CHECKING:
    from dbstor.engines.cgroup import MemoryCap
    from dbstor.engines.embedded_cap import EmbeddedCap

ROLES = ("data", "log", "temp", "fast")  # fast: a faster tier for the objects placed there
MARKER_TABLE = "dbstor_marker"  # every schema dbstor creates holds this table
TIMEOUT_SQLSTATE = "57014"  # canceling statement due to statement timeout
INTERRUPT_METHODS = ("interrupt", "cancel_safe", "cancel")  # sqlite3/DuckDB, psycopg, others


@dataclass(frozen=True)
class Availability:
    """Whether an engine can run here, and why (not)."""

    usable: bool
    reason: str  # what was found ("PostgreSQL 15.8 in /usr/lib/postgresql/15/bin") or why not
    planned: bool = False  # listed, not built yet
    managed: bool = True  # dbstor can run its own server (False: external servers only)


@dataclass
class EngineSettings:
    """How to create or reach one database instance."""

    paths: dict[str, list[Path]] = field(default_factory=dict)  # role (data|log|temp) -> paths
    dsn: str | None = None  # external engine: the server to use (may hold a password)
    instance: int = 0  # 0..N-1 when several instances run at once (ports, folder names)
    buffer_bytes: int | None = None  # the engine's own cache; small so the storage does work
    memory_limit_bytes: int | None = None  # cap a managed server's memory (cgroup) when set
    keep: bool = False  # leave what was created in place at the end
    allow_overwrite: bool = False  # reuse a non-empty directory dbstor did not create
    place: dict[str, str] = field(default_factory=dict)  # table/index glob -> role (place)
    users: int = (
        0  # the most virtual users the run will connect (a managed server's max_connections)
    )


COUNTER_NAMES = (
    "logical_reads",
    "physical_reads",
    "physical_writes",
    "storage_read_bytes",
    "storage_write_bytes",
)


@dataclass
class EngineCounters:
    """Cumulative engine counters; a point's figures are the difference of two readings."""

    logical_reads: float | None = None  # page/block requests
    physical_reads: float | None = None  # requests that missed the engine's cache
    physical_writes: float | None = None
    storage_read_bytes: float | None = None  # bytes the engine's processes read from storage
    storage_write_bytes: float | None = None
    why_null: dict[str, str] = field(default_factory=dict)  # a counter -> why it is null
    # The engine's own figures over the window (engines/window.py's shape), set by
    # Engine.over_window(); `edge` is its raw reading at one edge, never kept in results.
    window: dict[str, Any] | None = None
    edge: Any = field(default=None, repr=False, compare=False)

    def minus(self, before: EngineCounters) -> EngineCounters:
        """The figures of a point: a counter that went back (the server restarted, its
        statistics were reset) or is not finite gives null with the reason, never a
        negative count."""
        out = EngineCounters()
        for name in COUNTER_NAMES:
            a, b = getattr(self, name), getattr(before, name)
            if a is None or b is None:
                continue
            what = f"the engine's {name} (its counter went back: restarted or reset?)"
            value, why = checked_figure(a - b, what)
            setattr(out, name, value)
            if why:
                out.why_null[name] = why
        return out

    @property
    def hit_ratio(self) -> float | None:
        if self.logical_reads and self.physical_reads is not None:
            return max(0.0, 1.0 - self.physical_reads / self.logical_reads)
        return None


def sum_counters(parts: Iterable[EngineCounters]) -> EngineCounters:
    """Counters of several instances (or hosts) added; a counter one of them lacks is None."""
    parts = list(parts)
    total = EngineCounters()
    for name in COUNTER_NAMES:
        values = [getattr(p, name) for p in parts]
        setattr(total, name, None if any(v is None for v in values) else sum(values))
    for part in parts:
        total.why_null.update(part.why_null)
    total.window = window.merge(p.window for p in parts)
    return total


@dataclass
class ObjectIO:
    """Cumulative I/O of one table, index or file, for the placement advisor."""

    name: str
    kind: str  # table | index | file | log
    size_bytes: int | None = None
    reads: float | None = None
    writes: float | None = None
    read_bytes: float | None = None
    write_bytes: float | None = None
    read_stall_ms: float | None = None
    write_stall_ms: float | None = None
    # where its files are: a directory (PostgreSQL: its tablespace's) or a file (MariaDB's
    # .ibd), for the layout per path; None when the engine does not say
    path: str | None = None
    # rows inserted, updated and deleted, where the engine counts those but no block writes
    # per object (PostgreSQL's pg_stat_user_tables): write activity, not I/O
    rows_changed: float | None = None


class ErrorKind:
    RETRY = "retry"  # serialization failure, deadlock, busy: run the transaction again
    FATAL = "fatal"  # the server is gone or the connection broke: the point fails
    ERROR = "error"  # anything else: counted, the user goes on


class Engine(ABC):
    """One database instance on the target (managed) or behind a DSN (external)."""

    name: ClassVar[str]  # registry name, e.g. "postgres"
    title: ClassVar[str]  # "PostgreSQL"
    dialect: ClassVar[str]  # the SQL the workloads emit: sqlite | postgres | mysql | tsql | oracle
    paramstyle: ClassVar[str] = "qmark"  # DB-API paramstyle of connect()'s connections
    driver: ClassVar[str | None] = None  # Python package it needs (None: stdlib)
    file_stats_query: ClassVar[str | None] = None  # per-file/object I/O statistics, documented
    placeable: ClassVar[tuple[str, ...]] = ()  # kinds of objects place can move: table, index
    place_limit: ClassVar[str] = "it keeps the whole database in one place"  # why not others
    placer: ClassVar[Any] = None  # placer(engine, database, say): the engine's place_objects
    # What runs/, drivers/ and workloads/ ask of every engine (declared, never probed):
    is_server: ClassVar[bool] = False  # a client/server engine: takes a DSN, has a server
    memory_headroom: ClassVar[int] = 0  # a managed server's cap: least room beside its buffer
    cap: MemoryCap | None = None  # a managed server's memory cgroup (None: no server here)
    client_cap: EmbeddedCap | None = None  # an embedded engine's cap on its client processes

    def __init__(self, settings: EngineSettings):
        self.settings = settings
        self.placed: list[dict[str, Any]] = []  # where each object is, after place_objects()

    @classmethod
    @abstractmethod
    def availability(cls) -> Availability:
        """Usable here? Checks binaries and drivers; never starts anything."""

    @property
    def managed(self) -> bool:
        return self.settings.dsn is None

    def check_target(self) -> None:
        """Read-only: raise the UserError start() would raise about what is already on the
        target paths (someone else's file or directory where the database goes), so that a
        study refuses before any progress line or folder. Creates and changes nothing."""
        return None  # an engine with nothing on the target (an external server) checks nothing

    @abstractmethod
    def start(self) -> None:
        """Managed: create the database on the target paths and start it. External: connect,
        create and mark dbstor's schema. Bad input raises UserError (one line)."""

    @abstractmethod
    def connect(self) -> Any:
        """A new DB-API connection (one per virtual user), in dbstor's database or schema."""

    @abstractmethod
    def stop(self) -> None:
        """Stop what start() started; remove what it created unless settings.keep. Idempotent."""

    @abstractmethod
    def version(self) -> str: ...

    def alive(self) -> bool:
        """Whether the server still answers (managed servers: the process is running)."""
        return True

    def restart(self) -> None:
        """Restart the engine keeping its database files (stop() removes them), so that
        its own caches start empty: a query run's cold points. Connections opened before
        are unusable afterwards; open new ones. Raises NotImplementedError, saying why,
        when this engine cannot be restarted by dbstor (an external server)."""
        raise NotImplementedError(f"dbstor cannot restart {self.title}")

    # --- events inside a point (events/server_actions.py) ---------------------------------

    @classmethod
    def crash_refusal(cls, external: bool) -> str | None:
        """Why a `crash` event cannot kill this engine's server (None: it can); read by the
        study's checks before anything runs."""
        return f"{cls.title} runs inside dbstor's own processes: there is no server to kill"

    def crash(self) -> dict[str, Any]:
        """Kill the server (SIGKILL of its whole process tree, no shutdown) and start it
        again on its files, waiting until it takes connections; returns what happened
        (engines/crash.py's figures). Only called when crash_refusal() gave None."""
        raise NotImplementedError(f"dbstor cannot crash {self.title}")

    checkpoint_statement: ClassVar[str | None] = None  # the engine's own, e.g. CHECKPOINT

    @classmethod
    def checkpoint_refusal(cls, external: bool) -> str | None:
        """Why a `checkpoint` event cannot run on this engine (None: it can)."""
        if cls.checkpoint_statement is None:
            return f"{cls.title} has no checkpoint statement dbstor knows"
        return None

    def checkpoint(self) -> dict[str, Any]:
        """Run the engine's checkpoint statement on a connection of its own, to its end;
        returns the statement and any row it answered."""
        if self.checkpoint_statement is None:
            raise NotImplementedError(f"{self.title} has no checkpoint statement")
        connection = self.connect()
        try:
            cursor = connection.cursor()
            cursor.execute(self.checkpoint_statement)
            rows = cursor.fetchall() if cursor.description else []
            connection.commit()
        finally:
            with contextlib.suppress(Exception):
                connection.close()
        answer = [list(row) for row in rows[:1]]
        return {"statement": self.checkpoint_statement, "answer": answer[0] if answer else None}

    def cache_paths(self) -> list[Path]:
        """The database's files and directories, whose pages a cold point drops from the
        host's page cache (none for an external server: its cache is on its host)."""
        return [Path(p) for paths in self.data_paths().values() for p in paths]

    def drop_cache(self) -> CacheDrop:
        """Drop the database's files from the host's page cache (after restart())."""
        return drop_page_cache(self.cache_paths())

    def server_pids(self) -> list[int]:
        """A managed server's process tree (none: an external server, or an embedded engine,
        which runs in the client processes)."""
        return []

    def memory_caps(self) -> list[MemoryCap]:
        """The memory cgroups in force around this instance (its server's, or its client
        processes' with `given` the database's share), for a point's OOM figures."""
        caps = [self.cap] if self.cap is not None else []
        if self.client_cap is not None:
            self.client_cap.cap.given = self.client_cap.budget
            caps.append(self.client_cap.cap)
        return [c for c in caps if c.group is not None]

    def capped_settings(self) -> str | None:
        """The engine's own settings under a client memory cap, for the cap's description."""
        return None

    def detach(self, quiet: bool = False) -> None:
        """Let go of the database in this process (an embedded engine handing it to a capped
        client process; quiet: never raise). Only called when client_cap is in force."""
        raise NotImplementedError(f"{self.title} runs no capped client process")

    def attach(self, capped: bool = False) -> None:
        """Open the database in this process (capped: with the settings for the cap)."""
        raise NotImplementedError(f"{self.title} runs no capped client process")

    def check_dsn(self) -> None:
        """An external server's DSN that does not parse: UserError (nothing to check for an
        engine that takes no DSN)."""
        return None

    def check_reachable(self) -> None:
        """An external server that does not answer: UserError (nothing to reach otherwise)."""
        return None

    def interrupt(self, connection: Any) -> bool:
        """Stop the statement running on `connection` from another thread (DuckDB's and
        SQLite's interrupt(), psycopg's cancel); False when the driver has no way to."""
        method = self.interrupter(connection)
        if method is not None:
            with contextlib.suppress(Exception):
                method()
        return method is not None

    def interrupter(self, connection: Any) -> Any:
        """The connection's method that stops its running statement, or None (the DB-API
        drivers' names for it; an engine whose driver differs overrides this)."""
        for name in INTERRUPT_METHODS:
            method = getattr(connection, name, None)
            if callable(method):
                return method
        return None

    def timed_out(self, exc: BaseException) -> bool:
        """Whether `exc` is the server stopping a statement at its statement timeout (the
        SQLSTATE PostgreSQL gives it, 57014, read from the drivers that carry one)."""
        return getattr(exc, "sqlstate", None) == TIMEOUT_SQLSTATE

    def counters(self) -> EngineCounters:
        return EngineCounters()

    def object_io(self) -> list[ObjectIO]:
        return []

    def window_figures(
        self, before: EngineCounters, after: EngineCounters
    ) -> dict[str, Any] | None:
        """The engine's own figures between two counters() readings (their `edge`): waits
        per event, named rates and ratios, in engines/window.py's shape; None for an
        engine that has none."""
        return None

    def over_window(self, before: EngineCounters, after: EngineCounters) -> EngineCounters:
        """A point's counters: after minus before, with the engine's own window figures."""
        out = after.minus(before)
        out.window = self.window_figures(before, after)
        return out

    def counter_queries(self) -> list[CounterQuery]:
        """Every query counters() and object_io() run, with what each needs (for
        `dbstor engines --check`); empty for an engine whose counters need no query."""
        return []

    def place_objects(self, database: str, say: Any) -> list[dict[str, Any]]:
        """After the load: put the tables and indexes settings.place names on their role's
        path and return where every object is (object, kind, role, path, size_bytes).
        Engines that cannot place objects are refused before anything is created."""
        if self.placer is None:
            raise NotImplementedError(
                f"{self.title} cannot place single objects: {self.place_limit}"
            )
        return self.placer(self, database, say)

    def classify(self, exc: BaseException) -> str:
        """ErrorKind of an exception raised by a statement."""
        return ErrorKind.ERROR

    def unanswered(self) -> str | None:
        """For an external server that does not answer now: '<title> at host:port stopped
        answering'; else None (managed and embedded engines: always None)."""
        return None

    def lost_server(self, exc: BaseException) -> str | None:
        """When `exc` says the connection to an external server broke or timed out, what
        a point's error says first: the server (host:port, never a password) and that it
        stopped answering; else None."""
        return None

    def placement(self, index: int) -> tuple[str, str]:
        """Where table number `index` goes when the data role has several paths, round-robin:
        a prefix for the table's and its indexes' names in CREATE statements and a suffix for
        CREATE TABLE. SQLite: ('d2.', ''); PostgreSQL: ('', ' TABLESPACE dbstor_d2');
        MariaDB: ('', " DATA DIRECTORY='/path'"). One data path: ('', '')."""
        return "", ""

    def data_paths(self) -> dict[str, list[str]]:
        """Where the database's files are, by role (for results and `dbstor efficiency`)."""
        return {role: [str(p) for p in paths] for role, paths in self.settings.paths.items()}

    def describe(self) -> dict[str, Any]:
        """For results.json "engine": never a password."""
        return {
            "name": self.name,
            "title": self.title,
            "version": self.version(),
            "managed": self.managed,
            "dsn": mask_dsn(self.settings.dsn) if self.settings.dsn else None,
            "buffer_bytes": self.settings.buffer_bytes,
            "memory_limit_bytes": self.settings.memory_limit_bytes,
        } | ({"placement": self.placed} if self.placed else {})

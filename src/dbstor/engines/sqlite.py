"""SQLite, embedded: the default engine. Needs nothing but Python.

The database is 8K-page files on the target's data paths: main on the first, and one
attached database per further path (d1, d2, ...), so tables can be spread over several
volumes as the seeds split theirs into several files. WAL mode with synchronous=FULL: every
commit writes and syncs the write-ahead log, which sits beside the main file (SQLite cannot
put it elsewhere, so a separate log path is not used). SQLite's own cache is kept small
(settings.buffer_bytes, 2 MiB by default) so that page reads go to the operating system;
whether the OS page cache or the storage served them shows in the counters, which come
from /proc/self/io: `rchar` (bytes SQLite read from files) against `read_bytes` (bytes the
kernel fetched from storage for this process).

With --memory-limit the processes that run SQLite sit in a memory cgroup (client_cap,
engines/embedded_cap.py): a transaction run's forked client processes, or a query run's
spawned client (drivers/capped_streams.py), which opens its own connections after the
spawn (attach(capped=True)). SQLite holds nothing open between connections and lets
several processes open its files, so detach() has nothing to hand over.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path
from typing import Any

from dbstor.engines.base import (
    Availability,
    Engine,
    EngineCounters,
    EngineSettings,
    ErrorKind,
    ObjectIO,
)
from dbstor.engines.embedded_cap import ENGINE_SHARE, EmbeddedCap
from dbstor.engines.process import proc_io, process_tree
from dbstor.engines.sqlite_place import place, place_files, place_schema
from dbstor.errors import UserError
from dbstor.safefs import remove_file
from dbstor.testfiles import (
    check_directory,
    is_owned,
    record_owned,
    refuse_foreign,
    remove_owned,
)

PAGE_SIZE = 8192
DEFAULT_CACHE_BYTES = 2 * 1024 * 1024
_RETRY = ("database is locked", "database table is locked", "busy")
_FATAL = (
    "disk i/o error",
    "malformed",
    "unable to open",
    "no such table",
    "readonly",
    "disk is full",
)


def _family_io() -> dict[str, int]:
    """/proc/<pid>/io of this process plus its living descendants (the client processes; a
    reaped child's counts are already in its parent's)."""
    total = proc_io()
    if not total:
        return {}
    for child in process_tree(os.getpid())[1:]:
        for key, value in proc_io(child).items():
            total[key] = total.get(key, 0) + value
    return total


class SQLiteEngine(Engine):
    name = "sqlite"
    title = "SQLite"
    dialect = "sqlite"
    checkpoint_statement = "PRAGMA wal_checkpoint(TRUNCATE)"  # answers (busy, log, checkpointed)
    paramstyle = "qmark"
    driver = None
    file_stats_query = "SELECT name, SUM(pgsize) FROM dbstat GROUP BY name"
    placeable = ("table",)  # an index lives in its table's schema (file)

    @classmethod
    def availability(cls) -> Availability:
        return Availability(True, f"SQLite {sqlite3.sqlite_version} (Python's sqlite3, embedded)")

    def __init__(self, settings: EngineSettings):
        super().__init__(settings)
        data = settings.paths.get("data") or []
        if settings.dsn:
            raise UserError("sqlite is embedded: it takes target paths, not a --dsn")
        if not data:
            raise UserError("sqlite needs a target directory for its database files (--target)")
        n = settings.instance
        self.files = [data[0] / f"dbstor-sqlite-{n}.db"] + [
            p / f"dbstor-sqlite-{n}-d{k}.db" for k, p in enumerate(data[1:], 1)
        ]
        self.place_files = place_files(settings, n)  # role -> file attached as place_<role>
        self.cache_bytes = settings.buffer_bytes or DEFAULT_CACHE_BYTES
        self._started = False
        limit = settings.memory_limit_bytes
        self.client_cap = EmbeddedCap(self.name, n, limit) if limit is not None else None
        self.capped = False  # this process is a capped client (attach(capped=True))

    def check_target(self) -> None:
        """The directories, and no link or someone else's file where a database file goes."""
        for directory in {f.parent for f in self.all_files}:
            check_directory(directory)
        for file in self.all_files:
            refuse_foreign([file, *self._sidecars(file)], self.settings.allow_overwrite)

    def start(self) -> None:
        self.check_target()
        for path in (p for f in self.all_files for p in (f, *self._sidecars(f))):
            remove_file(path)  # checked: dbstor's, or --allow-overwrite; never a link
        for file in self.all_files:
            conn = sqlite3.connect(file)
            conn.execute(f"PRAGMA page_size = {PAGE_SIZE}")
            conn.execute("PRAGMA journal_mode = WAL")
            conn.close()
            record_owned(file)
        self._started = True
        if self.client_cap is not None:
            self.client_cap.create()

    @property
    def all_files(self) -> list[Path]:
        """The database files: main, one per further data path, one per placed role."""
        return [*self.files, *self.place_files.values()]

    @property
    def schemas(self) -> list[str]:
        """Schema names of all_files, in the same order."""
        data = [f"d{k}" if k else "main" for k in range(len(self.files))]
        return data + [place_schema(role) for role in self.place_files]

    @staticmethod
    def _sidecars(file: Path) -> tuple[Path, ...]:
        """SQLite's side files: WAL mode's -wal and -shm, and the rollback -journal."""
        return tuple(file.with_name(file.name + end) for end in ("-wal", "-shm", "-journal"))

    def connect(self) -> sqlite3.Connection:
        conn = sqlite3.connect(self.files[0], timeout=30, check_same_thread=False)
        for schema, file in list(zip(self.schemas, self.all_files, strict=True))[1:]:
            conn.execute(f"ATTACH DATABASE ? AS {schema}", (str(file),))
        cache = self.capped_cache_bytes() if self.capped else None
        pages = max(16, (cache or self.cache_bytes) // PAGE_SIZE)
        for schema in self.schemas:
            conn.execute(f"PRAGMA {schema}.cache_size = {pages}")
            conn.execute(f"PRAGMA {schema}.synchronous = FULL")
        conn.execute("PRAGMA busy_timeout = 30000")
        return conn

    def capped_cache_bytes(self) -> int | None:
        """SQLite's cache a connection in a capped client process: the cache every
        connection gets (--buffer, else 2 MiB), at most three quarters of --memory-limit, so
        that the page cache of its files keeps room under the cap."""
        cap = self.client_cap
        return min(self.cache_bytes, int(cap.budget * ENGINE_SHARE)) if cap else None

    def capped_settings(self) -> str | None:
        """SQLite's own cache in the capped client, for the cap's description."""
        cache = self.capped_cache_bytes()
        return f"{self.title}'s own cache {cache / 2**20:,.0f} MiB a connection" if cache else None

    def detach(self, quiet: bool = False) -> None:
        """Nothing to hand over to a client process: SQLite keeps no database open between
        connections, and several processes may open its files at once."""

    def attach(self, capped: bool = False) -> None:
        """Open the database in this process (a client process built from the same
        settings): one connection reads every file's schema, so a database that is not
        there or does not open fails here. capped: connections from now on get
        capped_cache_bytes()."""
        self.capped = capped and self.client_cap is not None
        if not capped:
            return
        for file in self.all_files:  # sqlite3.connect would make an empty one
            if not file.is_file():
                raise FileNotFoundError(f"{self.title}'s database file {file} is not there")
        conn = self.connect()
        try:
            for schema in self.schemas:
                conn.execute(f"SELECT count(*) FROM {schema}.sqlite_master").fetchall()
        finally:
            conn.close()

    def stop(self) -> None:
        if self.client_cap is not None:
            self.client_cap.remove()
        if self.settings.keep or not self._started:
            return
        for file in self.all_files:
            if is_owned(file):
                for sidecar in self._sidecars(file):
                    remove_file(sidecar)
            remove_owned(file)
        self._started = False

    def version(self) -> str:
        return sqlite3.sqlite_version

    def restart(self) -> None:
        """Nothing to restart: SQLite runs inside each caller's connection, and its cache
        lives and dies with the connection. Close the connections, then drop_cache()."""

    def cache_paths(self) -> list[Path]:
        return [p for f in self.all_files for p in (f, *self._sidecars(f)) if p.exists()]

    def alive(self) -> bool:
        return all(f.exists() for f in self.all_files)

    def place_objects(self, database: str, say: Any) -> list[dict[str, Any]]:
        return place(self, database, say)

    def placement(self, index: int) -> tuple[str, str]:
        k = index % len(self.files)
        return (f"d{k}." if k else "", "")

    def counters(self) -> EngineCounters:
        """What this process and its client processes read and wrote: SQLite runs inside
        them (reads that reached the storage are physical, all reads logical)."""
        io = _family_io()
        if not io:
            return EngineCounters()
        return EngineCounters(
            logical_reads=io["rchar"] / PAGE_SIZE,
            physical_reads=io["read_bytes"] / PAGE_SIZE,
            storage_read_bytes=float(io["read_bytes"]),
            storage_write_bytes=float(io["write_bytes"]),
        )

    def object_io(self) -> list[ObjectIO]:
        """Table and index sizes (SQLite keeps no per-table I/O counters: reads are None)."""
        conn = self.connect()
        try:
            objects = []
            for schema in self.schemas:
                try:
                    rows = conn.execute(
                        f"SELECT d.name, m.type, SUM(d.pgsize) FROM dbstat(?) d JOIN {schema}.sqlite_master m ON m.name = d.name GROUP BY d.name, m.type",
                        (schema,),
                    ).fetchall()
                except sqlite3.OperationalError:
                    return []  # this SQLite was built without the dbstat table
                objects += [
                    ObjectIO(name=n, kind=t, size_bytes=int(s))
                    for n, t, s in rows
                    if not n.startswith("sqlite_")
                ]
            return objects
        finally:
            conn.close()

    def classify(self, exc: BaseException) -> str:
        text = str(exc).lower()
        if isinstance(exc, sqlite3.OperationalError) and any(s in text for s in _RETRY):
            return ErrorKind.RETRY
        if isinstance(exc, sqlite3.DatabaseError) and any(s in text for s in _FATAL):
            return ErrorKind.FATAL
        return ErrorKind.ERROR

    def data_paths(self) -> dict[str, list[str]]:
        placed = {role: [str(f)] for role, f in self.place_files.items()}
        return {"data": [str(f) for f in self.files], **placed}

    def describe(self) -> dict[str, Any]:
        info = super().describe()
        info.update(
            page_size=PAGE_SIZE,
            journal_mode="wal",
            synchronous="full",
            cache_bytes=self.cache_bytes,
            files=[str(f) for f in self.all_files],
            pid=os.getpid(),
        )
        if self.client_cap is not None:
            info["memory_cap"] = self.client_cap.describe()
        return info

"""DuckDB, embedded: a columnar analytical database in dbstor's own process.

The database is one file on the first data path (dbstor-duckdb-<n>.db) and, when the data
role has several paths, one attached file per further path (d1, d2, ...), so tables can be
spread over volumes as with SQLite; every connection searches main, d1, d2... so queries
name tables without a prefix. DuckDB's write-ahead log sits beside each file (<file>.wal).
Spilling (large hash joins, sorts) goes to a temp directory on the temp role's path when
given, else beside the database. DuckDB's buffer manager is capped by settings.buffer_bytes
(else settings.memory_limit_bytes, else DuckDB's default of 80% of RAM), at least 128 MiB:
the cap holds its working memory too, and below that queries fail instead of spilling. It
uses one thread per CPU.

DuckDB allows one read-write instance of a database file per process: the engine holds
one duckdb.connect() and hands each caller a cursor() of it (DuckDB's way to run several
connections at once in one process). restart() closes and reopens the instance (a cold
cache for the next query); connections handed out before it are closed by it.

With --memory-limit a memory cgroup holds the process that runs a query point's streams
(embedded_cap.py, drivers/capped_streams.py): detach() closes this process's instance and
a spawned process opens its own in the group with attach(capped=True). Counters are
/proc/self/io's bytes read from and written to storage (a reaped child's are added to it).
"""

from __future__ import annotations

import contextlib
import importlib
import os
import threading
from collections.abc import Iterator
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
from dbstor.engines.embedded_cap import EmbeddedCap, engine_share, evict_from_page_cache
from dbstor.engines.process import proc_io
from dbstor.errors import UserError
from dbstor.safefs import new_dir, remove_file, remove_tree, write_file
from dbstor.testfiles import check_directory, is_owned, record_owned, refuse_foreign, remove_owned

MISSING = "DuckDB's Python package is not installed: pip install 'dbstor[duckdb]'"
TEMP_MARKER = ".dbstor-duckdb-temp"
MIN_MEMORY_LIMIT = 128 << 20  # cache + working memory: below ~64 MiB TPC-H SF 1 queries fail
# Size of a table: its storage blocks (DuckDB's blocks are 256 KiB by default) as listed by
# pragma_storage_info; small segments share blocks, so this is an estimate.
TABLE_BLOCKS_SQL = (
    "SELECT count(DISTINCT b) FROM (SELECT block_id AS b FROM pragma_storage_info('{table}') "
    "WHERE persistent UNION ALL SELECT unnest(additional_block_ids) "
    "FROM pragma_storage_info('{table}') WHERE persistent)"
)
_RETRY = ("conflict", "serialization", "could not commit")


def interrupted_by_ctrl_c(exc: BaseException) -> bool:
    """DuckDB's Python client turns a SIGINT that arrives while the main thread runs a
    query into RuntimeError("Query interrupted") (an interrupt() from another thread is an
    InterruptException instead): Ctrl-C, which must not be counted as a failed query."""
    return type(exc) is RuntimeError and str(exc).strip().lower() == "query interrupted"


@contextlib.contextmanager
def ctrl_c_kept() -> Iterator[None]:
    """Re-raise Ctrl-C swallowed by DuckDB as the KeyboardInterrupt it was."""
    try:
        yield
    except RuntimeError as exc:
        if interrupted_by_ctrl_c(exc):
            raise KeyboardInterrupt from exc
        raise


def _duckdb() -> Any:
    try:
        return importlib.import_module("duckdb")
    except ImportError:
        raise UserError(MISSING) from None


def cpu_threads() -> int:
    """The CPUs this process may run on (DuckDB's worker threads)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


class DuckDBEngine(Engine):
    name = "duckdb"
    title = "DuckDB"
    dialect = "duckdb"
    checkpoint_statement = "CHECKPOINT"
    paramstyle = "qmark"
    driver = "duckdb"
    file_stats_query = TABLE_BLOCKS_SQL

    @classmethod
    def availability(cls) -> Availability:
        try:
            module = importlib.import_module("duckdb")
        except ImportError:
            return Availability(False, MISSING)
        version = getattr(module, "__version__", "unknown")
        return Availability(True, f"DuckDB {version} (Python duckdb, embedded)")

    def __init__(self, settings: EngineSettings):
        super().__init__(settings)
        data = settings.paths.get("data") or []
        if settings.dsn:
            raise UserError(
                "duckdb is embedded: it takes target paths (--target), not a --dsn; drop the --dsn"
            )
        if not data:
            raise UserError("duckdb needs a target directory for its database file (--target)")
        n = settings.instance
        self.files = [Path(data[0]) / f"dbstor-duckdb-{n}.db"] + [
            Path(p) / f"dbstor-duckdb-{n}-d{k}.db" for k, p in enumerate(data[1:], 1)
        ]
        temp_parent = (settings.paths.get("temp") or [data[0]])[0]
        self.temp_dir = Path(temp_parent) / f"dbstor-duckdb-{n}.tmp"
        requested = settings.buffer_bytes or settings.memory_limit_bytes
        self.memory_limit = max(requested, MIN_MEMORY_LIMIT) if requested else None
        self.threads = cpu_threads()
        limit = settings.memory_limit_bytes
        self.client_cap = EmbeddedCap(self.name, n, limit) if limit is not None else None
        self._db: Any = None
        self._lock = threading.Lock()
        self._made_temp = False
        self._started = False

    # --- start, restart, stop ---------------------------------------------------------------

    def check_target(self) -> None:
        """The directories; no link or someone else's file or spill directory in the way."""
        for directory in {f.parent for f in self.files} | {self.temp_dir.parent}:
            check_directory(directory)
        for file in self.files:
            refuse_foreign([file, self._wal(file)], self.settings.allow_overwrite)
        path = self.temp_dir
        if path.is_symlink() or (path.exists() and not path.is_dir()):
            raise UserError(f"{path} exists and is not a directory: remove it or choose another")
        foreign = path.is_dir() and any(path.iterdir()) and not (path / TEMP_MARKER).exists()
        if foreign and not self.settings.allow_overwrite:
            raise UserError(
                f"{path} is not empty and was not created by dbstor: remove it, choose "
                "another temp path, or pass --allow-overwrite"
            )

    def start(self) -> None:
        duckdb = _duckdb()
        self.check_target()
        for path in (p for f in self.files for p in (f, self._wal(f))):
            remove_file(path)  # checked: dbstor's, or --allow-overwrite; never a link
        self._claim_temp_dir()
        try:
            self._open(duckdb)
        except duckdb.Error as exc:
            self._remove_temp_dir()
            raise UserError(f"DuckDB cannot create {self.files[0]}: {exc}") from None
        for file in self.files:
            record_owned(file)
        self._started = True
        if self.client_cap is not None:
            self.client_cap.create()

    def _claim_temp_dir(self) -> None:
        path = self.temp_dir  # checked by check_target()
        if path.is_dir():
            self._made_temp = (path / TEMP_MARKER).exists()
        else:
            new_dir(path, 0o700, fix="choose another temp path")
            self._made_temp = True
        if self._made_temp:
            text = "created by dbstor for DuckDB's spill files\n"
            write_file(path / TEMP_MARKER, text, lambda _: True, fix="choose another temp path")

    def capped_memory_limit(self) -> int | None:
        """DuckDB's memory_limit in the capped client process (embedded_cap.engine_share)."""
        cap = self.client_cap
        return engine_share(cap.budget, self.settings.buffer_bytes) if cap else None

    def capped_settings(self) -> str | None:
        """DuckDB's own limit in the capped client, for the cap's description."""
        limit = self.capped_memory_limit()
        return f"{self.title}'s own memory limit {limit / 2**20:,.0f} MiB" if limit else None

    def _config(self, capped: bool = False) -> dict[str, Any]:
        config: dict[str, Any] = {
            "threads": self.threads,
            "temp_directory": str(self.temp_dir),
        }
        limit = self.capped_memory_limit() if capped else self.memory_limit
        if limit:
            config["memory_limit"] = f"{max(1, limit // 1024)}KiB"
        return config

    def _open(self, duckdb: Any, capped: bool = False) -> None:
        db = duckdb.connect(str(self.files[0]), config=self._config(capped))
        try:
            with ctrl_c_kept():
                for k, file in enumerate(self.files[1:], 1):
                    db.execute(f"ATTACH '{self._quoted(file)}' AS d{k}")
        except BaseException:
            db.close()
            raise
        self._db = db

    @staticmethod
    def _quoted(path: Path) -> str:
        return str(path).replace("'", "''")

    @staticmethod
    def _wal(file: Path) -> Path:
        return file.with_name(file.name + ".wal")

    def restart(self, evict: bool = False) -> None:
        """Close the database (DuckDB checkpoints on close) and open it again: its buffer
        cache starts empty. Connections handed out before are closed. With evict, the
        files are also dropped from the OS page cache (posix_fadvise DONTNEED after fsync),
        so the next reads come from the storage rather than from memory."""
        if not self._started:
            raise UserError("the DuckDB engine is not started")
        duckdb = _duckdb()
        self.detach()
        with self._lock:
            if evict:
                for path in (*self.files, *map(self._wal, self.files)):
                    evict_from_page_cache(path)
            self._open(duckdb)

    def detach(self, quiet: bool = False) -> None:
        """Close this process's instance (DuckDB checkpoints on close), so that another
        process can open the file (DuckDB locks it for one read-write process)."""
        with self._lock:
            if self._db is not None:
                try:
                    self._db.close()
                except Exception:
                    if not quiet:
                        raise
                self._db = None

    def attach(self, capped: bool = False) -> None:
        """Open the existing database (after detach(), or in a process built from the same
        settings); capped: with capped_memory_limit()."""
        with self._lock:
            if self._db is None:
                self._open(_duckdb(), capped)

    def stop(self) -> None:
        if self.client_cap is not None:
            self.client_cap.remove()
        self.detach(quiet=True)
        if not self._started:
            return
        self._remove_temp_dir()
        self._started = False
        if self.settings.keep:
            return
        for file in self.files:
            if is_owned(file):
                remove_file(self._wal(file))
            remove_owned(file)

    def _remove_temp_dir(self) -> None:
        if self._made_temp:
            remove_tree(self.temp_dir)
            self._made_temp = False

    # --- connections --------------------------------------------------------------------------

    def connect(self) -> Any:
        """A new connection to the database: a cursor() of the engine's instance, which
        finds tables in every attached file. Close it when done; restart() and stop() close
        it too."""
        with self._lock:
            if self._db is None:
                raise UserError("the DuckDB engine is not started")
            cursor = self._db.cursor()
        if len(self.files) > 1:
            schemas = ",".join(["main", *(f"d{k}" for k in range(1, len(self.files)))])
            with ctrl_c_kept():
                cursor.execute(f"SET search_path = '{schemas}'")
        return cursor

    def version(self) -> str:
        return str(getattr(_duckdb(), "__version__", "unknown"))

    def alive(self) -> bool:
        return self._db is not None and all(f.exists() for f in self.files)

    def placement(self, index: int) -> tuple[str, str]:
        k = index % len(self.files)
        return (f"d{k}." if k else "", "")

    # --- statistics ---------------------------------------------------------------------------

    def counters(self) -> EngineCounters:
        io = proc_io()
        if not io:
            return EngineCounters()
        return EngineCounters(
            storage_read_bytes=float(io["read_bytes"]),
            storage_write_bytes=float(io["write_bytes"]),
        )

    def object_io(self) -> list[ObjectIO]:
        """Per table, its size estimated from its storage blocks (DuckDB keeps no per-table
        I/O counters: reads and writes are None). About 0.2 s at TPC-H scale factor 1."""
        if self._db is None:
            return []
        conn = self.connect()
        try:
            with ctrl_c_kept():
                return self._table_sizes(conn)
        finally:
            conn.close()

    def _table_sizes(self, conn: Any) -> list[ObjectIO]:
        rows = conn.execute(
            "SELECT database_name, table_name FROM duckdb_tables() "
            "WHERE NOT temporary ORDER BY database_name, table_name"
        ).fetchall()
        block = int(conn.execute("SELECT block_size FROM pragma_database_size()").fetchall()[0][0])
        objects = []
        for database, table in rows:
            qualified = table if database == self._main_name() else f"{database}.{table}"
            blocks = conn.execute(TABLE_BLOCKS_SQL.format(table=qualified)).fetchall()[0][0]
            objects.append(ObjectIO(name=table, kind="table", size_bytes=int(blocks) * block))
        return objects

    def _main_name(self) -> str:
        return self.files[0].stem

    def classify(self, exc: BaseException) -> str:
        try:
            duckdb = importlib.import_module("duckdb")
        except ImportError:
            return ErrorKind.ERROR
        text = str(exc).lower()
        if isinstance(exc, duckdb.ConnectionException | duckdb.FatalException):
            return ErrorKind.FATAL
        if isinstance(exc, duckdb.InternalException) or "database has been invalidated" in text:
            return ErrorKind.FATAL
        if isinstance(exc, duckdb.IOException) and ("no space" in text or "i/o error" in text):
            return ErrorKind.FATAL
        if isinstance(exc, duckdb.TransactionException | duckdb.SerializationException) or (
            isinstance(exc, duckdb.Error) and any(s in text for s in _RETRY)
        ):
            return ErrorKind.RETRY
        return ErrorKind.ERROR

    # --- description --------------------------------------------------------------------------

    def data_paths(self) -> dict[str, list[str]]:
        return {"data": [str(f) for f in self.files], "temp": [str(self.temp_dir)]}

    def cache_paths(self) -> list[Path]:
        """The database files, their write-ahead logs and the temp directory."""
        wals = [w for w in map(self._wal, self.files) if w.exists()]
        return [*super().cache_paths(), *wals]

    def describe(self) -> dict[str, Any]:
        info = super().describe()
        info.update(
            files=[str(f) for f in self.files],
            temp_directory=str(self.temp_dir),
            threads=self.threads,
            duckdb_memory_limit_bytes=self.memory_limit,
            duckdb_memory_limit=self._setting("memory_limit"),
            pid=os.getpid(),
        )
        if self.client_cap is not None:
            info["memory_cap"] = self.client_cap.describe()
            info["duckdb_capped_memory_limit_bytes"] = self.capped_memory_limit()
        return info

    def _setting(self, name: str) -> str | None:
        if self._db is None:
            return None
        with contextlib.suppress(Exception), ctrl_c_kept():
            conn = self.connect()
            try:
                return str(conn.execute(f"SELECT current_setting('{name}')").fetchall()[0][0])
            finally:
                conn.close()
        return None

"""Engines that are planned, not built: listed by `dbstor engines` with what each needs.

Each names the three things the engine contract asks of a new engine: its SQL dialect,
its Python driver, and the query that gives per-file I/O statistics.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class PlannedEngine:
    name: str
    title: str
    dialect: str
    driver: str
    file_stats_query: str


PLANNED = (
    PlannedEngine(
        name="sqlserver",
        title="Microsoft SQL Server",
        dialect="tsql",
        driver="pyodbc (with Microsoft's ODBC Driver 18)",
        file_stats_query=(
            "SELECT DB_NAME(s.database_id), f.physical_name, s.num_of_reads, s.num_of_writes, "
            "s.num_of_bytes_read, s.num_of_bytes_written, s.io_stall_read_ms, s.io_stall_write_ms, "
            "s.size_on_disk_bytes FROM sys.dm_io_virtual_file_stats(NULL, NULL) s "
            "JOIN sys.master_files f ON f.database_id = s.database_id AND f.file_id = s.file_id"
        ),
    ),
)

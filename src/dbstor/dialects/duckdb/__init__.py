"""DuckDB: an embedded column store for the analytic workload (dss); ? placeholders, no
server, no locking reads."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from dbstor.dialects.base import Dialect
from dbstor.errors import UserError


class Duckdb(Dialect):
    name = "duckdb"
    executes_on_connection = True
    workloads = ("dss",)
    param = "?"
    for_update = ""
    loads_in_process = True
    on_takes_prefix = True

    def analytic_type(self, kind: str, size: int | None) -> str:
        return "VARCHAR" if kind == "varchar" else super().analytic_type(kind, size)

    def connect_file(self, path: Path) -> Any:
        try:
            import duckdb
        except ImportError:
            raise UserError(
                "--duckdb needs the duckdb package: pip install 'dbstor[duckdb]'"
            ) from None
        return duckdb.connect(str(path))


DIALECT = Duckdb()

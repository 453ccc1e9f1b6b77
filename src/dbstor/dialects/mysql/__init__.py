"""MySQL's dialect, spoken by MariaDB: %s placeholders, InnoDB tables clustered on their
primary key, multi-row INSERT for bulk load, indexes inside the table's own file."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from dbstor.dialects.base import Dialect

if TYPE_CHECKING:
    from dbstor.workloads.tables import Table


class Mysql(Dialect):
    name = "mysql"
    workloads = ("brokerage", "orders", "blocks")
    types: ClassVar[dict[str, str]] = {
        "id": "BIGINT",
        "int": "INT",
        "small": "SMALLINT",
        "money": "BIGINT",
        "ts": "BIGINT",
        "day": "INT",
    }

    def create_table(self, table: Table, prefix: str = "", suffix: str = "") -> str:
        return super().create_table(table, prefix, " ENGINE=InnoDB" + suffix)


DIALECT = Mysql()

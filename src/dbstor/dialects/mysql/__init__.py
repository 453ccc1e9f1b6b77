"""MySQL's dialect, spoken by MariaDB: %s placeholders, InnoDB tables clustered on their
primary key, multi-row INSERT for bulk load, indexes inside the table's own file."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from dbstor.dialects.base import Dialect
from dbstor.dialects.procedures import with_nulls

if TYPE_CHECKING:
    from dbstor.dialects.shapes import Table


STATEMENT_BYTES = 1 << 20  # a bulk INSERT's size


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
        "datetime": "DATETIME",  # 5 bytes without fractional seconds
    }

    # brokerage's statements go through libmariadb on each user's own thread (its Wire):
    # on the loop thread they cost more client CPU a transaction (docs/benchmarks.md)
    wire_in_any_thread = True

    def put_rows(self, cur: Any, table: Table, rows: list[tuple]) -> None:
        """Multi-row INSERTs of about 1 MB, the VALUES written by repr(): generated values
        are ints, None and plain ASCII text without quotes or backslashes, whose Python
        literals are MariaDB literals too (5x faster than the driver's escaping)."""
        head = f"INSERT INTO {table.name} ({', '.join(table.column_names)}) VALUES "
        per = max(1, STATEMENT_BYTES // (len(repr(rows[0])) + 2))
        for i in range(0, len(rows), per):
            batch = rows[i : i + per]
            batch = with_nulls(batch)
            cur.execute(head + ",".join(map(repr, batch)))

    def script_statement(self, sql: str) -> str:
        """A routine's body holds semicolons: the mysql client reads it between
        DELIMITER lines."""
        text = sql.rstrip().rstrip(";").rstrip()
        return f"DELIMITER //\n{text} //\nDELIMITER ;" if ";" in text else f"{text};"

    def create_table(self, table: Table, prefix: str = "", suffix: str = "") -> str:
        return super().create_table(table, prefix, " ENGINE=InnoDB" + suffix)


DIALECT = Mysql()

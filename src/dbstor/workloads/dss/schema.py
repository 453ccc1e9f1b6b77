"""The eight TPC-H tables with the specification's column types (clause 1.3/1.4), their
primary keys, and an index for every foreign key (TR-3476's database was "fully normalized
and fully indexed on primary and foreign keys").

Types per dialect: identifiers are integer (bigint for the order keys, and for every key
from scale factor 10,000 where part keys pass 2^31); decimals are DECIMAL(15,2) in DuckDB,
numeric(15,2) in PostgreSQL and REAL in SQLite (SQLite has no exact decimal); fixed text is
char(N) in PostgreSQL and VARCHAR in DuckDB (its CHAR is VARCHAR); dates are DATE, and ISO
text in SQLite.

A foreign key whose columns lead the table's primary key (lineitem.l_orderkey,
partsupp.ps_partkey) is indexed by the primary key's index; every other one gets its own.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from dbstor.dialects import registry

# TPC-H's base cardinalities per unit of scale factor (clause 4.2.5); lineitem varies
# (1 to 7 lines per order, about 4 on average).
BASE_ROWS = {
    "supplier": 10_000,
    "part": 200_000,
    "partsupp": 800_000,
    "customer": 150_000,
    "orders": 1_500_000,
    "lineitem": 6_000_000,
}
FIXED_ROWS = {"nation": 25, "region": 5}
BIG_KEYS_FROM_SCALE = 10_000


@dataclass(frozen=True)
class Column:
    name: str
    kind: str  # id | bigid | int | decimal | char | varchar | date
    size: int = 0  # text length


@dataclass(frozen=True)
class Table:
    name: str
    columns: tuple[Column, ...]
    key: tuple[str, ...]
    foreign: tuple[tuple[str, ...], ...]  # foreign keys, each a column tuple

    @property
    def column_names(self) -> list[str]:
        return [c.name for c in self.columns]

    def indexed_foreign_keys(self) -> list[tuple[str, ...]]:
        """The foreign keys that need an index of their own (not a prefix of the key)."""
        return [fk for fk in self.foreign if self.key[: len(fk)] != fk]

    def index_name(self, columns: tuple[str, ...]) -> str:
        return f"{self.name}_{'_'.join(c.split('_', 1)[1] for c in columns)}_idx"


def _c(name: str, kind: str, size: int = 0) -> Column:
    return Column(name, kind, size)


TABLES: tuple[Table, ...] = (
    Table(
        "region",
        (_c("r_regionkey", "id"), _c("r_name", "char", 25), _c("r_comment", "varchar", 152)),
        ("r_regionkey",),
        (),
    ),
    Table(
        "nation",
        (
            _c("n_nationkey", "id"),
            _c("n_name", "char", 25),
            _c("n_regionkey", "id"),
            _c("n_comment", "varchar", 152),
        ),
        ("n_nationkey",),
        (("n_regionkey",),),
    ),
    Table(
        "supplier",
        (
            _c("s_suppkey", "id"),
            _c("s_name", "char", 25),
            _c("s_address", "varchar", 40),
            _c("s_nationkey", "id"),
            _c("s_phone", "char", 15),
            _c("s_acctbal", "decimal"),
            _c("s_comment", "varchar", 101),
        ),
        ("s_suppkey",),
        (("s_nationkey",),),
    ),
    Table(
        "customer",
        (
            _c("c_custkey", "id"),
            _c("c_name", "varchar", 25),
            _c("c_address", "varchar", 40),
            _c("c_nationkey", "id"),
            _c("c_phone", "char", 15),
            _c("c_acctbal", "decimal"),
            _c("c_mktsegment", "char", 10),
            _c("c_comment", "varchar", 117),
        ),
        ("c_custkey",),
        (("c_nationkey",),),
    ),
    Table(
        "part",
        (
            _c("p_partkey", "id"),
            _c("p_name", "varchar", 55),
            _c("p_mfgr", "char", 25),
            _c("p_brand", "char", 10),
            _c("p_type", "varchar", 25),
            _c("p_size", "int"),
            _c("p_container", "char", 10),
            _c("p_retailprice", "decimal"),
            _c("p_comment", "varchar", 23),
        ),
        ("p_partkey",),
        (),
    ),
    Table(
        "partsupp",
        (
            _c("ps_partkey", "id"),
            _c("ps_suppkey", "id"),
            _c("ps_availqty", "int"),
            _c("ps_supplycost", "decimal"),
            _c("ps_comment", "varchar", 199),
        ),
        ("ps_partkey", "ps_suppkey"),
        (("ps_partkey",), ("ps_suppkey",)),
    ),
    Table(
        "orders",
        (
            _c("o_orderkey", "bigid"),
            _c("o_custkey", "id"),
            _c("o_orderstatus", "char", 1),
            _c("o_totalprice", "decimal"),
            _c("o_orderdate", "date"),
            _c("o_orderpriority", "char", 15),
            _c("o_clerk", "char", 15),
            _c("o_shippriority", "int"),
            _c("o_comment", "varchar", 79),
        ),
        ("o_orderkey",),
        (("o_custkey",),),
    ),
    Table(
        "lineitem",
        (
            _c("l_orderkey", "bigid"),
            _c("l_partkey", "id"),
            _c("l_suppkey", "id"),
            _c("l_linenumber", "int"),
            _c("l_quantity", "decimal"),
            _c("l_extendedprice", "decimal"),
            _c("l_discount", "decimal"),
            _c("l_tax", "decimal"),
            _c("l_returnflag", "char", 1),
            _c("l_linestatus", "char", 1),
            _c("l_shipdate", "date"),
            _c("l_commitdate", "date"),
            _c("l_receiptdate", "date"),
            _c("l_shipinstruct", "char", 25),
            _c("l_shipmode", "char", 10),
            _c("l_comment", "varchar", 44),
        ),
        ("l_orderkey", "l_linenumber"),
        (("l_orderkey",), ("l_partkey", "l_suppkey")),
    ),
)
TABLE = {t.name: t for t in TABLES}


def column_type(column: Column, dialect: str, scale: float) -> str:
    kind = column.kind
    if kind == "id" and scale >= BIG_KEYS_FROM_SCALE:
        kind = "bigid"
    return registry.get(dialect).analytic_type(kind, column.size)


def create_table(
    table: Table, dialect: str, scale: float, prefix: str = "", suffix: str = "", key: bool = False
) -> str:
    """CREATE TABLE with NOT NULL columns; `key` declares the primary key inline (SQLite,
    which cannot add one later)."""
    columns = [f"{c.name} {column_type(c, dialect, scale)} NOT NULL" for c in table.columns]
    if key:
        columns.append(f"PRIMARY KEY ({', '.join(table.key)})")
    return f"CREATE TABLE {prefix}{table.name} (\n    " + ",\n    ".join(columns) + f"\n){suffix}"


def add_primary_key(table: Table, dialect: str, prefix: str = "", suffix: str = "") -> str:
    """The primary key added after loading (PostgreSQL: its index in the table's tablespace)."""
    own = registry.get(dialect)
    return own.add_key_after(table.name, f"{table.name}_pkey", table.key, prefix, suffix)


def create_foreign_key_indexes(
    table: Table, dialect: str, prefix: str = "", suffix: str = ""
) -> list[str]:
    """An index per foreign key not served by the primary key: SQLite names it in the
    table's schema, PostgreSQL puts it in the table's tablespace."""
    own = registry.get(dialect)
    return [
        own.create_index(table.index_name(columns), table.name, columns, prefix, suffix)
        for columns in table.indexed_foreign_keys()
    ]


def expected_rows(scale: float) -> dict[str, int | None]:
    """Rows per table at a scale factor (lineitem: None, it varies around 4 per order)."""
    factor = Decimal(repr(float(scale)))
    counts: dict[str, int | None] = {t: int(n * factor) for t, n in BASE_ROWS.items()}
    counts["lineitem"] = None
    return {**FIXED_ROWS, **counts}

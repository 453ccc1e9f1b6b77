"""Tables written once in neutral column types, and their DDL per dialect.

A workload lists its tables here (columns, primary key, secondary indexes); the bulk loader
(bulk.py) creates, loads, keys, indexes and analyzes them on any engine. Column types are
neutral and mapped per dialect (dialects/shapes.py): 'money' and 'ts' are integers (cents,
seconds; the brokerage workload's), 'dec:P:S' an exact DECIMAL(P,S) and 'datetime' a date
and time of day (TPC-C's types, the orders workload's), whose generated values are decimal
and ISO text ('12.34', '2023-11-14 22:13:20') that every engine converts exactly on insert. Primary keys
and secondary indexes are listed apart from the columns so that each dialect builds them
when it is cheapest: SQLite and InnoDB cluster rows on the primary key (rows are generated
in key order), PostgreSQL adds its keys after COPY; secondary indexes always come after
loading. A table with no key (TPC-C's history) is a heap everywhere.
"""

from __future__ import annotations

from collections.abc import Sequence

from dbstor.dialects import registry
from dbstor.dialects.shapes import Table, table

__all__ = ["Table", "table"]  # the shapes live below the dialects and the workloads


def column_type(neutral: str, dialect: str) -> str:
    """The dialect's type for a neutral type, with NOT NULL unless it ends in '?'."""
    return registry.get(dialect).column_type(neutral)


def create_table(table: Table, dialect: str, prefix: str = "", suffix: str = "") -> str:
    """CREATE TABLE for a dialect; (prefix, suffix) come from engine.placement()."""
    return registry.get(dialect).create_table(table, prefix, suffix)


def add_primary_key(table: Table, dialect: str, suffix: str = "") -> str | None:
    """The primary key built after loading where the dialect builds it then (PostgreSQL);
    None where it exists from CREATE (or the table has none)."""
    return registry.get(dialect).add_primary_key(table, suffix)


def create_indexes(table: Table, dialect: str, prefix: str = "", suffix: str = "") -> list[str]:
    """CREATE INDEX statements: SQLite puts the schema prefix on the index name, PostgreSQL
    takes the tablespace suffix, MariaDB keeps indexes in the table's own file."""
    d = registry.get(dialect)
    return [d.create_index(name, table.name, cols, prefix, suffix) for name, cols in table.indexes]


def object_names(tables: Sequence[Table]) -> dict[str, str]:
    """name -> kind of the tables and the indexes built on them (PostgreSQL's primary key
    index is <table>_pkey)."""
    out: dict[str, str] = {}
    for t in tables:
        out[t.name] = "table"
        out.update({f"{t.name}_pkey": "index"} if t.key else {})
        out.update((name, "index") for name, _ in t.indexes)
    return out


def analyze(dialect: str, tables: Sequence[Table]) -> list[str]:
    """Statements that gather optimizer statistics on the tables."""
    return list(registry.get(dialect).analyze(tables))

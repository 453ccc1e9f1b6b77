"""The two statements a blocks session runs, written once per session.

read    SELECT COUNT(version) FROM user_k WHERE id IN (...): `version` is not in the
        primary key index, so PostgreSQL cannot answer from the index alone and reads the
        row's heap block; InnoDB's and SQLite's rows live in the primary key's leaves.
        The count (rows found) must equal the batch.
update  UPDATE user_k SET version = version + 1 WHERE id IN (...): one row's block per
        key, changed in place (PostgreSQL: a HOT update inside the same block).
Both are one statement, so on an autocommit connection each is one transaction with one
round trip. Keys come sorted, so two sessions sharing a table lock rows in one order.
"""

from __future__ import annotations

from dbstor.dialects import registry


def _keys(dialect: str, batch: int) -> str:
    mark = registry.get(dialect).param
    return f"id = {mark}" if batch == 1 else f"id IN ({', '.join([mark] * batch)})"


def read_sql(dialect: str, table: str, batch: int) -> str:
    """Count `batch` rows by key, reading each row; parameters: the keys."""
    return f"SELECT COUNT(version) FROM {table} WHERE {_keys(dialect, batch)}"


def update_sql(dialect: str, table: str, batch: int) -> str:
    """Add one to the version of `batch` rows; parameters: the keys."""
    return f"UPDATE {table} SET version = version + 1 WHERE {_keys(dialect, batch)}"

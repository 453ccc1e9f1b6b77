"""The neutral shapes a workload hands to a dialect (a table in neutral column types, the
blocks workload's row layout): below both dialects/ and workloads/, so that a dialect names
them without importing a workload."""

from __future__ import annotations

from dataclasses import dataclass

_INTEGERS = ("id", "int")


@dataclass(frozen=True)
class Table:
    """One table: columns (name, neutral type; 'str:N' is VARCHAR(N), 'dec:P:S' a
    DECIMAL(P,S), a trailing '?' allows NULL), primary key (may be empty) and secondary
    indexes (name, columns)."""

    name: str
    columns: tuple[tuple[str, str], ...]
    key: tuple[str, ...]
    indexes: tuple[tuple[str, tuple[str, ...]], ...] = ()

    @property
    def column_names(self) -> tuple[str, ...]:
        return tuple(c for c, _ in self.columns)

    @property
    def rowid_key(self) -> bool:
        """A single integer key: SQLite's INTEGER PRIMARY KEY (the rowid itself)."""
        return len(self.key) == 1 and dict(self.columns)[self.key[0]].rstrip("?") in _INTEGERS


def table(name: str, columns: str, key: str, *indexes: tuple[str, str]) -> Table:
    """A Table from text: columns 'name type, name type, ...', key 'col col' (or ''),
    indexes ('index_name', 'col col')."""
    cols = tuple(tuple(c.split()) for c in columns.split(","))
    return Table(
        name,
        tuple((c[0], c[1]) for c in cols),  # type: ignore[misc]
        tuple(key.split()),
        tuple((n, tuple(c.split())) for n, c in indexes),
    )


@dataclass(frozen=True)
class Geometry:
    """How rows are laid out on one engine."""

    dialect: str
    pad: int  # pad width in bytes
    page_size: int  # the engine's page or block size
    fillfactor: int | None = None  # PostgreSQL only

    @property
    def row_bytes(self) -> int:
        """A row's column bytes: two 4-byte integers and the pad."""
        return 8 + self.pad

    def describe(self) -> dict[str, int | None]:
        return {"pad_bytes": self.pad, "page_bytes": self.page_size, "fillfactor": self.fillfactor}

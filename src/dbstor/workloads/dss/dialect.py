"""Where the three dialects differ in the 22 queries: date literals and arithmetic, year
extraction, substrings, case-sensitive patterns and derived-table column lists.

SQLite keeps dates as ISO text ('1995-03-15'), so date literals are strings and date
arithmetic is its date() function; its LIKE ignores case, so patterns become GLOB (which
matches case as LIKE does in the other two and in the specification).
"""

from __future__ import annotations

from dataclasses import dataclass

DIALECTS = ("duckdb", "postgres", "sqlite")
_UNITS = {"day": "days", "month": "months", "year": "years"}


def in_list(values: list[str] | tuple[str, ...]) -> str:
    """The inside of an IN (...) list of text literals (the same in every dialect)."""
    return ", ".join(f"'{v}'" for v in values)


@dataclass(frozen=True)
class Dialect:
    name: str

    def __post_init__(self) -> None:
        if self.name not in DIALECTS:
            raise ValueError(f"the dss workload has no SQL for dialect {self.name!r}")

    @property
    def sqlite(self) -> bool:
        return self.name == "sqlite"

    def date(self, iso: str) -> str:
        """A date literal."""
        return f"'{iso}'" if self.sqlite else f"date '{iso}'"

    def shift(self, iso: str, amount: int, unit: str) -> str:
        """The date `iso` moved by `amount` days, months or years (negative: earlier)."""
        if self.sqlite:
            return f"date('{iso}', '{amount:+d} {_UNITS[unit]}')"
        sign = "-" if amount < 0 else "+"
        return f"date '{iso}' {sign} interval '{abs(amount)}' {unit}"

    def year(self, column: str) -> str:
        if self.sqlite:
            return f"cast(strftime('%Y', {column}) as integer)"
        return f"extract(year from {column})"

    def substring(self, column: str, start: int, length: int) -> str:
        if self.sqlite:
            return f"substr({column}, {start}, {length})"
        return f"substring({column} from {start} for {length})"

    def like(self, column: str, pattern: str, negate: bool = False) -> str:
        """column [NOT] LIKE pattern, case-sensitive everywhere (patterns use % only)."""
        if self.sqlite:
            glob = pattern.replace("%", "*")
            return f"{column} {'not ' if negate else ''}glob '{glob}'"
        return f"{column} {'not ' if negate else ''}like '{pattern}'"

    def derived(self, alias: str, columns: tuple[str, ...]) -> str:
        """A derived table's alias with its column names (SQLite names them inside)."""
        return f"as {alias}" if self.sqlite else f"as {alias} ({', '.join(columns)})"

    def create_view(self, name: str) -> str:
        """SQLite: a temporary view, the only kind that may read tables in attached
        database files (and private to the connection, like a stream's view should be)."""
        return f"create temp view {name}" if self.sqlite else f"create view {name}"

    def counted_as(self, name: str) -> str:
        """The alias a derived table's column needs where derived() cannot name it."""
        return f" as {name}" if self.sqlite else ""

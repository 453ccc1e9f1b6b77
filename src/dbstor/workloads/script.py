"""The SQL a workload would run on a dialect, as text and without a connection, for a DBA
to read before pointing dbstor at a server (`dbstor sql`): sections of statements in the
order dbstor runs them. Each workload's script() builds them from the same functions its
create() and sessions use, so the text shown is the text run."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from dbstor.workloads import bulk
from dbstor.workloads.tables import Table

IN_LIST = 3  # placeholders shown in an IN (...) list whose length varies at run time


@dataclass(frozen=True)
class Section:
    """A titled group of statements; `named` statements (one, or several run in turn)
    show their name above them."""

    title: str
    statements: Sequence[str] = ()
    named: Mapping[str, str | Sequence[str]] = field(default_factory=dict)
    note: str = ""


def bulk_sections(
    tables: Sequence[Table], dialect: str, after: Sequence[str] = ()
) -> list[Section]:
    """A bulk-loaded workload's schema (workloads/bulk.py: ddl_statements), with the
    statements run after statistics (stored routines: procedures and functions)."""
    creates, per_table, analyze = bulk.ddl_statements(tables, dialect)
    out = [
        Section("tables", creates, note="created empty, then bulk-loaded"),
        Section(
            "keys and indexes", [s for group in per_table for s in group], note="after the load"
        ),
        Section("statistics", analyze),
    ]
    if after:
        out.append(Section("stored routines", list(after)))
    return out


def statement_section(
    title: str, templates: Mapping[str, str], render: Callable[[str, int], str], note: str = ""
) -> Section:
    """Named statements rendered for the dialect; an IN list shows IN_LIST placeholders."""
    named = {
        name: render(name, IN_LIST if "{in}" in text else 0) for name, text in templates.items()
    }
    shown = f"IN (...) lists hold one value per item ({IN_LIST} shown)"
    extra = shown if any("{in}" in t for t in templates.values()) else ""
    return Section(title, named=named, note="; ".join(n for n in (note, extra) if n))

"""DssWorkload: the TPC-H-like decision-support database and its 22 queries; TR-3476's six
by default.

It is not a transaction mix: a runner builds the database once with create(), then runs
query streams: stream 0 (the power run) holds the selected queries in query_set() order,
stream s > 0 (throughput runs, one stream per concurrent user) holds them in TPC-H's
order for stream s, each with substitution parameters drawn from (seed, s).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

from dbstor.dialects import registry
from dbstor.engines.base import Engine
from dbstor.errors import UserError
from dbstor.workloads.base import LoadReport, Session, Workload
from dbstor.workloads.dss import catalog, execute, params, schema
from dbstor.workloads.dss.catalog import QuerySpec
from dbstor.workloads.dss.generate import find_generator
from dbstor.workloads.dss.load import build, default_indexes, loader
from dbstor.workloads.dss.phases import INDEX_CHOICES
from dbstor.workloads.dss.schema import expected_rows
from dbstor.workloads.options import option_flag, option_whole
from dbstor.workloads.script import Section

OPTIONS = {
    "queries": f"which queries: {catalog.VALID_NAMES} (default tr3476)",
    "validate": "true: every stream uses the TPC-H specification's validation parameters "
    "(default false; also when the seed is None)",
    "indexes": "all (primary keys and foreign-key indexes), primary, or none "
    "(default: none on DuckDB, all on PostgreSQL and SQLite)",
    "seed": "random seed for the substitution parameters (default: the study's seed)",
}


def _scale(value: Any) -> float:
    try:
        if isinstance(value, bool):
            raise ValueError
        scale = float(value)
    except (TypeError, ValueError):
        raise UserError(
            f"dss scale must be a TPC-H scale factor such as 1 or 0.01, not {value!r}"
        ) from None
    if not scale > 0 or scale == float("inf"):
        raise UserError(f"dss scale (TPC-H scale factor) must be above 0, not {value!r}")
    return scale


class DssWorkload(Workload):
    name: ClassVar[str] = "dss"
    runs_queries: ClassVar[bool] = True
    title: ClassVar[str] = "Decision support (TPC-H-like)"
    description: ClassVar[str] = (
        "A wholesale supplier's sales database (TPC-H's eight tables: parts, suppliers, "
        "customers, orders, line items, nations, regions), fully indexed on primary and "
        "foreign keys, queried by TPC-H's 22 decision-support queries; by default the six "
        "TR-3476 ran. At the storage: large sequential scans, and random reads where joins "
        "go through indexes; spills to temp for big sorts and hashes."
    )
    source: ClassVar[str] = (
        "TPC-H (data by tpchgen-cli, queries from the specification), as run at the storage "
        "in NetApp TR-3476 (FC vs iSCSI, SQL Server 2005 DSS: Pricing Summary, Profit "
        "Enhancement, Cost-Efficient Suppliers, Specified Product Profit, Unshipped Order "
        "Summary, Late Received Orders)"
    )
    mix: ClassVar[dict[str, float]] = {}
    dialects: ClassVar[tuple[str, ...]] = registry.running("dss")
    default_scale: ClassVar[int] = 1
    scale_unit: ClassVar[str] = "scale factor"
    fractional_scale: ClassVar[bool] = True
    options_help: ClassVar[dict[str, str]] = OPTIONS

    def __init__(self, scale: float, seed: int | None = 1, options: dict[str, Any] | None = None):
        super().__init__(_scale(scale), seed, options)  # type: ignore[arg-type]
        unknown = sorted(set(self.options) - set(OPTIONS))
        if unknown:
            raise UserError(
                f"unknown dss option(s) {', '.join(unknown)}; known: {', '.join(OPTIONS)}"
            )
        self.scale = _scale(scale)
        seed_value = self.options.get("seed", seed)
        self.seed = None if seed_value is None else option_whole("dss", "seed", seed_value)  # type: ignore[assignment]
        self.validate = self.seed is None or option_flag(
            "dss", "validate", self.options.get("validate", False)
        )
        self.selected = catalog.select_queries(self.options.get("queries"))
        indexes = self.options.get("indexes")
        if indexes is not None and str(indexes).lower() not in INDEX_CHOICES:
            raise UserError(
                f"dss option indexes must be one of {', '.join(INDEX_CHOICES)}, not {indexes!r}"
            )
        self.indexes = None if indexes is None else str(indexes).lower()
        self.load_seconds: dict[str, float] = {}

    def preflight(self) -> None:
        """What can fail before anything is created: the data generator must be there."""
        find_generator()

    # --- the queries --------------------------------------------------------------------------

    def query_set(self) -> list[QuerySpec]:
        """The selected queries in power-run order (TR-3476's order for the default set,
        1..22 for "all", the order given for a list)."""
        return list(self.selected)

    def parameters(self, query: QuerySpec | int, stream: int = 0) -> dict[str, Any]:
        """The substitution parameters a query gets in a stream."""
        number = query if isinstance(query, int) else query.number
        seed = None if self.validate else self.seed
        return params.parameters(number, self.scale, seed, stream)

    def stream(self, stream: int, dialect: str) -> list[tuple[QuerySpec, str]]:
        """The SQL of query stream `stream` for a dialect: stream 0 = power run in
        query_set() order, stream s > 0 = TPC-H's order for stream s; parameters seeded by
        (seed, stream), or the validation parameters."""
        if dialect not in self.dialects:
            raise UserError(
                f"the dss workload has no SQL for dialect {dialect!r}; it has "
                f"{', '.join(self.dialects)}"
            )
        return [
            (spec, execute.render(spec.number, self.parameters(spec, stream), dialect, stream))
            for spec in catalog.stream_order(self.selected, stream)
        ]

    def run_query(self, connection: Any, sql: str, dialect: str) -> int:
        """Execute one query of a stream on a connection, fetch all its rows, end the
        transaction; the number of rows returned. Q15 creates, reads and drops its view."""
        return execute.run_statements(connection, sql, dialect)

    def answer(self, connection: Any, sql: str, dialect: str) -> list[tuple[Any, ...]]:
        """Like run_query(), but the rows themselves (to check or compare answers)."""
        return execute.answer(connection, sql, dialect)

    # --- the database -------------------------------------------------------------------------

    def expected_rows(self) -> dict[str, int | None]:
        """TPC-H's row count per table at this scale factor (lineitem varies: None)."""
        return expected_rows(self.scale)

    def indexes_for(self, dialect: str) -> str:
        return self.indexes or default_indexes(dialect)

    def create(self, engine: Engine, say: Callable[[str], None]) -> LoadReport:
        """Generate the data with tpchgen-cli, load it, build keys and indexes, ANALYZE."""
        if engine.dialect not in self.dialects:
            raise UserError(
                f"the dss workload has no SQL for {engine.title} ({engine.dialect}); use "
                f"{', '.join(self.dialects)}"
            )
        report, self.load_seconds = build(engine, self.scale, self.indexes_for(engine.dialect), say)
        return report

    def script(self, dialect: str) -> list[Section]:
        """Tables, keys and indexes as the dialect's loader builds them (no placement);
        the power run's queries with their parameters."""
        indexes, inline = self.indexes_for(dialect), bool(loader(dialect).KEY_INLINE)
        key = inline and indexes != "none"
        creates = [schema.create_table(t, dialect, self.scale, key=key) for t in schema.TABLES]
        later = (
            []
            if inline or indexes == "none"
            else [schema.add_primary_key(t, dialect) for t in schema.TABLES]
        )
        if indexes == "all":
            later += [
                s for t in schema.TABLES for s in schema.create_foreign_key_indexes(t, dialect)
            ]
        queries = {f"{spec.name} ({spec.title})": text for spec, text in self.stream(0, dialect)}
        return [
            Section(
                "tables", creates, note="created empty, then bulk-loaded from tpchgen-cli's files"
            ),
            Section("keys and indexes", later, note=f"after the load (indexes = {indexes})"),
            Section("queries", named=queries, note="the power run, in its order"),
        ]

    def session(self, engine: Engine, connection: Any, user: int) -> Session:
        raise NotImplementedError(
            "the dss workload runs query streams (DssWorkload.stream), not transaction sessions"
        )

    def describe(self) -> dict[str, Any]:
        info = super().describe()
        info["scale_unit"] = self.scale_unit
        info["options"] = {
            "queries": [q.name for q in self.selected],
            "validate": self.validate,
            "indexes": self.indexes,
        }
        info["queries"] = [
            {"number": q.number, "name": q.name, "title": q.title, "tr3476": q.tr3476}
            for q in self.selected
        ]
        if self.load_seconds:
            info["load_seconds"] = dict(self.load_seconds)
        return info

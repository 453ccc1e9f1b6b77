"""The workload contract: a named, documented database load shape.

A workload creates its schema and data on an engine (through the engine's bulk path) and
hands each virtual user a Session that runs one transaction of a named type at a time.
The SQL it emits depends on engine.dialect (sqlite, postgres, mysql).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ClassVar

from dbstor.engines.base import Engine
from dbstor.errors import UserError
from dbstor.workloads.load_report import LoadReport
from dbstor.workloads.tables import Table, object_names

if TYPE_CHECKING:
    from dbstor.workloads.script import Section

__all__ = ["LoadReport", "Session", "Workload"]


class Session(ABC):
    """One virtual user's state: its connection and its random stream."""

    @abstractmethod
    def run(self, transaction: str) -> bool | None:
        """Run one transaction of this type to its commit (or rollback) on this user's
        connection. Return False when the transaction rolled back by design (TPC-C's 1% of
        New-Orders with an unused item): it counts as done, and as a rollback. Raises the
        driver's exception on failure; the caller classifies it with engine.classify() and
        retries, counts or fails the point."""

    # Sessions whose transaction is one request and one reply may also offer them apart, so
    # that one client thread can keep many users' requests in flight (drivers/multiplex.py)
    can_submit: bool = False

    def submit(self, transaction: str) -> int:
        """Send one transaction of this type without waiting: the socket its reply comes
        on. Only when can_submit."""
        raise NotImplementedError(f"{type(self).__name__} runs transactions with run() only")

    def collect(self) -> bool | None:
        """Read what has arrived for the submitted transaction: None while its reply is
        incomplete, else what run() returns; raises as run() would."""
        raise NotImplementedError(f"{type(self).__name__} runs transactions with run() only")

    def close(self) -> None:  # noqa: B027 - optional hook
        """Release what the session holds (its connection is closed by the caller)."""


class Workload(ABC):
    name: ClassVar[str]
    title: ClassVar[str]
    description: ClassVar[str]
    source: ClassVar[str]
    mix: ClassVar[dict[str, float]]  # transaction type -> share of the mix, in %
    dialects: ClassVar[tuple[str, ...]]  # engine dialects it has SQL for
    default_scale: ClassVar[int] = 1000
    scale_unit: ClassVar[str] = "customers"  # what --scale counts, for --help and reports
    options_help: ClassVar[dict[str, str]] = {}  # option name -> what it does (and default)
    fractional_scale: ClassVar[bool] = False  # a scale such as 0.01 allowed (TPC-H's factor)
    declared_tables: ClassVar[tuple[Table, ...]] = ()  # its tables, when fixed (place checks)
    # queries in streams (query_set, stream, run_query: dss), not transactions by users
    runs_queries: ClassVar[bool] = False

    def __init__(self, scale: float, seed: int = 1, options: dict[str, Any] | None = None):
        if isinstance(scale, bool) or not isinstance(scale, int | float) or not scale > 0:
            least = "above zero" if self.fractional_scale else "at least 1"
            raise UserError(
                f"{self.name}: the scale ({self.scale_unit}) must be {least}, not {scale!r}"
            )
        if not self.fractional_scale and not float(scale).is_integer():
            raise UserError(
                f"{self.name}: the scale counts {self.scale_unit}: give a whole number, not {scale!r}"
            )
        self.scale = scale if self.fractional_scale else int(scale)
        self.seed = seed
        self.options = options or {}

    def object_names(self) -> dict[str, str]:
        """The tables and indexes the workload creates, name -> kind (table | index), so
        that place patterns are checked before anything exists; {} when known only after
        loading."""
        return object_names(self.declared_tables)

    def preflight(self) -> None:  # noqa: B027 - optional hook
        """What can be checked before anything is created (a query run's generator)."""

    def expect_users(self, users: int) -> None:  # noqa: B027 - optional hook
        """Called before create() with the most virtual users any point will run on one
        instance (a workload with one schema per user builds that many)."""

    def submits(self, dialect: str) -> bool:
        """Whether its sessions on this dialect can submit and collect apart (can_submit),
        so that in the closed loop its users keep no thread (drivers/multiplex.py)."""
        return False

    def point_metrics(
        self,
        commits: dict[str, int],
        rollbacks: dict[str, int],
        seconds: float,
        latency_ms: Any = None,
    ) -> dict[str, float]:
        """Workload-specific figures for one point from its measured transactions by type
        (commits include rollbacks by design; rollbacks counts those alone), e.g. NOPM;
        latency_ms is the point's transaction latency (LatencyStats) for figures per unit
        of work (blocks: per block visit)."""
        return {}

    @abstractmethod
    def create(self, engine: Engine, say: Callable[[str], None]) -> LoadReport:
        """Create the schema, generate the data deterministically from the seed, load it
        through the engine's bulk path, build indexes and gather statistics."""

    def script(self, dialect: str) -> list[Section]:
        """The SQL it would run on `dialect` (schema, procedures, then transactions or
        queries), rendered without a connection, for `dbstor sql`."""
        raise NotImplementedError(f"the {self.name} workload cannot print its SQL")

    @abstractmethod
    def session(self, engine: Engine, connection: Any, user: int) -> Session:
        """A session for virtual user `user` (0-based) on its own connection."""

    # (transaction, table): every acknowledged commit of the transaction adds one row to
    # the table, which nothing deletes; a crash event checks that none went missing
    durable: ClassVar[tuple[str, str] | None] = None

    def durable_rows(self, connection: Any) -> int | None:
        """How many rows the durable table holds now (None: the workload names none)."""
        if self.durable is None:
            return None
        cursor = connection.cursor()
        cursor.execute(f"SELECT COUNT(*) FROM {self.durable[1]}")
        rows = int(cursor.fetchone()[0])
        connection.commit()
        return rows

    def consistency(self, connection: Any) -> dict[str, int] | None:
        """The workload's own consistency conditions that do not hold, with how many rows
        break each ({}: all hold); None when it has none."""
        return None

    def describe(self) -> dict[str, Any]:
        """For results.json "workload"."""
        return {
            "name": self.name,
            "title": self.title,
            "scale": self.scale,
            "seed": self.seed,
            "mix": dict(self.mix),
            "source": self.source,
        }

"""The workload contract: a named, documented database load shape.

A workload creates its schema and data on an engine (through the engine's bulk path) and
hands each virtual user a Session that runs one transaction of a named type at a time.
The SQL it emits depends on engine.dialect (sqlite, postgres, mysql).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar

from dbstor.engines.base import Engine


@dataclass
class LoadReport:
    """What building the database took."""

    rows: int
    seconds: float
    bytes: int | None = None  # bytes generated (as loaded), when known
    tables: dict[str, int] = field(default_factory=dict)  # table -> rows

    @property
    def rows_per_s(self) -> float:
        return self.rows / self.seconds if self.seconds > 0 else 0.0


class Session(ABC):
    """One virtual user's state: its connection and its random stream."""

    @abstractmethod
    def run(self, transaction: str) -> None:
        """Run one transaction of this type to its commit (or rollback) on this user's
        connection. Raises the driver's exception on failure; the caller classifies it
        with engine.classify() and retries, counts or fails the point."""

    def close(self) -> None:  # noqa: B027 - optional hook
        """Release what the session holds (its connection is closed by the caller)."""


class Workload(ABC):
    name: ClassVar[str]
    title: ClassVar[str]
    description: ClassVar[str]
    source: ClassVar[str]
    mix: ClassVar[dict[str, float]]  # transaction type -> share of the mix, in %
    dialects: ClassVar[tuple[str, ...]]  # engine dialects it has SQL for

    def __init__(self, scale: int, seed: int = 1, options: dict[str, Any] | None = None):
        self.scale = scale
        self.seed = seed
        self.options = options or {}

    @abstractmethod
    def create(self, engine: Engine, say: Callable[[str], None]) -> LoadReport:
        """Create the schema, generate the data deterministically from the seed, load it
        through the engine's bulk path, build indexes and gather statistics."""

    @abstractmethod
    def session(self, engine: Engine, connection: Any, user: int) -> Session:
        """A session for virtual user `user` (0-based) on its own connection."""

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

"""What building a workload's database took: below workloads/base.py and the bulk loader,
which both name it."""

from __future__ import annotations

from dataclasses import dataclass, field


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

"""What an io run is asked to do (its plan) and its results header before any point."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime

from dbstor import __version__
from dbstor.host import host_facts
from dbstor.results.model import Run
from dbstor.study.data import DataPattern
from dbstor.study.model import LoadSeries, Slo, Target
from dbstor.study.profiles import Profile


@dataclass(frozen=True)
class IoRunPlan:
    run_id: str
    target: Target
    profile: Profile
    series: LoadSeries
    slo: Slo
    duration_s: float
    warmup_s: float
    repeats: int
    file_size: int
    precondition: bool
    study: dict
    data: DataPattern = field(default_factory=DataPattern)
    max_duration_s: float | None = None  # held until steady (fio's steadystate); None: fixed


def new_io_run(plan: IoRunPlan) -> Run:
    """An io run's results before its first point."""
    return Run(
        run_id=plan.run_id,
        tool_version=__version__,
        study=plan.study,
        target={
            "label": plan.target.label,
            "paths": {"data": [str(x) for x in plan.target.paths]},
            "device": None,
            "facts": plan.target.facts,
        },
        engine={"name": "fio", "version": None, "managed": True},
        workload={
            "name": plan.profile.name,
            "scale": None,
            "mix": {
                "read_pct": plan.profile.read_pct,
                "write_pct": 100 - plan.profile.read_pct,
            },
            "profile": plan.profile.describe(),
            "file_size_bytes": plan.file_size,
            "data": plan.data.describe(),
            "series": {
                "kind": plan.series.kind,
                "values": list(plan.series.values),
                "jobs": plan.series.jobs,
                "iodepth": plan.series.iodepth,
            },
        },
        host=host_facts(),
        slo={"metric": plan.slo.metric, "limit_ms": plan.slo.limit_ms},
        created_at=datetime.now(UTC).isoformat(timespec="seconds"),
        tags=dict(plan.study.get("tags") or {}),
    )

"""Which workloads run queries in streams (dss) rather than transactions by virtual users,
and the checks of a query run that can be made before anything is created."""

from __future__ import annotations

from typing import Any

from dbstor.errors import UserError
from dbstor.study.model import DatabaseSpec
from dbstor.workloads.base import Workload
from dbstor.workloads.registry import workload_class


def is_query_workload(cls: type[Workload]) -> bool:
    """A workload of queries in streams (dss), not of transactions by virtual users."""
    return cls.runs_queries


def runs_queries(spec: DatabaseSpec) -> bool:
    """Whether this database spec is run as a query run (a streams series)."""
    return spec.series.kind == "streams"


def check_query_spec(spec: DatabaseSpec) -> None:
    """Everything about a query run that can be checked before anything is created: the
    load series, the timeout, the workload's scale, options and query names (the workload
    raises UserError), and its generator when the workload offers a preflight()."""
    cls = workload_class(spec.workload)
    query = is_query_workload(cls)
    if query and spec.series.kind != "streams":
        raise UserError(
            f"workload {spec.workload} runs queries: give its load as query streams "
            f"(--streams 1,2,4 or streams = [1, 2, 4]), not {spec.series.kind}"
        )
    if not query and spec.series.kind == "streams":
        raise UserError(
            f"streams are for query workloads (dss); workload {spec.workload} takes "
            "--users, --instances or --rate"
        )
    if not query:
        if spec.cold or spec.query_timeout_s is not None:
            raise UserError(
                f"--cold and --query-timeout (cold, query_timeout) are for query workloads "
                f"(dss); workload {spec.workload} runs transactions: drop them"
            )
        return
    if not spec.series.values or any(v < 1 for v in spec.series.values):
        raise UserError("streams: give one or more counts of 1 or more, e.g. --streams 1,2,4")
    if spec.query_timeout_s is not None and spec.query_timeout_s <= 0:
        raise UserError("--query-timeout: must be above zero, e.g. 10min")
    scale = spec.scale if spec.scale is not None else cls.default_scale
    workload: Any = cls(scale, seed=spec.seed, options=spec.options)
    if not workload.query_set():
        raise UserError(f"workload {spec.workload}: no queries selected; check --queries")
    workload.preflight()

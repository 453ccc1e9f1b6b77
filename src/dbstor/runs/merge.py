"""Exact merges of point outcomes measured apart over the same window: several hosts (the
cluster), and the same functions the single-host path uses for fio's jobs, client
processes and database instances.

    merge_histograms     latency bins added bin by bin (analysis.histogram.merge_all)
    merge_io_outcomes    io outcomes of several hosts: fio totals and bins, per-second IOPS
    merge_txn_outcomes   database outcomes: users' results (drivers.tally.merge_results),
                         engine counters (engines.base.sum_counters)
    merge_counters       engine counters added
    merge_samples        telemetry rows of several hosts, each row labelled with its host

Percentiles are read from merged histograms, never averaged: the merge of the parts equals
the measurement of the whole. A host's own CPU and device figures are not merged into one
(they describe different machines): merged outcomes keep them per host under `hosts`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import asdict
from typing import Any

from dbstor.analysis.histogram import LatencyHistogram, merge_all
from dbstor.drivers.fio_output import merge_fio_runs
from dbstor.drivers.tally import merge_results
from dbstor.engines.base import EngineCounters, sum_counters
from dbstor.runs.database.point import TxnOutcome
from dbstor.runs.io.point import IoOutcome


def merge_histograms(histograms: Iterable[LatencyHistogram]) -> LatencyHistogram:
    return merge_all(histograms)


def merge_counters(parts: Iterable[EngineCounters]) -> EngineCounters:
    return sum_counters(parts)


def merge_samples(parts: dict[str, Sequence[dict[str, Any]]]) -> list[dict[str, Any]]:
    """Every host's telemetry rows, each with a `host` column, in host order."""
    return [{**row, "host": host} for host, rows in parts.items() for row in rows]


def add_series(series: Sequence[Sequence[float]]) -> list[float]:
    """Per-second series added second by second (the longest sets the length)."""
    length = max((len(s) for s in series), default=0)
    return [float(sum(s[i] for s in series if i < len(s))) for i in range(length)]


def host_view(outcome: IoOutcome | TxnOutcome) -> dict[str, Any]:
    """One host's own figures, kept beside the merge."""
    return {
        "host": outcome.host,
        "started_at": outcome.started_at,
        "wall_s": outcome.wall_s,
        "cpu": asdict(outcome.cpu),
        "device": asdict(outcome.device) if outcome.device else None,
    }


def merge_io_outcomes(outcomes: Sequence[IoOutcome]) -> dict[str, Any]:
    """io outcomes of several hosts at one point: the fio totals and bins summed, per-second
    IOPS summed, each host's samples (with a host column) and own figures."""
    return {
        "fio": merge_fio_runs([o.fio for o in outcomes]),
        "read_iops_per_second": add_series([o.read_iops_per_second for o in outcomes]),
        "write_iops_per_second": add_series([o.write_iops_per_second for o in outcomes]),
        "samples": merge_samples({o.host: o.samples for o in outcomes}),
        "hosts": [host_view(o) for o in outcomes],
    }


def merge_txn_outcomes(outcomes: Sequence[TxnOutcome]) -> dict[str, Any]:
    """Database outcomes of several hosts at one point: users' results merged exactly,
    engine counters summed, each host's samples and own figures."""
    return {
        "drive": merge_results([o.drive for o in outcomes]),
        "counters": sum_counters(o.counters for o in outcomes),
        "alive": all(o.alive for o in outcomes),
        "samples": merge_samples({o.host: o.samples for o in outcomes}),
        "hosts": [host_view(o) for o in outcomes],
    }

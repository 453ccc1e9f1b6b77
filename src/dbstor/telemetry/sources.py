"""The telemetry source contract: series of named quantities, labelled by where they were measured.

A load point can be seen from several layers of the stack: the client that drives it
(fio, the database driver), this host's block device (/proc/diskstats), the database
server's own device when the database runs elsewhere (its node_exporter), and the storage
system (the array's exporter). A *source* yields, for one point's measured window, one
`Series` per quantity it knows, in dbstor's units (QUANTITIES), labelled with its LAYER.

`fetch()` never raises for a source that went away mid-run: it returns a `Fetched` with
the series it has, or none and the reason, so the point keeps dbstor's own figures and
says which layer is missing and why. `preflight()` raises UserError before any load.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from dbstor.results.finite import checked_figure, figure_problem

# Where a figure was measured, nearest the user first.
LAYERS = ("client", "host_device", "remote_device", "storage")
LAYER_TITLES = {
    "client": "client",
    "host_device": "this host's device",
    "remote_device": "database host's device",
    "storage": "storage system",
}

# dbstor's quantities and their units (the units every source converts to).
QUANTITIES: dict[str, str] = {
    "read_iops": "ops/s",
    "write_iops": "ops/s",
    "read_mbps": "MB/s",  # decimal megabytes, like fio and /proc figures
    "write_mbps": "MB/s",
    "read_latency_ms": "ms",  # mean per operation
    "write_latency_ms": "ms",
    "cpu_util_pct": "%",
}
# A latency quantity's operations (to weight a mean latency by the ops behind it).
LATENCY_OPS = {"read_latency_ms": "read_iops", "write_latency_ms": "write_iops"}


@dataclass(frozen=True)
class Series:
    """One quantity over a window: `points` are (epoch seconds, value in dbstor's unit).

    `summary` is the figure over the whole window, computed by the source the exact way
    for its kind of data (counter deltas between the bounding samples, or an ops-weighted
    mean of per-operation latencies), not necessarily the mean of the points.
    """

    quantity: str
    layer: str
    points: tuple[tuple[float, float], ...]
    summary: float | None
    source: str = ""
    labels: Mapping[str, str] = field(default_factory=dict)
    why_null: str | None = None  # why the summary is null though the source gave one

    def __post_init__(self) -> None:
        if self.quantity not in QUANTITIES:
            raise ValueError(f"unknown quantity {self.quantity!r}")
        if self.layer not in LAYERS:
            raise ValueError(f"unknown layer {self.layer!r}")
        # Every quantity is a rate, a latency or a share: never negative, always finite.
        # What a source gives otherwise is no figure (results/finite.py).
        kept = tuple((t, v) for t, v in self.points if figure_problem(v) is None)
        object.__setattr__(self, "points", kept)
        if self.summary is not None:
            what = f"{self.source or self.layer} {self.quantity}"
            summary, why = checked_figure(self.summary, what)
            object.__setattr__(self, "summary", summary)
            object.__setattr__(self, "why_null", why)

    @property
    def unit(self) -> str:
        return QUANTITIES[self.quantity]


@dataclass(frozen=True)
class Fetched:
    """What a source returned for one window: its series, or none and why (`missing`)."""

    source: str
    layer: str
    series: tuple[Series, ...] = ()
    missing: str | None = None

    @property
    def ok(self) -> bool:
        return self.missing is None

    def summary(self) -> dict[str, float | None]:
        """quantity -> the window's figure (only the quantities this source has)."""
        return {s.quantity: s.summary for s in self.series}


class Source(Protocol):
    """A telemetry source for one layer (see the module docstring)."""

    name: str
    layer: str

    def preflight(self, window_s: float) -> None:
        """Check every configured query once; UserError (one line) if any cannot work."""
        ...

    def fetch(self, start: float, end: float, step: float) -> Fetched:
        """The series over [start, end] epoch seconds at `step` seconds; never raises."""
        ...


def layers_side_by_side(fetched: Sequence[Fetched]) -> dict[str, dict[str, object]]:
    """Per layer, the window figures and what is missing: the shape results.json keeps.

    {"storage": {"source": "purefa", "read_latency_ms": 0.6, ...}, "remote_device":
    {"source": "node-exporter", "missing": "Prometheus at http://prom:9090 did not answer: ..."}}
    """
    out: dict[str, dict[str, object]] = {}
    for f in fetched:
        entry: dict[str, object] = {"source": f.source}
        if f.missing is not None:
            entry["missing"] = f.missing
        else:
            entry.update(f.summary())
            nulled = {s.quantity: s.why_null for s in f.series if s.why_null}
            if nulled:
                entry["nulled"] = nulled  # the figures the source gave that are no figures
        out[f.layer] = entry
    return {layer: out[layer] for layer in LAYERS if layer in out}


def proc_series(rows: Sequence[Mapping[str, object]], t0: float) -> tuple[Series, ...]:
    """This host's /proc sampler rows (telemetry.sampler.SAMPLE_KEYS) as host_device series.

    `t0` is the epoch time of the sampler's start (rows carry seconds since then). The
    summaries are left None: the exact window figures stay with Sampler.summarise().
    """
    mapping = {
        "read_iops": "dev_read_iops",
        "write_iops": "dev_write_iops",
        "read_mbps": "dev_read_mbps",
        "write_mbps": "dev_write_mbps",
        "read_latency_ms": "dev_read_await_ms",
        "write_latency_ms": "dev_write_await_ms",
        "cpu_util_pct": "cpu_util_pct",
    }
    out = []
    for quantity, key in mapping.items():
        points = tuple(
            (t0 + float(row["t_s"]), float(row[key]))  # type: ignore[arg-type]
            for row in rows
            if row.get(key) is not None
        )
        if points:
            out.append(Series(quantity, "host_device", points, None, source="proc"))
    return tuple(out)

"""dbstor's own figures during a run, served for Prometheus to scrape (--metrics-port).

Served with the prometheus_client library on 127.0.0.1 by default, from a registry of
its own (never the process-wide default one). The run loop calls start_point() when a
load point begins and update() as its counters and running latency histogram grow; the
figures are those of the point being measured:

  dbstor_point                      the point's number (1-based)
  dbstor_point_load{what}           its load (iodepth, jobs, users, rate...)
  dbstor_point_ops / _errors        operations / errors in the point so far
  dbstor_point_ops_per_second       its throughput so far
  dbstor_point_latency_seconds{quantile}  percentiles of its running histogram
  dbstor_point_device_iops          this host's device IOPS, live from the sampler (absent
                                    while no device is sampled: missing is never 0)
  dbstor_last_point, dbstor_last_point_ops_per_second,
  dbstor_last_point_latency_seconds{quantile}   the last finished point, as results.json has it
  dbstor_ops_total, dbstor_errors_total   counters over the whole run
  dbstor_run_info{run,kind}         1, with the run's name and kind
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping
from typing import Any

from dbstor.analysis.histogram import LatencyHistogram
from dbstor.errors import UserError

QUANTILES = (0.5, 0.95, 0.99, 0.999)
DEFAULT_HOST = "127.0.0.1"


def _client() -> Any:
    try:
        import prometheus_client
    except ImportError:
        raise UserError(
            "--metrics-port needs the prometheus-client package: pip install 'dbstor[prometheus]'"
        ) from None
    return prometheus_client


class OptionalGauge:
    """A gauge that is absent from /metrics until it has a value, and again when its value
    becomes unknown (set(None)): a figure not measured is missing, never 0."""

    def __init__(self, pc: Any, registry: Any, name: str, doc: str) -> None:
        self._pc, self._registry, self._name, self._doc = pc, registry, name, doc
        self._gauge: Any = None

    def set(self, value: float | None) -> None:
        if value is None:
            if self._gauge is not None:
                self._registry.unregister(self._gauge)
                self._gauge = None
            return
        if self._gauge is None:
            self._gauge = self._pc.Gauge(self._name, self._doc, registry=self._registry)
        self._gauge.set(value)


class LiveFigures:
    """An HTTP endpoint with the running point's figures; close() stops it."""

    def __init__(
        self, port: int, host: str = DEFAULT_HOST, *, run: str = "", kind: str = ""
    ) -> None:
        pc = _client()
        if not 0 <= port <= 65535:
            raise UserError(f"--metrics-port {port} is not a port number (0-65535)")
        self.registry = pc.CollectorRegistry(auto_describe=True)
        r = self.registry
        self._point = pc.Gauge(
            "dbstor_point", "Number of the load point being measured", registry=r
        )
        self._load = pc.Gauge(
            "dbstor_point_load", "The load point's load, by what it is", ["what"], registry=r
        )
        self._ops = pc.Gauge("dbstor_point_ops", "Operations in the point so far", registry=r)
        self._errors = pc.Gauge("dbstor_point_errors", "Errors in the point so far", registry=r)
        self._rate = pc.Gauge(
            "dbstor_point_ops_per_second", "The point's throughput so far", registry=r
        )
        self._latency = pc.Gauge(
            "dbstor_point_latency_seconds",
            "Latency percentiles of the point so far, from its running histogram",
            ["quantile"],
            registry=r,
        )
        self._device_iops = OptionalGauge(
            pc,
            r,
            "dbstor_point_device_iops",
            "This host's device IOPS in the point's latest sample (live, once a second)",
        )
        self._last_point = pc.Gauge(
            "dbstor_last_point", "Number of the last finished load point", registry=r
        )
        self._last_rate = OptionalGauge(
            pc,
            r,
            "dbstor_last_point_ops_per_second",
            "The last finished point's throughput, as its results.json has it",
        )
        self._last_latency = pc.Gauge(
            "dbstor_last_point_latency_seconds",
            "The last finished point's latency percentiles, as its results.json has them",
            ["quantile"],
            registry=r,
        )
        self._ops_total = pc.Counter("dbstor_ops", "Operations over the run", registry=r)
        self._errors_total = pc.Counter("dbstor_errors", "Errors over the run", registry=r)
        info = pc.Gauge("dbstor_run_info", "The run being measured", ["run", "kind"], registry=r)
        info.labels(run=run, kind=kind).set(1)
        self._lock = threading.Lock()
        self._seen_ops = 0
        self._seen_errors = 0
        try:
            self._server, self._thread = pc.start_http_server(port, addr=host, registry=r)
        except OSError as exc:
            raise UserError(
                f"--metrics-port {port}: cannot listen on {host}:{port} ({exc.strerror}); "
                "choose a free port"
            ) from None
        self.host = host
        self.port = int(self._server.server_port)

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host  # an IPv6 address
        return f"http://{host}:{self.port}/metrics"

    def start_point(self, number: int, load: Mapping[str, float]) -> None:
        """A new load point begins: its number and load; its figures start from zero."""
        with self._lock:
            self._point.set(number)
            self._load.clear()
            for what, value in load.items():
                self._load.labels(what=what).set(value)
            self._ops.set(0)
            self._errors.set(0)
            self._rate.set(0)
            self._latency.clear()
            self._device_iops.set(None)
            self._seen_ops = 0
            self._seen_errors = 0

    def update(
        self,
        ops: int,
        errors: int,
        elapsed_s: float,
        histogram: LatencyHistogram | Mapping[str, Any] | None = None,
    ) -> None:
        """The point's figures so far: counts since it began, seconds, running histogram."""
        with self._lock:
            self._ops_total.inc(max(0, ops - self._seen_ops))
            self._errors_total.inc(max(0, errors - self._seen_errors))
            self._seen_ops, self._seen_errors = (
                max(ops, self._seen_ops),
                max(errors, self._seen_errors),
            )
            self._ops.set(ops)
            self._errors.set(errors)
            self._rate.set(ops / elapsed_s if elapsed_s > 0 else 0.0)
            hist = _histogram(histogram)
            if hist is not None and hist.count:
                for q in QUANTILES:
                    value = hist.percentile_ns(q * 100)
                    if value is not None:
                        self._latency.labels(quantile=f"{q:g}").set(value / 1e9)

    def device_sample(self, iops: float | None) -> None:
        """The device IOPS of the point's latest telemetry sample, while it runs."""
        with self._lock:
            self._device_iops.set(iops)

    def finish_point(
        self, number: int, ops_per_second: float | None, quantiles_s: Mapping[str, float]
    ) -> None:
        """A point finished: its figures as the results have them (latency percentiles in
        seconds by quantile, "0.5", "0.99"...), kept until the next point finishes."""
        with self._lock:
            self._last_point.set(number)
            self._last_rate.set(ops_per_second)
            self._last_latency.clear()
            for q, value in quantiles_s.items():
                self._last_latency.labels(quantile=q).set(value)

    def close(self) -> None:
        """Stop serving (safe to call twice)."""
        server = getattr(self, "_server", None)
        if server is not None:
            server.shutdown()
            server.server_close()
            self._server = None

    def __enter__(self) -> LiveFigures:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class RunningLatencies:
    """A running histogram over operations as each finishes (a query point's queries):
    figures() is the running figures' shape (drivers/running.py) for the live endpoint.
    Each latency is its own bin (exact ns), so the live percentiles rank the finished ones."""

    def __init__(self, clock: Callable[[], float] | None = None) -> None:
        self._clock = clock or time.monotonic
        self._started = self._clock()
        self._lock = threading.Lock()
        self._hist = LatencyHistogram()
        self._errors = 0

    def add(self, seconds: float | None, ok: bool = True) -> None:
        """One operation finished: its latency in seconds when it succeeded."""
        with self._lock:
            if not ok or seconds is None:
                self._errors += 1
                return
            ns = max(1, round(float(seconds) * 1e9))
            self._hist.bins[ns] += 1
            self._hist.total_ns += ns
            self._hist.max_ns = max(self._hist.max_ns, float(ns))

    def restart(self) -> None:
        """Start over: a further round of a point held until steady (runs/queries/steady.py)
        is what the live figures describe, as the point's own figures are its last round's."""
        with self._lock:
            self._started = self._clock()
            self._hist = LatencyHistogram()
            self._errors = 0

    def figures(self) -> dict[str, Any]:
        with self._lock:
            return {
                "ops": self._hist.count,
                "errors": self._errors,
                "elapsed_s": self._clock() - self._started,
                "histogram": self._hist.to_dict(),
            }


def _histogram(value: LatencyHistogram | Mapping[str, Any] | None) -> LatencyHistogram | None:
    """A LatencyHistogram from itself or from an outcome's {"bins": {"<ns>": n}, ...}."""
    if value is None or isinstance(value, LatencyHistogram):
        return value
    bins = value.get("bins") or {}
    hist = LatencyHistogram()
    for ns, n in bins.items():
        if int(n):
            hist.bins[int(float(ns))] += int(n)
    hist.total_ns = float(value.get("total_ns") or 0.0)
    hist.max_ns = float(value.get("max_ns") or 0.0)
    return hist

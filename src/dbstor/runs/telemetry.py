"""A run's telemetry beyond this host: Prometheus layers per point, and live figures out.

One RunTelemetry serves a whole study: preflight() before anything is created (every
Prometheus query once), then for each point start_point() (live: the point and its load)
and finish_point() (the point's layers side by side in results.json; live: its figures).
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable, Sequence
from typing import Any

from dbstor.results.model import LatencyStats, Point
from dbstor.study.telemetry import TelemetryConfig
from dbstor.telemetry.layers import point_layers


class RunTelemetry:
    """Layers and live figures of one study (either may be absent)."""

    def __init__(self, config: TelemetryConfig, *, run: str = "", kind: str = "") -> None:
        self.config = config
        from dbstor.telemetry.config import Layers  # Prometheus's client: only when asked

        self.layers = Layers(config)
        self.live: Any = None
        self._ticker: tuple[threading.Event, threading.Thread] | None = None
        self._run, self._kind = run, kind

    def preflight(self, window_s: float | None) -> str | None:
        """Every Prometheus query once; UserError before any load or folder. `window_s`
        None: the points last as long as their work (query points), so no sample spacing
        can be refused; the line returned then says how long a point must be for its
        Prometheus layers."""
        self.layers.preflight(math.inf if window_s is None else window_s)
        spacing = self.layers.spacing_s
        if window_s is not None or spacing is None:
            return None
        return (
            f"note: Prometheus's samples are {spacing:g} s apart: a query point shorter than "
            f"{2 * spacing:g} s gets no figures from it, and says so in its layers"
        )

    def open(self) -> None:
        """Start serving live figures when asked (after preflight, before the first point)."""
        if self.config.metrics_port is not None and self.live is None:
            from dbstor.telemetry.live import DEFAULT_HOST, LiveFigures

            host = self.config.metrics_address or DEFAULT_HOST
            self.live = LiveFigures(self.config.metrics_port, host, run=self._run, kind=self._kind)

    def close(self) -> None:
        self._stop_ticker()
        if self.live is not None:
            self.live.close()
            self.live = None

    def start_point(
        self,
        number: int,
        load: dict[str, float],
        device_iops: Callable[[], float | None] | None = None,
        running: Callable[[], dict[str, Any] | None] | None = None,
    ) -> None:
        """A point begins: live, its number and load, and (every second until it finishes)
        `device_iops()`, this host's device IOPS from the worker's latest sample, and
        `running()`, the users' running figures (ops, errors, elapsed_s, histogram)."""
        if self.live is None:
            return
        self._stop_ticker()
        self.live.start_point(number, load)
        if device_iops is not None or running is not None:
            stop = threading.Event()
            live = self.live

            def tick() -> None:
                while not stop.wait(1.0):
                    if device_iops is not None:
                        live.device_sample(device_iops())
                    figures = running() if running is not None else None
                    if figures:
                        live.update(
                            int(figures["ops"]),
                            int(figures["errors"]),
                            float(figures["elapsed_s"]),
                            figures.get("histogram"),
                        )

            self._ticker = (stop, threading.Thread(target=tick, name="dbstor-live", daemon=True))
            self._ticker[1].start()

    def _stop_ticker(self) -> None:
        if self._ticker is not None:
            stop, thread = self._ticker
            stop.set()
            thread.join(timeout=5)
            self._ticker = None

    def finish_point(
        self,
        number: int,
        point: Point,
        windows: Sequence[tuple[float, float]],
        client_source: str,
    ) -> None:
        """Fill point.layers from the measured windows (epoch seconds), and publish the
        point's figures live."""
        self._stop_ticker()
        if self.layers:
            fetched = [self.layers.point_layers(start, end) for start, end in windows]
            point.layers = point_layers(point, client_source, merge_windows(fetched))
        if self.live is not None:
            rate = point.iops if point.tps is None else point.tps
            if rate is not None:  # nothing measured: the gauges stay absent, never 0
                self.live.update(round(rate * point.duration_s), point.errors, point.duration_s)
            self.live.finish_point(number, rate, _stats_seconds(point))


def measured_window(
    started_at: float, warmup_s: float, duration_s: float, samples: Sequence[dict[str, Any]] = ()
) -> tuple[float, float]:
    """A point's measured window in epoch seconds, the one its /proc figures cover: from
    the end of the warm-up to the sampler's last snapshot (the end of the duration when
    there are no samples), so that every layer is read over the same seconds."""
    times = [float(s["t_s"]) for s in samples if s.get("t_s") is not None]
    if not times:
        return started_at + warmup_s, started_at + warmup_s + duration_s
    # The snapshot Sampler.summarise() starts from: the nearest to the warm-up's end.
    first = min(reversed([0.0, *times]), key=lambda t: abs(t - warmup_s))
    return started_at + first, started_at + times[-1]


def storage_text(point: Point) -> str:
    """The terminal line's storage-side latency, when the point has a storage layer."""
    storage = (point.layers or {}).get("storage")
    if not storage:
        return ""
    if "missing" in storage:
        return "  storage -"
    parts = [
        f"{word} {storage[key]:.3f} ms"
        for word, key in (("read", "read_latency_ms"), ("write", "write_latency_ms"))
        if isinstance(storage.get(key), (int, float))
    ]
    return f"  storage {', '.join(parts)}" if parts else ""


def merge_windows(
    per_window: Sequence[dict[str, dict[str, object]]],
) -> dict[str, dict[str, object]]:
    """Repeats of one point: each layer's figures averaged over the windows that have them;
    a layer missing in any window keeps the first reason."""
    if len(per_window) == 1:
        return per_window[0]
    out: dict[str, dict[str, object]] = {}
    layers = dict.fromkeys(layer for window in per_window for layer in window)
    for layer in layers:
        entries = [w[layer] for w in per_window if layer in w]
        missing = next((e["missing"] for e in entries if "missing" in e), None)
        merged: dict[str, object] = {"source": entries[0].get("source")}
        if missing is not None:
            merged["missing"] = missing
        else:
            keys = dict.fromkeys(k for e in entries for k in e if k != "source")
            for key in keys:
                values = [e[key] for e in entries if isinstance(e.get(key), (int, float))]
                if values:
                    merged[key] = sum(values) / len(values)  # type: ignore[arg-type]
        out[layer] = merged
    return out


def _stats_seconds(point: Point) -> dict[str, float]:
    stats: LatencyStats | None = point.txn_lat_ms or point.read_lat_ms or point.write_lat_ms
    if stats is None:
        return {}
    pairs = {"0.5": stats.p50, "0.95": stats.p95, "0.99": stats.p99, "0.999": stats.p999}
    return {q: v / 1000.0 for q, v in pairs.items() if v is not None}

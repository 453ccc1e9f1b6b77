"""A telemetry source backed by Prometheus: one preset, one label selection, one layer.

preflight() runs every query once before any load and raises UserError (one line) when
Prometheus does not answer, a query returns no series, the metric's type contradicts its
preset, or its samples are further apart than the point is long. fetch() asks
`query_range` over a point's window with step = the sample interval for the per-step
series, and the raw samples in the window for the exact window figure; when Prometheus
fails it returns the reason instead of raising.
"""

from __future__ import annotations

import itertools
import math
import statistics
import time
from collections.abc import Callable, Sequence
from typing import Any

from dbstor.errors import UserError
from dbstor.telemetry.prometheus.client import PrometheusClient, PrometheusError
from dbstor.telemetry.prometheus.own import other_kind_key
from dbstor.telemetry.prometheus.presets import Preset, QuerySpec
from dbstor.telemetry.prometheus.selectors import (
    Matcher,
    parse_matchers,
    plain_selector,
    selector,
)
from dbstor.telemetry.sources import LATENCY_OPS, Fetched, Series

PREFLIGHT_LOOKBACK_S = 300.0  # how far back preflight looks for samples
PREFLIGHT_STEP_S = 5.0  # the step preflight evaluates a user's PromQL expression at

Raw = list[tuple[float, float]]


class PrometheusSource:
    """Reads `preset`'s quantities for the series matching `selection` as `layer`."""

    def __init__(
        self,
        client: PrometheusClient,
        preset: Preset,
        selection: str = "",
        layer: str | None = None,
        *,
        clock: Callable[[], float] | None = None,
    ) -> None:
        layer = layer or preset.layers[0]
        if layer not in preset.layers:
            raise UserError(
                f"preset {preset.name} measures {', '.join(preset.layers)}, not {layer}"
            )
        self.client = client
        self.preset = preset
        self.layer = layer
        self.name = preset.name
        self.selection: tuple[Matcher, ...] = parse_matchers(selection, f"{preset.name} selection")
        self._clock = clock
        self.spacing_s: float | None = None  # the widest gap between samples preflight saw

    # --- the queries ---------------------------------------------------------------

    def selectors(self, spec: QuerySpec) -> tuple[str, str | None]:
        """The PromQL for one quantity (the ratio's denominator second): the user's own
        query as it is, or the preset metric's selector with the selection's labels."""
        main = spec.query or selector(spec.metric, spec.match, self.selection, drop=spec.drop)
        per = spec.per_query
        if spec.per is not None:
            per = selector(spec.per, spec.per_match, self.selection, drop=spec.drop)
        return main, per

    # --- preflight -----------------------------------------------------------------

    def preflight(self, window_s: float) -> None:
        """Run every query once: UserError naming the first that cannot work."""
        at = self._now()
        for spec in self.preset.quantities.values():
            for expr, counter in self._exprs(spec):
                where = f"{spec.label or f'{self.name} {spec.quantity}'}: {expr}"
                metric = plain_selector(expr)
                if metric is None:
                    self._preflight_expression(spec, expr, where, at)
                    continue
                try:
                    result = self.client.query(f"{expr}[{_dur(PREFLIGHT_LOOKBACK_S)}]", at)
                    meta = self.client.metadata(metric)
                except PrometheusError as exc:
                    raise _preflight_error(exc, where) from None
                series = result.get("result") or []
                if not series:
                    raise self._no_series(spec, where)
                types = {m.get("type") for m in meta} - {None, "", "unknown"}
                want = "counter" if counter else "gauge"
                if types and want not in types:
                    raise UserError(f"{where}: {_type_fault(spec, metric, types, want)}")
                spacing = _spacing(series)
                if spacing is not None:
                    self.spacing_s = max(spacing, self.spacing_s or 0.0)
                if spacing is not None and spacing > window_s:
                    raise UserError(
                        f"{where}: samples are {spacing:.0f} s apart, longer than a "
                        f"{window_s:g} s point; scrape more often or run longer points"
                    )

    def _preflight_expression(self, spec: QuerySpec, expr: str, where: str, at: float) -> None:
        """A user's PromQL expression (not a plain selector): Prometheus evaluates it over
        the last minutes; its error (bad PromQL) or an empty answer stops the run."""
        try:
            rows = self.client.query_range(expr, at - PREFLIGHT_LOOKBACK_S, at, PREFLIGHT_STEP_S)
        except PrometheusError as exc:
            raise _preflight_error(exc, where) from None
        if not any(row.get("values") for row in rows):
            raise self._no_series(spec, where)

    def _no_series(self, spec: QuerySpec, where: str) -> UserError:
        if spec.query is not None or spec.per_query is not None:
            fix = "check its labels and that Prometheus scrapes the exporter"
        else:
            example = self.preset.example_selection or "instance=..."
            fix = f"check the selection (e.g. {example}) and the exporter"
        return UserError(
            f"{where} returned no series from {self.client.url} in the last "
            f"{PREFLIGHT_LOOKBACK_S:.0f} s; {fix}"
        )

    def _exprs(self, spec: QuerySpec) -> list[tuple[str, bool]]:
        main, per = self.selectors(spec)
        counter = spec.kind != "gauge"
        out = [(main, counter)]
        if per is not None:
            out.append((per, True))
        return out

    # --- fetch ---------------------------------------------------------------------

    def fetch(self, start: float, end: float, step: float) -> Fetched:
        """The preset's quantities over [start, end]; never raises for Prometheus's faults."""
        try:
            series = self._fetch(start, end, step)
        except PrometheusError as exc:
            return Fetched(self.name, self.layer, missing=str(exc))
        if not series:
            return Fetched(self.name, self.layer, missing=self._why_empty(end - start))
        return Fetched(self.name, self.layer, tuple(series))

    def _fetch(self, start: float, end: float, step: float) -> list[Series]:
        steps: dict[str, dict[float, float]] = {}
        summaries: dict[str, float | None] = {}
        gauges: dict[str, list[dict[str, Any]]] = {}
        window = f"the point's {end - start:.1f} s window"
        why: dict[str, str] = {}  # a quantity the preset reads that gave no figure -> why
        for spec in self.preset.quantities.values():
            main, per = self.selectors(spec)
            if spec.kind == "gauge":
                gauges[spec.quantity] = self.client.query_range(main, start, end, step)
                why[spec.quantity] = f"no samples of {spec.metric} in {window}"
                continue
            num = self._counter(main, start, end, step)
            den = self._counter(per, start, end, step) if per else None
            if num is None or (per and den is None):
                why[spec.quantity] = (
                    f"no samples of {spec.metric if num is None else per} in {window}"
                )
                continue
            per_step, total = _counter_figures(spec, num, den)
            why[spec.quantity] = (
                f"fewer than two samples of {spec.metric} in {window}, or its divisor did not move"
            )
            per_step, total, unresolved = latency_resolved(spec, per_step, total, window)
            why[spec.quantity] = unresolved or why[spec.quantity]
            steps[spec.quantity] = per_step
            summaries[spec.quantity] = total
        for quantity, rows in gauges.items():
            spec = self.preset.quantities[quantity]
            ops_quantity = LATENCY_OPS.get(quantity)
            ops_spec = self.preset.quantities.get(ops_quantity or "")
            weights = gauges.get(ops_quantity or "")
            if ops_spec is None or ops_spec.kind != "gauge":
                weights = None
            steps[quantity] = _combine_gauges(spec, rows, weights, ops_spec)
        out: list[Series] = []
        labels = {"selection": ",".join(str(m) for m in self.selection)}
        came = False  # some value came, a figure or not (+Inf, a negative): say which
        for quantity in why:
            points = steps.get(quantity) or {}
            if quantity in summaries:
                summary = summaries[quantity]
            else:
                weights = steps.get(LATENCY_OPS.get(quantity, ""))
                summary = _weighted_mean(points, weights) if points else None
            came = came or summary is not None or bool(points)
            out.append(
                Series(
                    quantity,
                    self.layer,
                    tuple(sorted(points.items())),
                    summary,
                    source=self.name,
                    labels=labels,
                    why_null=None if summary is not None else why[quantity],
                )
            )
        if not came:
            return []  # nothing at all: the window's reason stands for every quantity
        return out

    def _why_empty(self, window_s: float) -> str:
        """Why a window gave no figure: too short for two samples, or none came."""
        spacing = self.spacing_s
        if spacing is not None and window_s < 2 * spacing:
            return (
                f"the point's {window_s:.1f} s window is shorter than two of Prometheus's "
                f"samples ({spacing:g} s apart), too few for a figure; run longer points or "
                "scrape more often"
            )
        return f"no samples from {self.client.url} in the window"

    def _counter(
        self, expr: str, start: float, end: float, step: float
    ) -> tuple[list[Raw], list[Raw]] | None:
        """(per-step values of each series, raw samples in the window of each series); an
        expression that is not a plain selector has no raw samples: its steps stand in."""
        stepped = [_values(r) for r in self.client.query_range(expr, start, end, step)]
        raw = stepped
        if plain_selector(expr) is not None:
            result = self.client.query(f"{expr}[{_dur(end - start)}]", end).get("result") or []
            raw = [_values(r) for r in result]
        if not stepped and not raw:
            return None
        return stepped, raw

    def _now(self) -> float:
        return (self._clock or time.time)()


def _preflight_error(exc: PrometheusError, where: str) -> UserError:
    if exc.code == 400:  # Prometheus's own word on the PromQL (a parse or type error)
        return UserError(f"{where}: {exc}; fix the query")
    return UserError(f"{exc}; check --prometheus and that it is running")


def _type_fault(spec: QuerySpec, metric: str, types: set[str], want: str) -> str:
    said = f"Prometheus says {metric} is a {'/'.join(sorted(types))}"
    if not spec.label:  # a preset's (a file's own queries too)
        return f"{said}, the preset reads it as a {want}: its units are not what the preset says; fix the preset"
    flag, _, key = spec.label.rpartition(" ")
    twin = other_kind_key(key)
    if want == "gauge":
        instead = f"{flag} {twin}=" if twin else "a key ending in _total"
        return (
            f"{said} (cumulative), read here as a figure per second or per operation; give it "
            f"as {instead} (dbstor takes its increase) or wrap it in rate()"
        )
    instead = f"{flag} {twin}=" if twin else "a key without _total"
    return f"{said}, not cumulative as {key} reads it; give it as {instead}"


# --- arithmetic on samples --------------------------------------------------------------


def _values(row: dict[str, Any]) -> Raw:
    return [(float(t), float(v)) for t, v in row.get("values") or []]


def _dur(seconds: float) -> str:
    """A PromQL duration in whole milliseconds."""
    return f"{max(1, round(seconds * 1000))}ms"


def _spacing(series: Sequence[dict[str, Any]]) -> float | None:
    """The median gap between raw samples of the first series with two or more."""
    for row in series:
        ts = [float(t) for t, _ in row.get("values") or []]
        if len(ts) >= 2:
            return statistics.median(b - a for a, b in itertools.pairwise(ts))
    return None


def increase(samples: Raw) -> float:
    """A counter's increase over its samples, a reset (a drop) counting from zero."""
    total = 0.0
    for (_, a), (_, b) in itertools.pairwise(samples):
        total += b - a if b >= a else b
    return total


def _counter_figures(
    spec: QuerySpec,
    num: tuple[list[Raw], list[Raw]],
    den: tuple[list[Raw], list[Raw]] | None,
) -> tuple[dict[float, float], float | None]:
    """Per-step figures and the window figure of a counter or a ratio of counters."""
    num_steps = _step_increases(num[0])
    if den is None:  # counter: increase per second
        per_step = {t: d / dt * spec.factor for t, (d, dt) in num_steps.items() if dt > 0}
        rates = [increase(s) / (s[-1][0] - s[0][0]) for s in num[1] if len(s) >= 2]
        total = math.fsum(rates) * spec.factor if rates else None
        return per_step, total
    den_steps = _step_increases(den[0])
    per_step = {
        t: d / den_steps[t][0] * spec.factor
        for t, (d, _) in num_steps.items()
        if t in den_steps and den_steps[t][0] > 0
    }
    n = math.fsum(increase(s) for s in num[1])
    d = math.fsum(increase(s) for s in den[1])
    return per_step, (n / d * spec.factor if d > 0 else None)


def latency_resolved(
    spec: QuerySpec, per_step: dict[float, float], total: float | None, window: str
) -> tuple[dict[float, float], float | None, str | None]:
    """A latency of time spent over operations whose time counter did not move while
    operations completed is under the counter's resolution (node_exporter's disk times
    count whole milliseconds), not 0: those steps dropped, the window's figure None and why."""
    if spec.quantity not in LATENCY_OPS:
        return per_step, total, None
    kept = {t: v for t, v in per_step.items() if v > 0}
    if total != 0:
        return kept, total, None
    return (
        kept,
        None,
        (
            f"{spec.metric} did not move in {window} though operations completed: their "
            "time was under its counter's resolution (disk times count whole milliseconds)"
        ),
    )


def _step_increases(series: list[Raw]) -> dict[float, tuple[float, float]]:
    """Step time -> (increase summed over the series since the previous step, seconds)."""
    out: dict[float, tuple[float, float]] = {}
    for values in series:
        for (t0, a), (t1, b) in itertools.pairwise(values):
            d = b - a if b >= a else b
            prev = out.get(t1, (0.0, t1 - t0))
            out[t1] = (prev[0] + d, t1 - t0)
    return out


def _combine_gauges(
    spec: QuerySpec,
    rows: list[dict[str, Any]],
    ops_rows: list[dict[str, Any]] | None = None,
    ops_spec: QuerySpec | None = None,
) -> dict[float, float]:
    """Per step: rates summed over the series (volumes add up); latencies averaged over the
    series weighted by each one's operations (matched by labels but the metric name and
    `dimension`) when `ops_rows` has them, else plainly; CPU averaged."""
    weights: dict[tuple[tuple[str, str], ...], dict[float, float]] = {}
    for row in ops_rows or ():
        weights[_identity(row)] = {
            t: v * (ops_spec.factor if ops_spec else 1.0) for t, v in _values(row)
        }
    if not all(_identity(row) in weights for row in rows):
        weights = {}  # some series have no ops beside them: weigh all alike
    sums: dict[float, float] = {}
    totals: dict[float, float] = {}
    additive = spec.quantity.endswith(("_iops", "_mbps"))
    for row in rows:
        series_weights = weights.get(_identity(row))
        for t, v in _values(row):
            if math.isnan(v):
                continue
            w = 1.0
            if not additive and series_weights is not None:
                w = series_weights.get(t, 0.0)
            sums[t] = sums.get(t, 0.0) + v * spec.factor * w
            totals[t] = totals.get(t, 0.0) + w
    if additive:
        return sums
    return {t: sums[t] / totals[t] for t in sums if totals[t] > 0}


def _identity(row: dict[str, Any]) -> tuple[tuple[str, str], ...]:
    labels = row.get("metric") or {}
    return tuple(sorted((k, v) for k, v in labels.items() if k not in ("__name__", "dimension")))


def _weighted_mean(points: dict[float, float], weights: dict[float, float] | None) -> float:
    """Mean of the points; weighted by `weights` at the same steps when they carry any."""
    if weights:
        pairs = [(v, weights[t]) for t, v in points.items() if t in weights]
        total = math.fsum(w for _, w in pairs)
        if total > 0:
            return math.fsum(v * w for v, w in pairs) / total
    return math.fsum(points.values()) / len(points)

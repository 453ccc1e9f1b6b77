"""An event's impact on the load, from the point's per-second figures.

Second s of the measured window is [s, s+1). For each event record (events/schedule.py):

- baseline: mean throughput (and mean per-second latency) over up to BASELINE_S whole
  seconds before the event started; null with a reason with fewer than MIN_BASELINE_S;
- band: how far below the baseline a second must fall to count, TOLERANCE (5%) or twice
  the baseline seconds' own spread (their coefficient of variation) where that is wider,
  at most MAX_BAND: a load whose seconds vary by 8% around their mean would otherwise dip
  on its noise and never be back from an event;
- dip: the first second at or after the event's start (the second it started in
  included) whose throughput is below (1 - band) x baseline; the lowest throughput
  and highest per-second latency from the event's start until recovery; the search ends
  where the next event that begins after this one ended begins (that dip is its own);
- recovery: the first second after the dip whose throughput is back within the band of
  the baseline; `back_after_s` counts from the event's start, `back_after_end_s` from its
  end; null with a reason when it never came back inside the window;
- device: the device's per-second rates averaged over the seconds the event lasted and
  over the baseline's seconds (a snapshot's copy-on-write shows in the writes).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from typing import Any

from dbstor.analysis.histogram import LatencyHistogram
from dbstor.drivers.second_bins import p99_per_second_ms

BASELINE_S = 10
MIN_BASELINE_S = 2
TOLERANCE = 0.05
NOISE_SPREADS = 2.0  # the band is at least this many of the baseline seconds' spreads
MAX_BAND = 0.5  # a baseline noisier than this tells no dip from its own seconds
DEVICE_KEYS = ("dev_read_iops", "dev_write_iops", "dev_read_mbps", "dev_write_mbps")


def _mean(values: Sequence[float | None]) -> float | None:
    got = [v for v in values if v is not None and math.isfinite(v)]
    return sum(got) / len(got) if got else None


def _round(value: float | None, digits: int = 3) -> float | None:
    return None if value is None else round(value, digits)


def band(baseline_seconds: Sequence[float]) -> float:
    """How far below the baseline's mean a second must be to be part of a dip (a share):
    TOLERANCE, or NOISE_SPREADS coefficients of variation of the baseline's seconds where
    wider, at most MAX_BAND."""
    got = [v for v in baseline_seconds if v is not None and math.isfinite(v)]
    if len(got) < 2 or not sum(got):
        return TOLERANCE
    mean = sum(got) / len(got)
    spread = math.sqrt(sum((v - mean) ** 2 for v in got) / (len(got) - 1)) / mean
    return min(MAX_BAND, max(TOLERANCE, NOISE_SPREADS * spread))


def band_pct(impact: dict[str, Any]) -> str:
    """The impact's band in words ('5%'); older results had 5% always."""
    value = impact.get("band_pct")
    return f"{5 if value is None else value:g}%"


def floor_pct(impact: dict[str, Any]) -> str:
    """The share of the baseline a second must fall below to dip, in words ('95%')."""
    return f"{100 - (impact.get('band_pct') or 5):g}%"


def event_impact(
    record: dict[str, Any],
    throughput: Sequence[float],
    latency_ms: Sequence[float | None],
    device_rows: Sequence[dict[str, Any] | None],
    unit: str,
    busy: Sequence[tuple[float, float]] = (),
    second_bins: Sequence[Counter[int]] | None = None,
) -> dict[str, Any]:
    """The record with its impact added (a new dict): baseline, dip, recovery, device.
    `busy`: other events' (start, end); the baseline leaves out their seconds and the
    second after each. `second_bins`: the transactions' latency bins per second (a
    database point's), for the p99s; None where there are none (fio's)."""
    out = dict(record)
    started, ended = record.get("started_s"), record.get("ended_s")
    if started is None:
        return out | {"impact": None, "impact_reason": "the event did not happen"}
    ended = started if ended is None else ended
    first = max(0, math.floor(started))
    taken = {s for a, b in busy for s in range(math.floor(a), math.ceil(b) + 1)}
    base = [s for s in range(first) if s not in taken][-BASELINE_S:]
    if len(base) < MIN_BASELINE_S:
        reason = f"fewer than {MIN_BASELINE_S} measured seconds before the event"
        return out | {"impact": None, "impact_reason": reason}
    before = [throughput[s] for s in base if s < len(throughput)]
    baseline = _mean(before)
    if not baseline:
        return out | {"impact": None, "impact_reason": "no throughput before the event"}
    share = band(before)
    floor = (1 - share) * baseline
    # up to the next event that begins after this one ended: its dip is its own
    later = [math.floor(a) for a, _ in busy if a >= ended and math.floor(a) > first]
    limit = min([*later, len(throughput)])
    seconds = range(first, limit)
    dip_start = next((s for s in seconds if throughput[s] < floor), None)
    recovered = None
    if dip_start is not None:
        recovered = next((s for s in range(dip_start, limit) if throughput[s] >= floor), None)
    stop = recovered if recovered is not None else limit
    during = list(range(first, max(stop, first + 1)))
    lows = [(throughput[s], s) for s in during if s < len(throughput)]
    low, low_at = min(lows) if lows else (None, None)
    lats = [(latency_ms[s], s) for s in during if s < len(latency_ms) and latency_ms[s] is not None]
    high, high_at = max(lats) if lats else (None, None)
    impact: dict[str, Any] = {
        "unit": unit,
        "baseline": {
            "seconds": base,
            "throughput": _round(baseline),
            "latency_mean_ms": _round(_mean([latency_ms[s] for s in base if s < len(latency_ms)])),
        },
        "dip": None
        if dip_start is None
        else {
            "started_at_s": dip_start,
            "lowest": _round(low),
            "lowest_at_s": low_at,
            "depth_pct": _round(100 * (1 - low / baseline), 1) if low is not None else None,
            "highest_latency_mean_ms": _round(high),
            "highest_latency_at_s": high_at,
        },
        "band_pct": round(100 * share, 1),
        "recovered_at_s": recovered,
        "back_after_s": None if recovered is None else _round(max(0.0, recovered - started)),
        "back_after_end_s": None if recovered is None else _round(max(0.0, recovered - ended)),
        "device": _device(device_rows, base, started, ended),
        "next_event_at_s": limit if limit < len(throughput) else None,  # where the search ended
    }
    seen = during if dip_start is not None else list(range(first, min(math.ceil(ended) + 1, limit)))
    impact.update(_p99(second_bins, base, seen, len(throughput)))
    if impact["dip"] is not None:
        impact["dip"]["highest_p99_ms"] = impact["latency_p99"]
        impact["dip"]["highest_p99_at_s"] = impact["latency_p99_at_s"]
    if dip_start is not None and recovered is None:
        within = f"throughput was not back within {band_pct(impact)}"
        impact["recovery_reason"] = (
            f"{within} before the point ended"
            if limit == len(throughput)
            else f"{within} before the next event (at {limit}s)"
        )
    return out | {"impact": impact}


def _p99(
    bins: Sequence[Counter[int]] | None, base: list[int], seen: list[int], n: int
) -> dict[str, Any]:
    """The highest per-second p99 over `seen` (the dip until recovery, else the event's
    seconds and the one after) and the baseline's p99 from its seconds' bins merged."""
    if bins is None:
        return {
            "latency_p99": None,
            "latency_p99_at_s": None,
            "baseline_p99_ms": None,
            "latency_p99_reason": "per-second latency bins are kept for database points "
            "only; fio's per-second figures are IOPS",
        }
    per_second = p99_per_second_ms(bins) or []
    found = [(per_second[s], s) for s in seen if s < min(n, len(per_second)) and per_second[s]]
    high, high_at = max(found) if found else (None, None)
    merged: Counter[int] = Counter()
    for s in base:
        if s < len(bins):
            merged.update(bins[s])
    base_ns = LatencyHistogram(bins=merged).percentile_ns(99.0)
    return {
        "latency_p99": _round(high),
        "latency_p99_at_s": high_at,
        "baseline_p99_ms": None if base_ns is None else _round(base_ns / 1e6),
        "latency_p99_reason": None if found else "no transaction finished in those seconds",
    }


def _device(rows: Sequence[dict[str, Any] | None], base: list[int], start: float, end: float):
    span = range(math.floor(start), max(math.ceil(end), math.floor(start) + 1))

    def over(seconds: Sequence[int]) -> dict[str, float | None]:
        picked = [rows[s] for s in seconds if 0 <= s < len(rows) and rows[s]]
        return {k: _round(_mean([r.get(k) for r in picked if r])) for k in DEVICE_KEYS}

    return {"during": over(list(span)), "baseline": over(base), "seconds": [span[0], span[-1] + 1]}


def device_per_second(samples: Sequence[dict[str, Any]], warmup_s: float, n: int) -> list:
    """The host's samples (t_s: the end of each interval since the sampler started) as
    one row per measured second (None where no sample falls)."""
    rows: list[dict[str, Any] | None] = [None] * n
    for sample in samples:
        second = round(sample["t_s"] - warmup_s) - 1
        if 0 <= second < n:
            rows[second] = sample
    return rows


def impact_line(event: dict[str, Any]) -> str:
    """One terminal line: what happened and what the load felt."""
    head = f"  event {event['kind']} at {event['at_s']:g}s"
    if event.get("for_s"):
        head += f" for {event['for_s']:g}s"
    if event.get("ok") is False:
        head += f": FAILED: {event.get('error')}"
    head += server_text(event.get("details") or {})
    impact = event.get("impact")
    if impact is None:
        return head + f"; impact: {event.get('impact_reason', 'not measured')}"
    unit, base = impact["unit"], impact["baseline"]["throughput"]
    text = f"{head}; baseline {base:,.0f} {unit}"
    dip = impact["dip"]
    if dip is None:
        return text + f"; no dip below {floor_pct(impact)} of it"
    text += f"; dip {dip['depth_pct']:.0f}% (lowest {dip['lowest']:,.0f} {unit} at {dip['lowest_at_s']}s)"
    if impact.get("latency_p99") is not None:
        text += f", p99 up to {impact['latency_p99']:,.1f} ms"
    if impact["back_after_s"] is None:
        return text + "; " + impact.get("recovery_reason", f"not back within {band_pct(impact)}")
    writes = impact["device"]["during"].get("dev_write_mbps")
    extra = f"; device writes {writes:.1f} MB/s during it" if writes is not None else ""
    back = f"back within {band_pct(impact)} {impact['back_after_s']:g}s after it began"
    return f"{text}; {back}{extra}"


def server_text(details: dict[str, Any]) -> str:
    """What a crash or checkpoint did, in words ('' for the other kinds)."""
    text = ""
    if details.get("ready_s") is not None:
        text += f": server back after {details['ready_s']:g}s"
        if details.get("first_commit_s") is not None:
            text += f", first commit after {details['first_commit_s']:g}s"
    elif "statement" in details and details.get("duration_s") is not None:
        text += f": {details['statement']} took {details['duration_s']:g}s"
    checked = details.get("durability")
    if checked:
        if checked.get("lost") is None:
            text += f"; lost: not known ({checked.get('reason')})"
        else:
            text += (
                f"; {checked['lost']} of {checked['acknowledged']:,} acknowledged "
                f"{checked['transaction']}s lost"
            )
        broken = checked.get("consistency_broken")
        if broken is not None:
            text += "; consistency holds" if not broken else f"; BROKEN: {', '.join(broken)}"
    return text

"""Write bursts in a point's per-second device writes: the checkpoints of a database that
writes its dirty pages in spikes above the steady write-ahead log (TR-4403 §3.5), named
with their size and period, and stated only when they are really there: at least two
spikes, each well above the seconds between them, that are not the point's usual level.
"""

from __future__ import annotations

import itertools
import statistics
from collections.abc import Mapping, Sequence
from typing import Any

MIN_SECONDS = 6  # fewer measured seconds than this cannot show a period
MIN_BURSTS = 2  # one spike is an event, not a pattern with a period
SPIKE_OVER_BASE = 3.0  # a burst second writes at least this many times the median second
MIN_SPIKE_MBPS = 1.0  # ... and at least this much more (an idle device's jitter is not one)
MAX_BURST_SHARE = 0.4  # spikes in more of the seconds than this are the level, not bursts


def write_bursts(
    samples: Sequence[Mapping[str, Any]], warmup_s: float = 0.0
) -> dict[str, Any] | None:
    """The write bursts among a point's samples (rows with t_s and dev_write_mbps), over the
    measured seconds (after `warmup_s`); None when there are none to state.

    Returns count, period_s (the median time between burst starts), mb_mean (MB written
    per burst above the seconds between bursts), peak_mbps, base_mbps (the median second)
    and the seconds each burst started at."""
    rows = [
        (float(s["t_s"]), float(s["dev_write_mbps"]))
        for s in samples
        if s.get("dev_write_mbps") is not None
        and s.get("t_s") is not None
        and float(s["t_s"]) - 0.5 > warmup_s
    ]
    if len(rows) < MIN_SECONDS:
        return None
    base = statistics.median(v for _, v in rows)
    line = max(base * SPIKE_OVER_BASE, base + MIN_SPIKE_MBPS)
    bursts: list[list[tuple[float, float, float]]] = []
    previous_t = None
    for i, (t, mbps) in enumerate(rows):
        seconds = t - previous_t if previous_t is not None else 1.0
        previous_t = t
        if mbps < line:
            continue
        if bursts and bursts[-1][-1][2] == i - 1:
            bursts[-1].append((t, mbps * seconds, i))
        else:
            bursts.append([(t, mbps * seconds, i)])
    spiked = sum(len(b) for b in bursts)
    if len(bursts) < MIN_BURSTS or spiked > MAX_BURST_SHARE * len(rows):
        return None
    starts = [b[0][0] - 1.0 for b in bursts]  # a sample's t_s is its interval's end
    sizes = [sum(mb for _, mb, _ in b) - base * len(b) for b in bursts]
    peak = max(mb for b in bursts for _, mb, _ in b)
    return {
        "count": len(bursts),
        "period_s": round(statistics.median(b - a for a, b in itertools.pairwise(starts)), 1),
        "mb_mean": round(statistics.fmean(sizes), 2),
        "peak_mbps": round(peak, 2),
        "base_mbps": round(base, 2),
        "starts_s": [round(s - warmup_s, 1) for s in starts],
        "source": "per-second device writes (samples.csv), measured seconds",
    }


def bursts_text(bursts: Mapping[str, Any] | None) -> str:
    """'3 write bursts of 41 MB every 9 s (peak 52 MB/s over 4.1 MB/s between)', or ''."""
    if not bursts:
        return ""
    return (
        f"{bursts['count']} write bursts of {bursts['mb_mean']:,.0f} MB every "
        f"{bursts['period_s']:g} s (peak {bursts['peak_mbps']:,.0f} MB/s over "
        f"{bursts['base_mbps']:,.1f} MB/s between)"
    )

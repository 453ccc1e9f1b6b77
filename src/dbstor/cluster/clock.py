"""Clock offsets between the coordinator and each host, and the start skew of a point.

Offset of a host = its clock minus the coordinator's, estimated from round trips: the host
reads its clock somewhere between the coordinator's send (t0) and receive (t1), so
offset = remote - (t0 + t1) / 2 within +/- (t1 - t0) / 2. The median of about 20 round trips
is the estimate; the error bound is half the round trip of the sample closest to it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from statistics import median

ROUND_TRIPS = 20
SKEW_FLOOR_S = 0.050  # a point is flagged when its start skew exceeds the larger of this
SKEW_SHARE = 0.01  # and this share of the point's duration


@dataclass(frozen=True)
class ClockOffset:
    offset_s: float  # host clock minus coordinator clock
    bound_s: float  # half the round trip behind the estimate
    round_trips: int


def offset_from_samples(samples: Iterable[tuple[float, float, float]]) -> ClockOffset:
    """(t0, remote, t1) round trips -> the median offset and its error bound."""
    rows = [(remote - (t0 + t1) / 2.0, (t1 - t0) / 2.0) for t0, remote, t1 in samples]
    if not rows:
        raise ValueError("no round trips")
    estimate = median(offset for offset, _ in rows)
    nearest = min(rows, key=lambda row: (abs(row[0] - estimate), row[1]))
    return ClockOffset(offset_s=estimate, bound_s=nearest[1], round_trips=len(rows))


def measure_offset(
    read_remote: Callable[[], float], now: Callable[[], float], round_trips: int = ROUND_TRIPS
) -> ClockOffset:
    """Estimate one host's offset by calling read_remote() round_trips times."""
    samples = []
    for _ in range(round_trips):
        t0 = now()
        remote = read_remote()
        t1 = now()
        samples.append((t0, remote, t1))
    return offset_from_samples(samples)


def skew_limit_s(duration_s: float) -> float:
    """The largest start skew a point of this length may have before it is flagged."""
    return max(SKEW_FLOOR_S, SKEW_SHARE * duration_s)


def start_skew(
    started_at: Mapping[str, float], offsets: Mapping[str, ClockOffset]
) -> tuple[float, dict[str, float]]:
    """Each host's real start on the coordinator's clock, and the skew (max - min) in s."""
    starts = {host: at - offsets[host].offset_s for host, at in started_at.items()}
    if not starts:
        return 0.0, {}
    return max(starts.values()) - min(starts.values()), starts


def start_instants(
    coordinator_start: float, offsets: Mapping[str, ClockOffset]
) -> dict[str, float]:
    """The one start instant, told to each host in its own clock."""
    return {host: coordinator_start + offset.offset_s for host, offset in offsets.items()}

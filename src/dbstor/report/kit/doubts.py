"""Whether a headline may stand on its points: the one test every sentence, caption and
chart mark of the document asks before it states a point's figure.

It asks analysis/trust.py's `untrustworthy` for each point and phrases the answer with the
points' flags ("QD 32 flagged not steady"). One allowance: a fio run's IOPS are fio's own
(counted from its output), so a shared device refuses them only when most of the device's
I/O was other processes'; a database run's IOPS are what the device saw, so any shared
device refuses them.
"""

from __future__ import annotations

from dbstor.analysis.trust import reads_from_memory, untrustworthy
from dbstor.report.kit.summary import (
    is_database,
    knee_of,
    knee_sentence,
    ok_points,
    peak_of,
    peak_sentence,
    point_label,
)
from dbstor.results.model import Point, Run

MOSTLY_FOREIGN = "mostly other processes' I/O"
SHARED = "shared device"
MOSTLY = 0.5  # over half of the device's I/O was not the run's own


def point_doubts(point: Point, device_iops: bool) -> list[str]:
    """The flags that keep a headline off this point ([] when it may carry one).
    device_iops: the figure stated is the device's (a database run), not the tool's own."""
    # a knee or peak sentence states one point's figure as the storage's: it stands only on
    # a point that may carry a claim and was steady on a device of its own (a factor, with
    # its interval, keeps such a point and flags it: analysis/factor_interval.py)
    held = point.trust.steady is False or point.shared_device
    if not point.ok or (untrustworthy(point) is None and not held):
        return []
    flags = []
    if reads_from_memory(point):
        flags.append("from memory")
    if point.trust.steady is False:
        flags.append("not steady")
    share = point.foreign_io_share
    if point.shared_device and device_iops:
        flags.append(MOSTLY_FOREIGN if share is not None and share > MOSTLY else SHARED)
    elif point.shared_device and share is not None and share > MOSTLY:
        flags.append(MOSTLY_FOREIGN)
    return flags


FOREIGN = (MOSTLY_FOREIGN, SHARED)  # the flags that say whose the device's I/O was


def doubts(
    points: list[Point], device_iops: bool = False, only: tuple[str, ...] | None = None
) -> str:
    """The flags that make these points untrustworthy for a headline, with where ('' when
    none): 'QD 32, QD 64 flagged not steady; 1 user flagged mostly other processes' I/O'.
    only: just these flags (FOREIGN: whether the device's I/O was the run's)."""
    where: dict[str, list[str]] = {}
    for point in points:
        for flag in point_doubts(point, device_iops):
            if only is not None and flag not in only:
                continue
            where.setdefault(flag, []).append(point_label(point))
    same: dict[tuple[str, ...], list[str]] = {}  # the same points' flags said together
    for flag, at in where.items():
        same.setdefault(tuple(at), []).append(flag)
    return "; ".join(f"{', '.join(at)} flagged {' and '.join(fl)}" for at, fl in same.items())


def knee_points(run: Run, load: float | None) -> list[Point]:
    """The points the knee is read from: the one at it (a measured knee), or the last one
    below it and the next one (an interpolated knee)."""
    points = ok_points(run)
    at = [p for p in points if load is not None and abs(p.load.value - load) < 1e-9]
    if at:
        return at
    below = [p for p in points if load is not None and p.load.value <= load + 1e-9]
    above = [p for p in points if load is not None and p.load.value > load + 1e-9]
    return below[-1:] + above[:1]


def knee_doubts(run: Run) -> str:
    """Why the run's knee may not be stated ('' when it may): the flags on the points it
    is read from."""
    knee = knee_of(run)
    if knee.state not in ("found", "beyond"):
        return ""
    return doubts(knee_points(run, knee.load_value), is_database(run))


def peak_doubts(run: Run) -> str:
    """Why the run's peak may not be stated ('' when it may): the flags on its point."""
    peak = peak_of(run)
    return doubts([peak], is_database(run)) if peak is not None else ""


def stated(sentence: str, refused: str) -> str:
    """A headline sentence ('knee: ...'), or, where the document refuses to state it, the
    refusal and no figure: the points' own figures are in the run's table."""
    if not refused:
        return sentence
    what, _, _ = sentence.partition(": ")
    return f"{what}: not stated ({refused}); the points' figures are in the run's table"


def headline_lines(run: Run) -> tuple[str, str]:
    """The run's peak and knee lines as the cards and the terminal say them: each refused
    where the summary refuses it (a fio run's flagged peak only when it has a knee below)."""
    refuse_peak = is_database(run) or knee_of(run).state != "beyond"
    peak = stated(peak_sentence(run), peak_doubts(run) if refuse_peak else "")
    return peak, stated(knee_sentence(run), knee_doubts(run))

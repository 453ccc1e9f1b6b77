"""One sentence for a run whose device was shared: how much of the device's I/O in the
measured windows was other processes', not the run's (results' foreign_io_share)."""

from __future__ import annotations

from dbstor.analysis.attribution import share_text
from dbstor.report.kit.fmt import fmt_per_txn
from dbstor.report.kit.summary import ok_points, point_label
from dbstor.results.model import Run

SHARED_LEAD = "The device was shared"


def shared_sentence(run: Run) -> str | None:
    """None when no point was flagged shared_device."""
    shared = [p for p in ok_points(run) if p.shared_device and p.foreign_io_share is not None]
    if not shared:
        return None
    worst = max(shared, key=lambda p: p.foreign_io_share or 0.0)
    own = worst.own_io or {}
    device = own.get("device") or "the device"
    database = own.get("reads_per_txn") is not None
    what = "reads" if database else "bytes read and written"
    text = (
        f"{SHARED_LEAD}: at {point_label(worst, compact=False)}, {share_text(worst.foreign_io_share)} "
        f"of the {what} on {device} in the measured window were other processes', not the run's"
    )
    if database:
        host = (worst.engine_io or {}).get("host_device_reads_per_txn")
        text += (
            f" (the run's own {fmt_per_txn(own['reads_per_txn'])} reads per transaction, "
            f"the device's {fmt_per_txn(host)})"
        )
    others = len(shared) - 1
    if others:
        text += f"; {others} more point{'s' if others > 1 else ''} over 10%"
    mine = (
        "the cache check and own_io in results.json count the run's own processes only"
        if database
        else "own_io in results.json is fio's own, from its output"
    )
    return f"{text}. The device figures and charts show the whole device; {mine}."

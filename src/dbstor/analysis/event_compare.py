"""Two or more targets' event impacts side by side: for each event (its kind and time at
the same load), each run's dip and how long it lasted, in one line such as "snapshot at
5s: dip 38% for 4 s on LEGACY, 3% for 1 s on FLASH" (comparison.json `events`).

The dip lasts from its first second below the baseline's band (5%, or twice its seconds'
spread) to the first second back within it (events/impact.py); one not back within the point says so. Only each point's
first repeat is set side by side, as the Events timeline shows it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from dbstor.results.model import Run


def _figures(event: dict[str, Any]) -> dict[str, Any]:
    """One run's side of an event: what the load felt, null where it was not measured."""
    impact = event.get("impact") or {}
    dip = impact.get("dip")
    recovered = impact.get("recovered_at_s")
    return {
        "ok": event.get("ok"),
        "measured": bool(impact),
        "depth_pct": dip.get("depth_pct") if dip else (0.0 if impact else None),
        "dip_s": (recovered - dip["started_at_s"]) if dip and recovered is not None else None,
        "back_after_s": impact.get("back_after_s"),
        "next_event_at_s": impact.get("next_event_at_s"),
        "latency_p99_ms": impact.get("latency_p99"),
        "baseline_p99_ms": impact.get("baseline_p99_ms"),
    }


def _words(label: str, side: dict[str, Any]) -> str:
    if not side["measured"]:
        return f"not measured on {label}" + ("" if side["ok"] else " (the event failed)")
    if not side["depth_pct"]:
        return f"no dip on {label}"
    depth = f"{side['depth_pct']:.0f}%"
    if side["dip_s"] is None and side["next_event_at_s"] is not None:
        return f"{depth} and not back before the next event on {label}"
    if side["dip_s"] is None:
        return f"{depth} and not back within the point on {label}"
    return f"{depth} for {side['dip_s']:g} s on {label}"


def compare_events(runs: Sequence[Run], labels: Sequence[str]) -> list[dict[str, Any]] | None:
    """One row per event (kind, time, load) any run had: each run's figures and a line;
    None when no run had events."""
    rows: dict[tuple[str, float, Any], dict[str, Any]] = {}
    for run, label in zip(runs, labels, strict=True):
        for point in run.points:
            for event in point.events or []:
                if event.get("repeat", 1) != 1:
                    continue
                key = (event["kind"], float(event["at_s"]), point.load.value)
                row = rows.setdefault(
                    key,
                    {
                        "kind": key[0],
                        "at_s": key[1],
                        "load": {"kind": point.load.kind, "value": point.load.value},
                        "runs": {},
                    },
                )
                row["runs"].setdefault(label, _figures(event))
    if not rows:
        return None
    out = []
    for row in rows.values():
        sides = [_words(label, side) for label, side in row["runs"].items()]
        missing = [label for label in labels if label not in row["runs"]]
        sides += [f"no such event on {label}" for label in missing]
        first = next((i for i, text in enumerate(sides) if text[0].isdigit()), None)
        if first is not None:
            sides[first] = "dip " + sides[first]
        row["text"] = f"{row['kind']} at {row['at_s']:g}s: " + ", ".join(sides)
        out.append(row)
    return out

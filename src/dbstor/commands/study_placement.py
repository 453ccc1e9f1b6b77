"""A study's [placement] advice for one target: `dbstor advise` on the objects its run
measured, priced with the fast target's measured latency when a point of that run stands
(analysis/placement/runs.py), else ranked by I/O moved and said to be unpriced; the stall
saved with the target's own latency when it can be told, else why not."""

from __future__ import annotations

import argparse
from typing import Any

from dbstor.analysis.placement.runs import UntrustedTier
from dbstor.commands import advise
from dbstor.errors import UserError


def placement_advice(args: argparse.Namespace, fast: str | None) -> dict[str, Any]:
    """The advice of these flags (a fast run and a slow run where the study has them), or
    {"missing": why}: an unpriced move or no stall estimate is a note, not a refusal."""
    notes: list[str] = []
    unpriced: str | None = None
    while True:
        try:
            result = advise.advice(args)
            break
        except UntrustedTier as exc:  # no point of that run a document stands on
            if exc.flag == "--fast-run":
                if getattr(args, "slow_run", None) is not None:
                    notes.append("stall time not estimated: the move is not priced")
                args.fast_run, args.slow_run = None, None
                unpriced = f"not priced: no load point of {fast}'s run stands"
                notes.append(f"{unpriced} ({exc.reasons}); objects ranked by I/O moved")
            else:
                args.slow_run = None
                notes.append(f"stall time not estimated: {exc.reasons}")
        except UserError as exc:
            if getattr(args, "slow_run", None) is None:
                return {"missing": str(exc)}
            args.slow_run = None  # e.g. the 'slow' target measured faster: no stall estimate
            notes.append(f"stall time not estimated: {str(exc).split('; check')[0]}")
    if unpriced is not None:
        unpriced_advice(result, unpriced)
    result.setdefault("notes", []).extend(notes)
    return result


def unpriced_advice(result: dict[str, Any], why: str) -> None:
    """Advice ranked by I/O moved with no fast-tier latency: none is invented, the
    latency is null and says why."""
    result["fast_tier"]["latency_ms"] = None
    result["fast_tier"]["latency_source"] = why
    result["assumptions"] = [
        f"fast tier: {why}" if str(a).startswith("fast tier:") else a
        for a in result.get("assumptions", [])
    ]

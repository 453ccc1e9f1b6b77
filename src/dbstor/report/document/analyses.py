"""analyses.json: the efficiency, capacity, placement and cost results a study wrote
beside its runs (each exactly what the matching command prints with --json).

Tolerant: no file (old folders), an unreadable file or a table it cannot read gives an
entry that says what is missing, so the section says so instead of failing the report.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from dbstor.report.document.private import scrub

ANALYSES_FILE = "analyses.json"
PER_TARGET = ("efficiency", "capacity", "placement")


def load_analyses(folder: Path) -> dict[str, Any]:
    """The study's analyses, {} when there are none; a file that cannot be read gives
    {"unreadable": why} so the document can say it."""
    path = Path(folder) / ANALYSES_FILE
    if not path.is_file():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        return {"unreadable": f"{ANALYSES_FILE} could not be read ({type(exc).__name__})"}
    if not isinstance(data, dict):
        return {"unreadable": f"{ANALYSES_FILE} does not hold a JSON object"}
    return data


def per_target(analyses: dict[str, Any], table: str) -> dict[str, dict[str, Any]]:
    """{target label: result or {"missing": why}} of one per-target table; {} when absent."""
    entries = analyses.get(table)
    if entries is None:
        return {}
    if not isinstance(entries, dict):
        return {"all targets": {"missing": f"{ANALYSES_FILE} holds no table of targets here"}}
    return {
        str(label): value if isinstance(value, dict) else {"missing": "not a JSON object"}
        for label, value in entries.items()
    }


def missing(entry: Any) -> str | None:
    """Why an entry holds no result, or None when it holds one; a path in the reason
    (a refused run's error names its folder) cut to its last part, as the body of the
    document writes paths (analyses.json keeps the whole reason)."""
    if not isinstance(entry, dict):
        return "not a JSON object"
    why = entry.get("missing")
    return None if why is None else scrub(str(why))


def table(value: Any) -> dict[str, Any]:
    """A nested JSON object, or {} when the field holds anything else."""
    return value if isinstance(value, dict) else {}


def number(value: Any) -> float | None:
    """A JSON number as a float, None for anything else (true and false included)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


def guarded(render: Callable[[dict[str, Any]], str], analyses: dict[str, Any]) -> str:
    """A section rendered from analyses.json, or one line saying a field could not be read
    (a file written by another version, or edited by hand), instead of no report."""
    try:
        return render(analyses)
    except (AttributeError, KeyError, TypeError, ValueError) as exc:
        return f"<p>Not shown: a field in {ANALYSES_FILE} could not be read ({type(exc).__name__}).</p>"

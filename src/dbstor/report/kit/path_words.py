"""The paths to a target's storage in the bill of materials (telemetry/paths.py's facts):
FC ports with their speed and state, iSCSI sessions with their target and portals,
multipath maps with the paths under them, network links with their speed, and the
bandwidth a point can use or why it is not known. Rows only where a run has the fact."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from dbstor.report.kit.fmt import DASH, fmt_num
from dbstor.results.model import Run


def _paths(run: Run) -> Mapping[str, Any]:
    system = (run.target or {}).get("system")
    paths = system.get("paths") if isinstance(system, Mapping) else None
    return paths if isinstance(paths, Mapping) else {}


def _items(paths: Mapping[str, Any], key: str) -> list[Mapping[str, Any]]:
    return [i for i in paths.get(key) or [] if isinstance(i, Mapping)]


def _fc(paths: Mapping[str, Any]) -> str:
    return "; ".join(
        f"{p.get('host')} {p.get('speed', 'speed unknown')}, {p.get('port_state', 'state unknown')}"
        for p in _items(paths, "fc_ports")
    )


def _iscsi(paths: Mapping[str, Any]) -> str:
    return "; ".join(
        f"{s.get('target') or s.get('session')} ({s.get('state', 'state unknown')}"
        + (f", {', '.join(map(str, s['portals']))}" if s.get("portals") else "")
        + ")"
        for s in _items(paths, "iscsi_sessions")
    )


def _multipath(paths: Mapping[str, Any]) -> str:
    maps = paths.get("multipath")
    if not isinstance(maps, Mapping):
        return ""
    return "; ".join(f"{name} over {', '.join(map(str, below))}" for name, below in maps.items())


def _links(paths: Mapping[str, Any]) -> str:
    return ", ".join(
        f"{n.get('nic')} {n['speed_mbit']:,} Mb/s"
        for n in _items(paths, "network_links")
        if isinstance(n.get("speed_mbit"), int)
    )


def _bandwidth(paths: Mapping[str, Any]) -> str:
    speed = paths.get("link_mbps")
    if isinstance(speed, int | float) and not isinstance(speed, bool):
        return f"{fmt_num(speed)} MB/s ({paths.get('link')})"
    return f"not known: {paths['link_reason']}" if paths.get("link_reason") else ""


_ROWS = (
    ("FC ports", _fc),
    ("iSCSI sessions", _iscsi),
    ("multipath maps", _multipath),
    ("network links", _links),
    ("path bandwidth", _bandwidth),
)


def path_rows(runs: list[Run]) -> list[tuple[str, list[str]]]:
    """(label, one value per run) for each path fact some run has."""
    rows = []
    for label, words in _ROWS:
        values = [words(_paths(run)) or DASH for run in runs]
        if any(v != DASH for v in values):
            rows.append((label, values))
    return rows

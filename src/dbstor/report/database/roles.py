"""Every role's own device, in the report: which device each role of a run sits on (the
Layout's device column), each role's I/O at every load point (below a run's load-point
table), and, across the runs of a document, how much of each run's I/O went to each role's
device and the latency it got there (a placement's after-run beside its before-run,
EMC h6080's Figure 8)."""

from __future__ import annotations

from html import escape
from typing import Any

from dbstor.report.kit.fmt import DASH, fmt_iops, fmt_mbps, fmt_ms, fmt_share
from dbstor.report.kit.summary import ok_points, point_label
from dbstor.report.kit.tables import cell, scroll_table
from dbstor.results.model import Point, Run
from dbstor.telemetry.roles import role_iops


def role_device(run: Run, role: str) -> str:
    """The device a role's files are on, as results recorded it: the role's own
    (target.roles), or for an older run the target's device for data alone; never another
    role's device."""
    target: dict[str, Any] = run.target or {}
    roles = target.get("roles")
    if isinstance(roles, dict) and isinstance(roles.get(role), dict):
        devices = roles[role].get("devices") or []
        return ", ".join(str(d) for d in devices) if devices else "no block device"
    if role == "data":
        return str(target.get("device") or "not found")
    return "not recorded"


def _distinct_roles(point: Point) -> list[tuple[str, dict[str, Any]]]:
    """The point's roles, each device once: a role on another role's device is left out
    (its I/O is that device's, counted there)."""
    seen: set[str] = set()
    out = []
    for role, entry in (point.roles or {}).items():
        devices = set(entry.get("devices") or [])
        if devices and devices <= seen:
            continue
        seen |= devices
        out.append((role, entry))
    return out


def _shared_words(entry: dict[str, Any]) -> str:
    others = entry.get("shared_with") or []
    return f" (with {', '.join(others)})" if others else ""


def _row(head: str, role: str, entry: dict[str, Any], whole: float | None) -> str:
    iops = role_iops(entry)
    share = fmt_share(iops, whole) if iops is not None and whole else DASH
    if entry.get("missing"):
        return (
            f"<tr>{head}<td>{escape(role)}</td><td>{DASH}</td>"
            f'<td colspan="6">not measured: {escape(str(entry["missing"]))}</td></tr>'
        )
    return (
        f"<tr>{head}<td>{escape(role + _shared_words(entry))}</td>"
        + cell(", ".join(entry.get("devices") or []) or DASH)
        + cell(f"{fmt_iops(entry.get('read_iops'))} / {fmt_iops(entry.get('write_iops'))}", "num")
        + cell(f"{fmt_mbps(entry.get('read_mbps'))} / {fmt_mbps(entry.get('write_mbps'))}", "num")
        + cell(fmt_ms(entry.get("read_await_ms"), unit=False), "num")
        + cell(fmt_ms(entry.get("write_await_ms"), unit=False), "num")
        + cell(share, "num")
        + "</tr>"
    )


def _whole(roles: list[tuple[str, dict[str, Any]]]) -> float | None:
    values = [v for v in (role_iops(e) for _, e in roles) if v is not None]
    return sum(values) if values else None


_HEAD = [
    "role",
    "device",
    "IOPS|r / w",
    "MB/s|r / w",
    "read await|device ms",
    "write await|device ms",
    "share|of the run's device I/O",
]


def has_roles_apart(run: Run) -> bool:
    """Whether a run placed roles on more than one device (else its load-point table's
    device columns already say everything)."""
    return any(len(_distinct_roles(p)) > 1 for p in ok_points(run))


def roles_table(run: Run) -> str:
    """Each role's device at every load point, when the run's roles sit on several."""
    if not has_roles_apart(run):
        return ""
    rows = []
    for point in ok_points(run):
        roles = _distinct_roles(point)
        whole = _whole(roles)
        for i, (role, entry) in enumerate(roles):
            head = (
                f'<th scope="row" rowspan="{len(roles)}">{escape(point_label(point))}</th>'
                if i == 0
                else ""
            )
            rows.append(_row(head, role, entry, whole))
    return (
        "<h3>Each role's device</h3>"
        "<p>Every role the run placed on the storage, sampled on its own device over the "
        "same window as the point (from /proc/diskstats); a role on another role's device "
        "is counted there.</p>" + scroll_table(["load", *_HEAD], rows)
    )


def moved_io_body(runs: list[Run], names: list[str]) -> str:
    """Across the document's runs, where each run's device I/O went, role by role, at each
    load: shown when a run placed a role (a fast path, a log) on a device of its own, with
    every other run beside it."""
    if not any(has_roles_apart(r) for r in runs):
        return ""
    rows = []
    for run, name in zip(runs, names, strict=True):
        for point in ok_points(run):
            roles = _distinct_roles(point)
            whole = _whole(roles)
            for i, (role, entry) in enumerate(roles):
                head = (
                    f'<th scope="row" rowspan="{len(roles)}">{escape(name)} · '
                    f"{escape(point_label(point))}</th>"
                    if i == 0
                    else ""
                )
                rows.append(_row(head, role, entry, whole))
    if not rows:
        return ""
    return (
        "<h3>Where the I/O went</h3>"
        "<p>Each run's device I/O by role at every load point: how much moved to a role's "
        "own device (a placement's fast path, a log on its own device) and the latency it "
        "got there, beside the runs that kept it on one device.</p>"
        + scroll_table(["run · load", *_HEAD], rows)
    )

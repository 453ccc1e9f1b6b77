"""Each role's own device in the comparison, run beside run: the document's table and the
terminal's (comparison.json's `roles`, analysis/compare_roles.py). A placement's after-run
shows the I/O its fast device took and the latency it got there beside the before-run's
single device; a run with its log on a device of its own shows the log's I/O apart."""

from __future__ import annotations

from html import escape
from typing import Any

from dbstor.report.kit.fmt import DASH, fmt_iops, fmt_mbps, fmt_ms, fmt_num

HEAD = (
    "run",
    "role",
    "device",
    "read IOPS",
    "write IOPS",
    "MB/s r / w",
    "read await ms",
    "write await ms",
    "share of the run's device I/O",
)


def role_rows(comparison: dict[str, Any]) -> list[list[str]]:
    """One row per run and role (a run without roles: one row saying why); [] when the
    comparison has no roles or every run kept all its I/O on one device."""
    block = comparison.get("roles") or {}
    runs = block.get("runs") or []
    if not any(len(r.get("roles") or {}) > 1 for r in runs):
        return []
    rows = []
    for run in runs:
        label = str(run.get("label"))
        at = "" if block.get("load") else f" at {fmt_num(run.get('load'))}"
        if not run.get("roles"):
            rows.append([label + at, DASH, f"not measured: {run.get('missing', '')}"])
            continue
        for role, entry in run["roles"].items():
            shared = entry.get("shared_with") or []
            name = role + (f" (with {', '.join(shared)})" if shared else "")
            if entry.get("missing"):
                rows.append([label + at, name, f"not measured: {entry['missing']}"])
                continue
            share = entry.get("share")
            rows.append(
                [
                    label + at,
                    name,
                    ", ".join(entry.get("devices") or []) or DASH,
                    fmt_iops(entry.get("read_iops")),
                    fmt_iops(entry.get("write_iops")),
                    f"{fmt_mbps(entry.get('read_mbps'))} / {fmt_mbps(entry.get('write_mbps'))}",
                    fmt_ms(entry.get("read_await_ms"), unit=False),
                    fmt_ms(entry.get("write_await_ms"), unit=False),
                    DASH if share is None else f"{share * 100:.0f}%",
                ]
            )
    return rows


def title(comparison: dict[str, Any]) -> str:
    return f"Each role's device, at {(comparison.get('roles') or {}).get('at', '')}"


def role_comparison_block(comparison: dict[str, Any]) -> str:
    """The document's table of every run's roles side by side ('' without one)."""
    rows = role_rows(comparison)
    if not rows:
        return ""
    head = "".join(f"<th>{escape(h)}</th>" for h in HEAD)
    body = ""
    for row in rows:
        if len(row) == 3:  # not measured: one cell across the figures
            cells = f'<td colspan="{len(HEAD) - 2}">{escape(row[2])}</td>'
        else:
            cells = f"<td>{escape(row[2])}</td>" + "".join(
                f'<td class="num">{escape(v)}</td>' for v in row[3:]
            )
        body += f"<tr><th>{escape(row[0])}</th><td>{escape(row[1])}</td>{cells}</tr>"
    return (
        f"<h3>{escape(title(comparison))}</h3><p>Every role each run placed on the storage, "
        "on its own device (from /proc/diskstats over each point's window, read at this "
        "load as the other figures are): how much I/O moved to a fast path or a log "
        "device and the latency it got there. A role on another role's device is counted "
        "there.</p>"
        f'<div class="scroll"><table><thead><tr>{head}</tr></thead><tbody>{body}</tbody>'
        "</table></div>"
    )

"""The document walker's roles check (document_claims.CLAIM_CHECKS runs it): a device named
for a role that is not the device its files are on.

The Layout (one row per run and role), "What is on each path" (one row per path) and
"Where the I/O went" (per run and load, one row per role) each name a device for a role.
Each is set against what the run itself recorded of where that role's files are: the
path facts read from the file system at the run's end (engine_stats.paths: each path's
top device), the devices the run resolved for the role at its start (target.roles) and
sampled at every point (points[].roles). A named device none of those hold, a role said
to be on no device while they hold one, or a device named while they hold none, is a
problem. A run that recorded none of these (an old run) names the target's device for
its data alone, and that is what its data row is held to.

host_role_problems adds the host itself as a witness, for a run whose paths are still
there (an integration test, right after the run): each role's paths resolved now.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

from dbstor.report.kit.figures import run_names
from dbstor.results.model import Run
from dbstor.telemetry.disk import devices_for_path

_NONE = ("no block device", "none found", "not found")
_UNKNOWN = ("not recorded", "—", "–", "-", "")


class _Tables(HTMLParser):
    """Every table: its header cells and its body rows (cells' text), a cell a row above
    spans down (rowspan) repeated in the rows it covers."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tables: list[tuple[list[str], list[list[str]]]] = []
        self.cell: list[str] | None = None
        self.row: list[str] = []
        self.head = False
        self.spans: dict[int, tuple[str, int]] = {}  # column -> (text, rows still covered)
        self.span = 1

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "table":
            self.tables.append(([], []))
            self.spans = {}
        elif tag == "thead":
            self.head = True
        elif tag == "tbody":
            self.head = False
        elif tag == "tr":
            self.row = []
        elif tag in ("td", "th") and self.tables:
            self.cell = []
            self.span = int(dict(attrs).get("rowspan") or 1)

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self.cell is not None:
            while not self.head and len(self.row) in self.spans:
                self._carry()
            text = " ".join("".join(self.cell).split())
            if self.span > 1 and not self.head:
                self.spans[len(self.row)] = (text, self.span - 1)
            self.row.append(text)
            self.cell = None
        elif tag == "tr" and self.tables:
            while not self.head and len(self.row) in self.spans:
                self._carry()
            head, rows = self.tables[-1]
            (head if self.head else rows).extend([self.row] if not self.head else self.row)

    def _carry(self) -> None:
        column = len(self.row)
        text, left = self.spans.pop(column)
        self.row.append(text)
        if left > 1:
            self.spans[column] = (text, left - 1)

    def handle_data(self, data: str) -> None:
        if self.cell is not None:
            self.cell.append(data)


def named_role_devices(html: str, names: Sequence[str]) -> list[tuple[str, str, str, str]]:
    """(table, run name, role, device cell) for every row of a table that has a run and a
    role (or path) column beside a device column."""
    parser = _Tables()
    parser.feed(html)
    found = []
    for head, rows in parser.tables:
        words = [h.split("|")[0].strip().lower() for h in head]
        role_at = next((i for i, w in enumerate(words) if w in ("role", "path")), None)
        run_at = next((i for i, w in enumerate(words) if w.startswith("run")), None)
        if "device" not in words or role_at is None or run_at is None:
            continue
        device_at = words.index("device")
        for row in rows:
            if len(row) <= max(role_at, device_at, run_at):
                continue
            run = re.sub(r",? (?:instance \d+|· .*)$", "", row[run_at])
            if run not in names:
                continue
            role = re.sub(r" \(with [^)]*\)$| \d+ of \d+$", "", row[role_at])
            found.append((" ".join(head[:3]), run, role, row[device_at]))
    return found


def recorded_role_devices(run: Run) -> dict[str, dict[str, set[str]]]:
    """Role -> {witness: devices} from what the run recorded of where its files are."""
    target: Mapping[str, Any] = run.target or {}
    out: dict[str, dict[str, set[str]]] = {}
    for row in (run.engine_stats or {}).get("paths") or []:
        if isinstance(row, Mapping) and row.get("role"):
            seen = out.setdefault(str(row["role"]), {}).setdefault("the path facts", set())
            seen |= {str(row["device"])} if row.get("device") else set()
    roles = target.get("roles")
    for role, entry in roles.items() if isinstance(roles, Mapping) else ():
        if isinstance(entry, Mapping) and isinstance(entry.get("devices"), list):
            out.setdefault(str(role), {})["target.roles"] = {str(d) for d in entry["devices"]}
    for point in run.points:
        for role, entry in (point.roles or {}).items():
            if isinstance(entry, Mapping) and entry.get("devices"):
                seen = out.setdefault(str(role), {}).setdefault("the points' roles", set())
                seen |= {str(d) for d in entry["devices"]}
    if not out and target.get("device"):
        out["data"] = {"target.device": {d.strip() for d in str(target["device"]).split(",")}}
    return out


def _problems(
    html: str, runs: Sequence[Run], witnesses: Callable[[Run], dict[str, dict[str, set[str]]]]
) -> list[str]:
    names = run_names(runs)
    by_name = dict(zip(names, runs, strict=True))
    problems = []
    for table, name, role, cell in named_role_devices(html, names):
        said = cell.strip()
        if said.lower() in _UNKNOWN:
            continue
        named = set() if said.lower() in _NONE else {d.strip() for d in said.split(",")}
        for witness, devices in witnesses(by_name[name]).get(role, {}).items():
            if named - devices or bool(named) != bool(devices):
                problems.append(
                    f"{table}: {name}'s {role} is named on {said}, while {witness} put its "
                    f"files on {', '.join(sorted(devices)) or 'no block device'}"
                )
    return problems


def role_device_problems(html: str, prose: list[tuple[str, str]], runs: Sequence[Run]) -> list[str]:
    """A device named for a role that is not the device the run recorded its files on."""
    return _problems(html, runs, recorded_role_devices)


def _on_this_host(run: Run) -> dict[str, dict[str, set[str]]]:
    paths = (run.target or {}).get("paths")
    out: dict[str, dict[str, set[str]]] = {}
    for role, listed in paths.items() if isinstance(paths, Mapping) else ():
        here = [Path(str(p)) for p in (listed if isinstance(listed, list) else [listed])]
        if here and all(p.exists() for p in here):
            out[str(role)] = {"this host now": {d for p in here for d in devices_for_path(p)[:1]}}
    return out


def host_role_problems(html: str, prose: list[tuple[str, str]], runs: Sequence[Run]) -> list[str]:
    """The same rule with the host as the witness: each role's paths resolved now (for a
    run whose paths are still there)."""
    return _problems(html, runs, _on_this_host)

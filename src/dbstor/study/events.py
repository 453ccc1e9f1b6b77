"""Events at a time inside a point: a study's [[events]] and `--event` on run and io.

An event names what happens (`kind`) and when, relative to the measured window: `at`,
optional `every` (again at at + every, at + 2 every, ...) and `for` (how long it lasts).
Each kind has its own settings (a throttle's `iops` or `mbps`, a command's `argv` and
`timeout`). `check_events(study)` refuses, one line each, what cannot run: an event
outside the point, an unknown kind or setting, a snapshot on a file system that cannot
take one, a command that does not exist, a crash or checkpoint in fio points; the Study
model calls it, so `dbstor study`, `run` and `io` refuse the same things before anything
runs. Whether an engine can take a crash or a checkpoint is the engine's to say
(Engine.crash_refusal, checkpoint_refusal), asked in runs/engine_checks.py.
"""

from __future__ import annotations

import difflib
import itertools
import os
import shlex
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dbstor.errors import UserError
from dbstor.units import parse_duration, parse_timeout

KINDS = ("throttle", "snapshot", "command", "drop-caches", "fstrim", "crash", "checkpoint")
SERVER_KINDS = ("crash", "checkpoint")  # they act on the database engine, not the target
DIRECTIONS = ("both", "read", "write")
SNAPSHOT_FILE_SYSTEMS = ("btrfs", "xfs")  # btrfs subvolume snapshot; reflink copy on XFS
DEFAULT_COMMAND_TIMEOUT_S = 60.0
_COMMON = {"kind", "at", "every", "for"}
_SETTINGS = {
    "throttle": {"iops", "mbps", "direction"},
    "snapshot": set(),
    "command": {"argv", "timeout"},
    "drop-caches": set(),
    "fstrim": set(),
    "crash": set(),
    "checkpoint": set(),
}
FLAG_HELP = (
    "KIND@AT[,KEY=VALUE...]: an event at AT into the measured window, e.g. "
    "throttle@10s,for=5s,iops=200 or snapshot@5s or 'command@5s,timeout=30s,argv=/bin/sync'"
    " (argv last: the rest is the command, split like a shell would, never run by one); "
    "kinds: " + ", ".join(KINDS)
)


@dataclass(frozen=True)
class EventSpec:
    """One event as the user named it; times in seconds into the measured window."""

    kind: str
    at_s: float
    every_s: float | None = None
    for_s: float | None = None
    settings: dict[str, Any] = field(default_factory=dict)
    where: str = "events[0]"  # how the user wrote it, for messages

    def times(self, duration_s: float) -> list[float]:
        """Each occurrence's start inside a measured window of duration_s."""
        if not self.every_s:
            return [self.at_s]
        out, at = [], self.at_s
        while at + (self.for_s or 0.0) <= duration_s and at < duration_s and len(out) < 1000:
            out.append(at)
            at += self.every_s
        return out

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "at_s": self.at_s,
            "every_s": self.every_s,
            "for_s": self.for_s,
            "settings": dict(self.settings),
            "where": self.where,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> EventSpec:
        return cls(
            kind=data["kind"],
            at_s=float(data["at_s"]),
            every_s=data.get("every_s"),
            for_s=data.get("for_s"),
            settings=dict(data.get("settings", {})),
            where=data.get("where", "event"),
        )


def _fail(where: str, message: str) -> UserError:
    return UserError(f"{where}: {message}")


def _seconds(value: Any, where: str, key: str, positive: bool = False) -> float:
    try:
        seconds = parse_timeout(value) if positive else parse_duration(value)
    except (ValueError, TypeError) as exc:
        raise _fail(where, f"{key}: {exc}") from None
    return seconds


MAX_THROTTLE = 1_000_000_000  # IOPS or MB/s: far beyond any device


def _positive_number(value: Any, where: str, key: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise _fail(where, f"{key}: give a number above 0, e.g. {key} = 200")
    try:
        number = float(value)
    except ValueError:
        raise _fail(where, f"{key}: {value!r} is not a number; e.g. {key} = 200") from None
    if not number > 0 or number == float("inf"):
        raise _fail(where, f"{key}: must be above 0, e.g. {key} = 200")
    if number > MAX_THROTTLE:  # beyond any device: a throttle that holds nothing
        raise _fail(where, f"{key}: {value!r} is too large: at most {MAX_THROTTLE:,}")
    return number


def event_from_table(table: Any, where: str) -> EventSpec:
    """One [[events]] table (or a parsed --event) -> an EventSpec; UserError naming the field."""
    if not isinstance(table, dict):
        raise _fail(where, 'write [[events]] tables: kind = ..., at = "10s"')
    kind = table.get("kind")
    if not isinstance(kind, str) or kind not in KINDS:
        hint = difflib.get_close_matches(str(kind), KINDS, n=1)
        extra = f" (did you mean {hint[0]!r}?)" if hint else ""
        raise _fail(where, f"unknown event kind {kind!r}{extra}; kinds: {', '.join(KINDS)}")
    allowed = _COMMON | _SETTINGS[kind]
    for key in table:
        if key not in allowed:
            hint = difflib.get_close_matches(str(key), allowed, n=1)
            extra = f" (did you mean {hint[0]!r}?)" if hint else ""
            raise _fail(
                where,
                f"unknown field {key!r} for a {kind} event{extra}; "
                f"allowed: {', '.join(sorted(allowed))}",
            )
    if "at" not in table:
        raise _fail(where, f'a {kind} event needs at = "10s" (seconds into the measured window)')
    at_s = _seconds(table["at"], where, "at")
    every_s = _seconds(table["every"], where, "every", positive=True) if "every" in table else None
    for_s = _seconds(table["for"], where, "for", positive=True) if "for" in table else None
    settings = _settings(kind, table, where)
    if kind == "throttle" and for_s is None:
        raise _fail(where, 'a throttle needs for = "5s" (how long the device is held)')
    if kind == "command" and for_s is not None:
        raise _fail(where, "a command runs until it ends or its timeout: give timeout, not for")
    if kind in SERVER_KINDS and for_s is not None:
        raise _fail(where, f"a {kind} lasts until the engine is done with it: leave out for")
    if every_s is not None and for_s is not None and every_s <= for_s:
        raise _fail(where, f"every ({every_s:g}s) must be longer than for ({for_s:g}s)")
    return EventSpec(kind, at_s, every_s, for_s, settings, where)


def _settings(kind: str, table: dict[str, Any], where: str) -> dict[str, Any]:
    if kind == "throttle":
        given = [k for k in ("iops", "mbps") if k in table]
        if len(given) != 1:
            raise _fail(where, "a throttle needs one of iops = N or mbps = N (MB/s), not both")
        direction = table.get("direction", "both")
        if direction not in DIRECTIONS:
            raise _fail(where, f"direction: {direction!r}; use one of {', '.join(DIRECTIONS)}")
        return {
            given[0]: _positive_number(table[given[0]], where, given[0]),
            "direction": direction,
        }
    if kind == "command":
        argv = table.get("argv")
        if isinstance(argv, str):
            argv = shlex.split(argv)
        if not isinstance(argv, list) or not argv or not all(isinstance(a, str) for a in argv):
            raise _fail(where, 'a command needs argv = ["/path/to/program", "arg", ...]')
        if any("\0" in a for a in argv):
            raise _fail(where, "argv: an argument holds a NUL byte")
        timeout = table.get("timeout", DEFAULT_COMMAND_TIMEOUT_S)
        return {"argv": list(argv), "timeout_s": _seconds(timeout, where, "timeout", True)}
    return {}


def event_from_flag(text: str) -> EventSpec:
    """`KIND@AT[,KEY=VALUE...]` (argv=... last, the rest of the text) -> an EventSpec."""
    where = f"--event {text!r}"
    head, _, rest = text.partition(",")
    kind, at_sign, at = head.partition("@")
    if not at_sign:
        raise _fail(where, "write KIND@AT[,KEY=VALUE...], e.g. throttle@10s,for=5s,iops=200")
    table: dict[str, Any] = {"kind": kind.strip(), "at": at.strip()}
    while rest:
        if rest.startswith("argv="):
            table["argv"] = rest[len("argv=") :]
            break
        item, _, rest = rest.partition(",")
        key, equals, value = item.partition("=")
        if not equals:
            raise _fail(where, f"{item!r}: write KEY=VALUE, e.g. for=5s")
        table[key.strip()] = value.strip()
    return event_from_table(table, where)


def events_from_tables(tables: Any, source: str) -> tuple[EventSpec, ...]:
    if not isinstance(tables, list):
        raise UserError(f"{source}: events: write [[events]] tables")
    return tuple(event_from_table(t, f"{source}: events[{i}]") for i, t in enumerate(tables))


def check_events(study: Any) -> None:
    """Refuse, before anything runs, events the study's points and targets cannot hold."""
    if not study.events:
        return
    if study.cluster:
        raise UserError("events run on this host only: leave out [cluster] or the events")
    _check_throttles_apart(study.events, study.duration_s)
    server = next((e for e in study.events if e.kind in SERVER_KINDS), None)
    if server is not None and study.profiles:
        raise _fail(
            server.where,
            f"a {server.kind} acts on a database engine, and fio points have none: "
            "give it to `dbstor run` (or [databases]), not to io profiles",
        )
    for event in study.events:
        _check_times(event, study.duration_s)
        if event.kind == "command":
            _check_program(event)
        if event.kind == "snapshot":
            for target in study.targets:
                snapshot_method(target.paths[0], event.where)


def _check_throttles_apart(events: tuple[EventSpec, ...], duration_s: float) -> None:
    """Two throttles at once would put back each other's rules in the wrong order."""
    spans = sorted(
        (
            (at, at + (e.for_s or 0.0), e)
            for e in events
            if e.kind == "throttle"
            for at in e.times(duration_s)
        ),
        key=lambda span: span[:2],
    )
    for (_, end, first), (start, _, second) in itertools.pairwise(spans):
        if start < end:
            raise _fail(
                second.where,
                f"a throttle at {start:g}s while another ({first.where}) "
                f"holds the device until {end:g}s; one throttle at a time",
            )


def _check_times(event: EventSpec, duration_s: float) -> None:
    if event.at_s >= duration_s:
        raise _fail(
            event.where,
            f"at = {event.at_s:g}s is outside the point's measured "
            f"window of {duration_s:g}s; give at below {duration_s:g}s",
        )
    if event.for_s is not None and event.at_s + event.for_s > duration_s:
        raise _fail(
            event.where,
            f"at {event.at_s:g}s + for {event.for_s:g}s ends after the "
            f"point's measured window of {duration_s:g}s; shorten for or start earlier",
        )


def _check_program(event: EventSpec) -> None:
    program = event.settings["argv"][0]
    found = shutil.which(program) if os.sep not in program else program
    if not found or not os.path.isfile(found) or not os.access(found, os.X_OK):
        raise _fail(
            event.where,
            f"command {program!r} does not exist or is not executable; give its full path",
        )


def existing_ancestor(path: Path) -> Path:
    path = Path(os.path.abspath(path))
    while not path.exists() and path != path.parent:
        path = path.parent
    return path


def file_system_type(path: Path) -> str:
    """The type of the file system holding path (or its nearest existing ancestor)."""
    where = existing_ancestor(path)
    best, kind = "", "unknown"
    try:
        mounts = Path("/proc/self/mounts").read_text().splitlines()
    except OSError:
        return kind
    for line in mounts:
        parts = line.split()
        if len(parts) < 3:
            continue
        point = parts[1].replace("\\040", " ")
        if (str(where) == point or str(where).startswith(point.rstrip("/") + "/")) and len(
            point
        ) >= len(best):
            best, kind = point, parts[2]
    return kind


def snapshot_method(path: Path, where: str = "snapshot") -> str:
    """'btrfs' (subvolume snapshot) or 'reflink' (XFS with reflink); UserError otherwise."""
    kind = file_system_type(path)
    if kind == "btrfs":
        return "btrfs"
    if kind == "xfs" and _xfs_reflink(existing_ancestor(path)):
        return "reflink"
    raise _fail(
        where,
        f"{path} is on {kind}, which cannot take a snapshot; snapshots need "
        "btrfs or XFS with reflink=1 under the target",
    )


def _xfs_reflink(path: Path) -> bool:
    try:
        out = subprocess.run(["xfs_info", str(path)], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return False
    return "reflink=1" in out.stdout

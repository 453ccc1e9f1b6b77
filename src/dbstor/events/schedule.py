"""Events fired at their times inside one point, on a thread beside the load.

`EventRun(specs, place, duration_s, name)`; `start(origin)` with the measured window's
start (time.monotonic()); `stop()` at the end of the point (or when it fails) ends what
is still going on (a snapshot without `for` is removed there) and returns one record per
occurrence: kind, planned and actual start and end (seconds into the measured window),
ok, error, the kind's details. Nothing here knows the results folder or the report.
"""

from __future__ import annotations

import threading
import time
from typing import Any

from dbstor.events.actions import EventFailed, Happening, Place, begin
from dbstor.study.events import EventSpec


class EventRun:
    """The occurrences of a point's events, started and ended at their times."""

    def __init__(self, specs: list[EventSpec], place: Place, duration_s: float, name: str):
        self.place, self.origin = place, 0.0
        self.records: list[dict[str, Any]] = []
        self.pending: list[tuple[float, str, int]] = []  # (time, "start" | "end", record)
        self.active: dict[int, Happening] = {}
        for spec in specs:
            for at in spec.times(duration_s):
                index = len(self.records)
                self.records.append(
                    {
                        "kind": spec.kind,
                        "where": spec.where,
                        "at_s": at,
                        "for_s": spec.for_s,
                        "settings": dict(spec.settings),
                        "started_s": None,
                        "ended_s": None,
                        "ok": None,
                        "error": None,
                        "details": {},
                        "name": f"{name}-e{index + 1}",
                    }
                )
                self.pending.append((at, "start", index))
                if spec.for_s is not None:
                    self.pending.append((at + spec.for_s, "end", index))
        self.pending.sort()
        self.stopping = threading.Event()
        self.lock = threading.Lock()
        self.thread = threading.Thread(target=self._run, name="dbstor-events", daemon=True)

    def start(self, origin: float) -> None:
        """origin: time.monotonic() at the measured window's start."""
        self.origin = origin
        if self.records:
            self.thread.start()

    def now(self) -> float:
        return round(time.monotonic() - self.origin, 3)

    def _run(self) -> None:
        for at, what, index in self.pending:
            if self.stopping.wait(max(0.0, self.origin + at - time.monotonic())):
                return
            with self.lock:
                if self.stopping.is_set():
                    return
                self._start(index) if what == "start" else self._end(index)
            if what == "start":
                self._end_when_done(index)

    def _start(self, index: int) -> None:
        record = self.records[index]
        record["started_s"] = self.now()
        try:
            self.active[index] = begin(
                record["kind"], record["settings"], self.place, record["name"]
            )
        except (EventFailed, OSError, ValueError) as exc:
            record.update(ok=False, error=str(exc), ended_s=self.now())

    def _end_when_done(self, index: int) -> None:
        """An instant kind (drop-caches, fstrim) is over once begun; a command once it ends."""
        happening = self.active.get(index)
        if happening is None or self.records[index]["for_s"] is not None:
            return
        if self.records[index]["kind"] == "snapshot":
            return  # held until the point ends
        if happening.done:
            with self.lock:
                self._end(index)
        else:
            threading.Thread(target=self._end_later, args=(index,), daemon=True).start()

    def _end_later(self, index: int) -> None:
        happening = self.active.get(index)
        while happening is not None and not happening.done and not self.stopping.is_set():
            time.sleep(0.05)
        with self.lock:
            self._end(index)

    def _end(self, index: int) -> None:
        happening = self.active.pop(index, None)
        if happening is None:
            return
        record = self.records[index]
        try:
            record["details"] = happening.end()
            record["ok"] = True
        except (EventFailed, OSError, ValueError) as exc:
            record.update(ok=False, error=str(exc), details=happening.details)
        record["ended_s"] = self.now()

    def stop(self) -> list[dict[str, Any]]:
        """End everything still going on (newest first) and return the records."""
        self.stopping.set()
        if self.thread.is_alive():
            self.thread.join()
        with self.lock:
            for index in sorted(self.active, reverse=True):
                self._end(index)
        for record in self.records:
            if record["started_s"] is None:
                record.update(ok=False, error="the point ended before the event's time")
        return self.records


def point_events(
    specs: tuple[dict[str, Any], ...],
    paths: tuple[str, ...],
    devices: tuple[str, ...],
    duration_s: float,
    name: str,
    engines: tuple[Any, ...] = (),
    restarted: Any = None,
) -> EventRun:
    """The EventRun of one point from its plain description (spec dicts, target paths,
    devices top first) and the point's database engines (crash, checkpoint); `restarted()`
    after a crash brought them back."""
    device = devices[0] if devices else None
    place = Place(paths=paths, device=device, engines=engines, restarted=restarted)
    return EventRun([EventSpec.from_dict(s) for s in specs], place, duration_s, name)

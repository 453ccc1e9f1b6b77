"""The event kinds that act on the point's database engines, through the engine contract
(engines/base.Engine: crash(), checkpoint()), never on the target's files.

- crash: each engine's managed server killed (SIGKILL of its whole tree) and started
  again on its files; the figures are engines/crash.py's (ready_s, first_commit_s, the
  recovery's own reads and writes). The lifeline watches the new server from its start,
  and nothing runs between the kill and the start: a dbstor killed meanwhile leaves no
  server behind.
- checkpoint: each engine's checkpoint statement, run to its end; `duration_s`.

Both are over when they return: their record's start and end bound what they did.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

from dbstor.events.failure import EventFailed


def _each(
    engines: Sequence[Any], act: Callable[[Any], dict[str, Any]], what: str
) -> dict[str, Any]:
    if not engines:
        raise EventFailed(f"a {what} needs a database engine, and this point has none")
    figures = []
    for engine in engines:
        started = time.monotonic()
        try:
            done = act(engine)
        except NotImplementedError as exc:
            raise EventFailed(str(exc)) from None
        except Exception as exc:  # the engine's own error: the event failed, the point goes on
            line = f"{type(exc).__name__}: {exc}".splitlines()[0][:300]
            raise EventFailed(f"{engine.title}'s {what} failed: {line}") from None
        figures.append({**done, "duration_s": round(time.monotonic() - started, 3)})
    if len(figures) == 1:
        return figures[0]
    slowest = max(figures, key=lambda f: f["duration_s"])
    return {**slowest, "instances": figures}


def crash_engines(engines: Sequence[Any], restarted: Any = None) -> dict[str, Any]:
    """Kill and restart each engine's server; the figures of the one back last (each
    instance's under `instances` when there are several). `restarted()` is called once
    they are back, also when one failed (the point's own accounting takes the new
    servers' processes in)."""
    try:
        return _each(engines, lambda engine: engine.crash(), "crash")
    finally:
        if restarted is not None:
            restarted()


def checkpoint_engines(engines: Sequence[Any]) -> dict[str, Any]:
    """Each engine's checkpoint statement, run to its end."""
    return _each(engines, lambda engine: engine.checkpoint(), "checkpoint")

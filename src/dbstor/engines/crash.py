"""A managed server killed and started again, timed: a `crash` event's figures.

`crash_server(engine, relaunch, commit_probe)` kills the server's whole process tree
with SIGKILL (process.ServerProcess.kill), starts it again on the same files, port and
memory cap, waits until it takes connections, then commits one transaction of its own
(`commit_probe`: a statement whose commit the server must make durable, PostgreSQL's
`SELECT txid_current()`), retried until it commits. The times run from the kill:
`ready_s` (the server took a connection: its crash recovery is over), `first_commit_s`
(dbstor's own transaction committed). The new server's own storage I/O up to then is the
recovery's (its /proc counters start at zero).
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from typing import Any

from dbstor.engines.process import tree_io

FIRST_COMMIT_LIMIT_S = 120.0  # how long the commit probe is retried after the restart


def crash_server(
    engine: Any, relaunch: Callable[[], None], commit_probe: str | None
) -> dict[str, Any]:
    """Kill and restart `engine`'s managed server (relaunch() does both); its figures."""
    old = engine.server_pids()
    killed_at = time.monotonic()
    relaunch()
    ready_s = time.monotonic() - killed_at
    details: dict[str, Any] = {
        "killed_pids": len(old),
        "ready_s": round(ready_s, 3),
        "first_commit_s": None,
        "first_commit_reason": None,
    }
    io = tree_io(engine.server_pids())
    details["recovery_read_bytes"], details["recovery_write_bytes"] = io or (None, None)
    if commit_probe is None:
        details["first_commit_reason"] = (
            f"dbstor knows no statement whose commit {engine.title} must make durable: "
            "see the load's first commit per second"
        )
        return details
    error = ""
    while time.monotonic() - killed_at < FIRST_COMMIT_LIMIT_S:
        try:
            connection = engine.connect()
            try:
                connection.cursor().execute(commit_probe)
                connection.commit()
            finally:
                with contextlib.suppress(Exception):
                    connection.close()
        except Exception as exc:  # still recovering: try again
            error = f"{type(exc).__name__}: {exc}".splitlines()[0][:200]
            time.sleep(0.02)
            continue
        details["first_commit_s"] = round(time.monotonic() - killed_at, 3)
        return details
    details["first_commit_reason"] = f"no commit within {FIRST_COMMIT_LIMIT_S:g} s: {error}"
    return details

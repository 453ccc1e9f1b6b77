"""What a client/server engine does when a point's events ask: restart its managed server
cleanly (a cold query point), kill it and start it again (a `crash` event, timed by
engines/crash.py), run its checkpoint statement (a `checkpoint` event).

ServerEngine (server.py) inherits this; the server process, its launch and dbstor's own
connections are ServerEngine's.
"""

from __future__ import annotations

import contextlib
from typing import Any, ClassVar

from dbstor.engines.base import Engine
from dbstor.engines.crash import crash_server


class ServerLifecycle(Engine):
    """Restart, crash and checkpoint of a managed (or, for a checkpoint, external) server."""

    def restart(self) -> None:
        """Managed: stop the server process with its clean shutdown (which writes its
        cache back), keep the data directory, start it again on the same port, socket and
        memory cap, and wait until it takes connections. External: not possible."""
        self._relaunch(clean=True)

    def _relaunch(self, clean: bool) -> None:
        """Stop the managed server (clean: its own shutdown; else SIGKILL of its whole tree
        at once, a crash) and start it again on its files."""
        if not self.managed:
            raise NotImplementedError(
                f"dbstor does not restart an external {self.title} server; its caches stay warm"
            )
        if self._launched is None:
            raise NotImplementedError(f"the {self.title} server was never started")
        self._close_monitor()
        self.server.stop(self.stop_signal) if clean else self.server.kill()
        self.launch(*self._launched)

    # --- events inside a point (events/server_actions.py) ----------------------------------

    commit_probe: ClassVar[str | None] = None  # a statement whose commit is a durable write

    @classmethod
    def crash_refusal(cls, external: bool) -> str | None:
        if external:
            return f"dbstor does not kill an external {cls.title} server: use a managed one"
        return None

    def crash(self) -> dict[str, Any]:
        return crash_server(self, lambda: self._relaunch(clean=False), self.commit_probe)

    def checkpoint(self) -> dict[str, Any]:
        with contextlib.closing(self._admin(self._admin_wait)) as conn:
            conn.cursor().execute(self.checkpoint_statement)
        return {"statement": self.checkpoint_statement, "answer": None}

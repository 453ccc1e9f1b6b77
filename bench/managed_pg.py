"""The managed PostgreSQL the client-cost benches share: set up as `dbstor run` sets one up
(32 MiB shared_buffers), its data in a fresh directory its unprivileged account can reach."""

from __future__ import annotations

import tempfile
from pathlib import Path

from dbstor.engines.base import EngineSettings
from dbstor.engines.postgres import PostgresEngine

SHARED_BUFFERS = 32 << 20  # dbstor run's default


def small_postgres(where: Path, name: str, users: int) -> PostgresEngine:
    """A managed PostgreSQL for `users` connections (not started), under `where`."""
    base = Path(tempfile.mkdtemp(prefix=f"dbstor-bench-{name}-", dir=where))
    base.chmod(0o711)
    (base / "data").mkdir()
    settings = EngineSettings(
        paths={"data": [base / "data"]}, buffer_bytes=SHARED_BUFFERS, users=users
    )
    return PostgresEngine(settings)

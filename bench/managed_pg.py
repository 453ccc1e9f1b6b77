"""What the PostgreSQL benches share: a managed server set up as `dbstor run` sets one up
(32 MiB shared_buffers), its data in a fresh directory its unprivileged account can reach,
and pgbench's database and TPS beside dbstor's."""

from __future__ import annotations

import subprocess
import tempfile
from pathlib import Path

from dbstor.engines.base import EngineSettings
from dbstor.engines.postgres import SUPERUSER, PostgresEngine

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


def pgbench_database(engine: PostgresEngine, bindir: Path, name: str, scale: int) -> None:
    """pgbench's tables at `scale` in a new database `name` on the same server."""
    with engine._server_admin() as conn:
        conn.execute(f"CREATE DATABASE {name}")
    init = [str(bindir / "pgbench"), "-i", "-q", "-s", str(scale)]
    init += ["-h", str(engine.sockdir), "-p", str(engine.port), "-U", SUPERUSER, name]
    subprocess.run(init, check=True, capture_output=True, timeout=1800)


def pgbench_tps(stdout: str) -> float:
    """The TPS pgbench reports without its initial connection time."""
    return next(
        float(line.split()[2])
        for line in stdout.splitlines()
        if line.startswith("tps = ") and "without initial" in line
    )

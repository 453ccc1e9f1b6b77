"""PostgreSQL's side of bench_orders_hammerdb.py: the managed server both tools share.

One managed PostgreSQL (shared_buffers 1 GB, the team's baseline) holds dbstor's orders
database and HammerDB's tpcc database. `client_bound` sets `synchronous_commit = off`, so
neither tool waits on the WAL flush and the bound is CPU (the issue-39 regime). The side
counts what the database did: New-Orders committed (sum(d_next_o_id)), the server's CPU
(its processes from /proc) and the WAL it wrote and flushed (pg_stat_wal).
"""

from __future__ import annotations

import os
import secrets
import subprocess
from pathlib import Path

from dbstor.engines.base import EngineSettings
from dbstor.engines.postgres import SUPERUSER, PostgresEngine, find_bindir

BUFFER = 1 << 30


def proc_cpu_s(pids: list[int]) -> float:
    """CPU seconds of these processes with the children they reaped, from /proc."""
    total = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:  # exited between the listing and the read
            continue
        total += sum(int(f) for f in fields[11:15])  # utime stime cutime cstime
    return total / os.sysconf("SC_CLK_TCK")


class PostgresSide:
    """The managed PostgreSQL server, its counters and HammerDB's connection flags."""

    title = "PostgreSQL"
    counter_names = ("WAL bytes", "WAL flushes")

    def __init__(self, base: Path, client_bound: bool):
        self.client_bound = client_bound
        self.engine = PostgresEngine(
            EngineSettings(paths={"data": [base / "data"]}, buffer_bytes=BUFFER)
        )
        self.password = secrets.token_hex(12)  # a throwaway server's throwaway password

    def start(self) -> None:
        self.engine.start()
        with self.engine._server_admin() as conn:
            conn.execute(f"ALTER ROLE {SUPERUSER} PASSWORD '{self.password}'")
            if self.client_bound:
                conn.execute("ALTER SYSTEM SET synchronous_commit = off")
                conn.execute("SELECT pg_reload_conf()")

    def stop(self) -> None:
        self.engine.stop()

    def setting(self) -> str:
        with self.engine._server_admin() as conn:
            return "synchronous_commit = " + conn.execute("SHOW synchronous_commit").fetchone()[0]

    def server_cpu_s(self) -> float:
        return proc_cpu_s(self.engine.server.pids())

    def committed(self, database: str) -> int:
        """New-Orders committed so far in this database: its districts' next order ids."""
        with self.engine._admin(dbname=database) as conn:
            return int(conn.execute("SELECT sum(d_next_o_id) FROM district").fetchone()[0])

    def counters(self) -> tuple[int, ...]:
        """WAL bytes written and WAL flushes (fsyncs) so far (pg_stat_wal)."""
        with self.engine._admin() as conn:
            row = conn.execute("SELECT wal_bytes, wal_sync FROM pg_stat_wal").fetchone()
        return int(row[0]), int(row[1])

    def hammerdb_flags(self) -> list[str]:
        return [
            "--engine", "postgresql", "--host", str(self.engine.sockdir),
            "--port", str(self.engine.port), "--superuser", SUPERUSER,
            "--password", self.password,
        ]  # fmt: skip

    def settle(self) -> None:
        """Vacuum both databases and checkpoint, so the first measured run does not pay
        for what the builds left behind."""
        for database in ("dbstor", "tpcc"):
            done = subprocess.run(
                [str(find_bindir() / "vacuumdb"), "-h", str(self.engine.sockdir),
                 "-p", str(self.engine.port), "-U", SUPERUSER, "--analyze", database],
                capture_output=True, text=True, timeout=1800,
            )  # fmt: skip
            if done.returncode != 0:
                raise SystemExit(f"vacuumdb {database} failed: {done.stderr[-500:]}")
        self.checkpoint()

    def checkpoint(self) -> None:
        with self.engine._server_admin() as conn:
            conn.execute("CHECKPOINT")

    def load_statements(self) -> None:
        """pg_stat_statements, counting the statements inside procedures."""
        with self.engine._server_admin() as conn:
            conn.execute("ALTER SYSTEM SET shared_preload_libraries = 'pg_stat_statements'")
        self.engine.restart()
        with self.engine._server_admin() as conn:
            conn.execute("ALTER SYSTEM SET pg_stat_statements.track = 'all'")
            conn.execute("SELECT pg_reload_conf()")
            conn.execute("CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
            conn.execute("SELECT pg_stat_statements_reset()")

    def statements(self, database: str, new_orders: int, top: int = 12) -> str:
        """The heaviest statements run in a database, per New-Order committed there."""
        query = """SELECT calls, total_exec_time, total_plan_time, rows, query
            FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid
            WHERE d.datname = %s ORDER BY total_exec_time DESC LIMIT %s"""
        with self.engine._server_admin() as conn:
            found = conn.execute(query, (database, top)).fetchall()
        lines = [f"{database}: {new_orders:,} New-Orders; calls / NO, exec ms / NO, statement"]
        for calls, exec_ms, plan_ms, _rows, text in found:
            text = " ".join(text.split())[:150]
            lines.append(
                f"  {calls / new_orders:6.2f} {exec_ms / new_orders:7.4f} (+plan"
                f" {plan_ms / new_orders:.4f})  {text}"
            )
        return "\n".join(lines)

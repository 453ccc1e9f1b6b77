"""A point's engine I/O and NOPM count the measured window only, checked against
PostgreSQL's own counters (pg_stat_database) and the orders tables (sum of d_next_o_id)
with a warm-up twice as long as the measured window: before the fix both spanned the
warm-up as well and came out about three times too high."""

from __future__ import annotations

import importlib.util
import shutil
import tempfile
from pathlib import Path

import pytest

from dbstor.drivers.users import Instance
from dbstor.engines.base import EngineSettings
from dbstor.runs.database.point import DbPoint, measure_database_point
from dbstor.workloads.orders import OrdersWorkload

pytestmark = pytest.mark.integration

WARMUP_S, DURATION_S = 6.0, 3.0


def server_figures(engine) -> tuple[float, float]:
    """(blocks read by the database, New-Orders committed so far) from the server."""
    conn = engine.connect()
    try:
        cur = conn.cursor()
        cur.execute("SELECT pg_stat_force_next_flush()")
        cur.execute("SELECT blks_read FROM pg_stat_database WHERE datname = current_database()")
        blocks = float(cur.fetchone()[0])
        cur.execute("SELECT sum(d_next_o_id) FROM district")
        orders = float(cur.fetchone()[0])
        conn.commit()
        return blocks, orders
    finally:
        conn.close()


def test_engine_reads_and_nopm_cover_the_measured_window_only():
    if importlib.util.find_spec("psycopg") is None:
        pytest.skip("psycopg is not installed")
    from dbstor.engines import postgres

    if postgres.find_bindir() is None:
        pytest.skip("no PostgreSQL server binaries here")
    base = Path(tempfile.mkdtemp(prefix="dbstor-window-"))
    base.chmod(0o711)
    (base / "data").mkdir()
    engine = postgres.PostgresEngine(
        EngineSettings(paths={"data": [base / "data"]}, buffer_bytes=16 * 2**20)
    )
    try:
        engine.start()
        workload = OrdersWorkload(2, seed=7, options={})
        workload.create(engine, lambda message: None)
        workload.expect_users(4)
        before = server_figures(engine)
        point = DbPoint(index=0, instances=1, users=4, warmup_s=WARMUP_S, duration_s=DURATION_S)
        outcome = measure_database_point([Instance(engine, workload)], point)
        after = server_figures(engine)
    finally:
        engine.stop()
        shutil.rmtree(base, ignore_errors=True)
    whole_reads, whole_orders = after[0] - before[0], after[1] - before[1]
    window_share = DURATION_S / (WARMUP_S + DURATION_S)  # a third of the point
    drive = outcome.drive
    assert drive.fatal is None and drive.commits > 0
    assert outcome.counters.physical_reads is not None
    # the engine's reads over the window: about a third of the point's, never all of them
    assert outcome.counters.physical_reads < 0.6 * whole_reads
    metrics = workload.point_metrics(
        {n: h.count for n, h in drive.per_type.items()}, drive.rollbacks, drive.measured_s
    )
    window_orders = metrics["nopm"] * drive.measured_s / 60
    assert window_orders == pytest.approx(whole_orders * window_share, rel=0.5)
    assert window_orders < 0.6 * whole_orders
    # New-Order rollbacks come from the same window as the New-Orders
    assert 0 < drive.rollbacks.get("New-Order", 0) < drive.per_type["New-Order"].count

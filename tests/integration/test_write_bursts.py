"""Checkpoint bursts of a real PostgreSQL server, found in the per-second device writes
dbstor's sampler reads: the server's data directory on a loop device only the test uses,
checkpoints driven by its own write-ahead log (max_wal_size 32MB, completion target 0, so
each checkpoint writes its dirty pages at once), and the bursts found are as many as the
checkpoints PostgreSQL counted in the same seconds.

The load is the test's own UPDATE loop (a `dbstor run` point cannot set a managed
server's checkpoint settings), measured with the Sampler a point uses."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import pg_server
import pytest
from loopfs import mounted_loop_fs

from dbstor.analysis.bursts import write_bursts
from dbstor.telemetry.disk import devices_for_path
from dbstor.telemetry.sampler import Sampler

pytestmark = pytest.mark.integration

CHECKPOINTS = "SELECT checkpoints_timed + checkpoints_req FROM pg_stat_bgwriter"
LOAD = """
DO $$ BEGIN
  FOR i IN 1..{rounds} LOOP
    UPDATE burst SET v = v + 1 WHERE id % 20 = i % 20;
    COMMIT;
    PERFORM pg_sleep(0.06);
  END LOOP;
END $$;
"""


def test_postgres_checkpoints_are_found_as_write_bursts(monkeypatch):
    root = Path(tempfile.mkdtemp(prefix="dbstor-bursts-", dir="/dev/shm"))
    root.chmod(0o755)  # the server's account walks through it to its data directory
    eager = ("-E", "lazy_itable_init=0,lazy_journal_init=0")
    try:
        with mounted_loop_fs(root, "320M", eager) as fs:
            (fs.path / "pg").mkdir()
            monkeypatch.setattr(tempfile, "tempdir", str(fs.path / "pg"))
            settings = {
                "fsync": "on",
                "shared_buffers": "96MB",
                "max_wal_size": "32MB",
                "min_wal_size": "32MB",
                "checkpoint_completion_target": "0",
                "checkpoint_timeout": "1h",
                "bgwriter_lru_maxpages": "0",  # dirty pages leave at checkpoints only
            }
            with pg_server.running_server(settings=settings) as server:
                monkeypatch.setattr(tempfile, "tempdir", None)
                server.sql(
                    "CREATE TABLE burst AS SELECT g AS id, 0 AS v, repeat('x', 200) AS pad"
                    " FROM generate_series(1, 120000) g; CHECKPOINT"
                )
                devices = devices_for_path(server.datadir)
                assert devices == [fs.device.name], devices
                before = int(server.sql(CHECKPOINTS))
                sampler = Sampler(devices)
                sampler.start()
                server.sql(LOAD.format(rounds=90), timeout=120)
                samples = sampler.stop()
                checkpoints = int(server.sql(CHECKPOINTS)) - before
    finally:
        shutil.rmtree(root, ignore_errors=True)
    rates = [round(s["dev_write_mbps"], 1) for s in samples]
    found = write_bursts(samples)
    print(f"{checkpoints} checkpoints; per-second MB/s {rates}; found {found}")
    assert checkpoints >= 2, f"the load drove too few checkpoints to test: {checkpoints}"
    assert found is not None, f"{checkpoints} checkpoints, no bursts in {rates}"
    assert abs(found["count"] - checkpoints) <= 1, (found, checkpoints, rates)
    assert found["mb_mean"] > 5.0, "each checkpoint wrote the table's dirty pages"
    assert found["period_s"] >= 1.0

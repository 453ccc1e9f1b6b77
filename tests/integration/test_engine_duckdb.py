"""The DuckDB engine's I/O as the storage sees it: writes while loading, reads from storage
after a cold restart, none of them while the data sits in DuckDB's cache."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("duckdb", reason="duckdb is not installed (pip install 'dbstor[duckdb]')")

from dbstor.engines.base import EngineSettings
from dbstor.engines.duckdb import DuckDBEngine

pytestmark = pytest.mark.integration
ROWS = 1_000_000  # about 40 MB of barely compressible hashes


def test_counters_see_writes_then_cold_reads_after_restart(tmp_path: Path) -> None:
    engine = DuckDBEngine(EngineSettings(paths={"data": [tmp_path]}, buffer_bytes=512 << 20))
    engine.start()
    try:
        before_load = engine.counters()
        conn = engine.connect()
        conn.execute(
            f"CREATE TABLE h AS SELECT range AS id, md5(range::VARCHAR) || md5((range + 7)::VARCHAR) "
            f"AS pad FROM range({ROWS})"
        )
        conn.execute("CHECKPOINT")
        written = engine.counters().minus(before_load)
        size = sum(o.size_bytes or 0 for o in engine.object_io())
        assert size > 25e6
        assert written.storage_write_bytes and written.storage_write_bytes > 0.8 * size

        scan = "SELECT count(*), max(pad) FROM h"
        conn.execute(scan).fetchall()  # warm: the table is in DuckDB's cache now
        warm_before = engine.counters()
        conn.execute(scan).fetchall()
        warm = engine.counters().minus(warm_before)
        assert (warm.storage_read_bytes or 0) < 1e6

        engine.restart(evict=True)  # empty cache, files dropped from the page cache
        cold_before = engine.counters()
        rows = engine.connect().execute(scan).fetchall()
        cold = engine.counters().minus(cold_before)
        assert rows[0][0] == ROWS
        assert cold.storage_read_bytes and cold.storage_read_bytes > 0.8 * size
    finally:
        engine.stop()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith("dbstor-duckdb")]

"""is_disk_full recognises what real engines say when their file system fills up (a real
tmpfs): the OS, SQLite and DuckDB."""

from __future__ import annotations

import os
import sqlite3
import subprocess
from pathlib import Path

import pytest

from dbstor.errors import is_disk_full

pytestmark = pytest.mark.integration


@pytest.fixture
def full(tmp_path: Path):
    if os.geteuid() != 0:
        pytest.skip("needs root to mount a tmpfs")
    path = tmp_path / "small"
    path.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", str(path)], check=True)
    yield path
    subprocess.run(["umount", str(path)], check=False)


def test_the_os_and_sqlite_and_duckdb(full):
    with pytest.raises(OSError) as caught:
        (full / "big").write_bytes(b"\0" * (4 << 20))
    assert is_disk_full(caught.value)
    (full / "big").unlink()
    conn = sqlite3.connect(full / "x.db")
    conn.execute("create table t (v blob)")
    with pytest.raises(sqlite3.Error) as caught:
        for _ in range(64):
            conn.execute("insert into t values (randomblob(100000))")
        conn.commit()
    conn.close()
    assert is_disk_full(caught.value), caught.value
    duckdb = pytest.importorskip("duckdb")
    for name in ("x.db", "x.db-journal"):
        (full / name).unlink(missing_ok=True)
    db = duckdb.connect(str(full / "d.duckdb"))
    with pytest.raises(duckdb.Error) as caught:
        db.execute("create table t as select random()::varchar || range as v from range(3000000)")
        db.execute("checkpoint")
    db.close()
    assert is_disk_full(caught.value), caught.value
    assert not is_disk_full(ValueError("the scale is at most 100000"))

"""The layout per path against a real managed PostgreSQL: two data paths and a log path,
each its own ext4 file system on a loop device; the run records each path's device, the
bytes its files take and the tables and indexes on it (the engine's tablespaces), and the
document shows them per path."""

from __future__ import annotations

import contextlib
import shutil
import tempfile
from pathlib import Path

import pytest
from loopfs import mounted_loop_fs
from needs import usable

pytestmark = pytest.mark.integration


def test_postgres_on_two_data_paths_and_a_log_path_has_a_layout_per_path(dbstor, tmp_path):
    usable("postgres")
    root = Path(tempfile.mkdtemp(prefix="dbstor-paths-", dir="/dev/shm"))
    root.chmod(0o711)  # the server's account walks through to its folders
    try:
        with contextlib.ExitStack() as stack:
            fs = {}
            for name in ("d1", "d2", "log"):
                (root / name).mkdir()
                fs[name] = stack.enter_context(mounted_loop_fs(root / name, "96M"))
                (root / name).chmod(0o711)
            proc = dbstor(
                "run", "--engine", "postgres", "--workload", "brokerage", "--scale", "50",
                "--users", "1", "--duration", "1", "--warmup", "0",
                "--target", f"data={fs['d1'].path},{fs['d2'].path}",
                "--target", f"log={fs['log'].path}", "--out", tmp_path / "out",
            )  # fmt: skip
            assert proc.returncode == 0, proc.stderr
    finally:
        shutil.rmtree(root, ignore_errors=True)
    folder = dbstor.only_run_folder(tmp_path / "out")
    results = dbstor.results(folder)
    paths = results["engine_stats"]["paths"]
    by_role = {(p["role"], p["device"]): p for p in paths}
    devices = {name: f.device.name for name, f in fs.items()}
    assert set(by_role) == {
        ("data", devices["d1"]), ("data", devices["d2"]), ("log", devices["log"])
    }, paths  # fmt: skip
    log = by_role[("log", devices["log"])]
    assert log["bytes_on_disk"] >= 16 << 20, "a WAL segment is 16 MiB"
    objects = results["engine_stats"]["objects"]
    assert objects and all(o["writes"] is None for o in objects), "PostgreSQL keeps none"
    for role_path in (by_role[("data", devices["d1"])], by_role[("data", devices["d2"])]):
        on_it = [
            o for o in objects
            if o["path"] == role_path["path"] or o["path"].startswith(role_path["path"] + "/")
        ]  # fmt: skip
        assert on_it, f"brokerage's tables go round-robin over both data paths: {role_path}"
        assert sum(o["size_bytes"] for o in on_it) <= role_path["bytes_on_disk"]
    html = (folder / "report.html").read_text()
    assert "What is on each path" in html
    for name in devices.values():
        assert f"<td>{name}</td>" in html
    assert "data 1 of 2" in html and "data 2 of 2" in html and "write-ahead log" in html
    assert "not kept by PostgreSQL per object, so not shown: writes, written" in html
    assert "rows changed: rows inserted, updated and deleted, not block writes" in html
    tables = [o for o in objects if o["kind"] == "table"]
    assert all(o["rows_changed"] >= 0 for o in tables) and any(o["rows_changed"] for o in tables)
    assert all(o["rows_changed"] is None for o in objects if o["kind"] == "index")
    again = dbstor("report", folder)  # the new fields read back: the same section
    assert again.returncode == 0, again.stderr
    section = html[html.index("What is on each path") :].split("</table>")[0]
    assert section in (folder / "report.html").read_text()

"""Every role on its own device, measured (issue 33 part 3) against real PostgreSQL: a log
path and a placement fast path on a second device (an ext4 loop file system) are each
sampled over the point's window, results.json names each role's device, and the document's
Layout and "Each role's device" say so, and the document walker finds every device named
for a role to be the one its files are on (and catches a planted wrong one). Advise's before/after study measuring the fast
device of its after-run is in test_place.py."""

from __future__ import annotations

import json
import re
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from document_roles import host_role_problems
from document_walk import document_problems
from loopfs import LoopFs, mounted_loop_fs
from needs import usable

from dbstor.runs.study import load_folder

pytestmark = pytest.mark.integration

SHORT = ("--duration", "1", "--warmup", "0", "--scale", "50", "--buffer", "1MiB", "--quiet")


@pytest.fixture
def two_devices() -> Iterator[tuple[Path, LoopFs]]:
    """A directory on the host's own disk and a loop file system, both reachable by a
    server's unprivileged account."""
    base = Path(tempfile.mkdtemp(prefix="dbstor-roles-"))
    base.chmod(0o711)
    slow = base / "slow"
    slow.mkdir()
    try:
        with mounted_loop_fs(base, "96M") as fs:
            fs.path.chmod(0o711)
            yield slow, fs
    finally:
        shutil.rmtree(base, ignore_errors=True)


def _name(fs: LoopFs) -> str:
    return fs.device.name  # /dev/loop7 -> loop7, as /proc/diskstats names it


def test_log_and_fast_paths_on_a_second_device_are_measured_there_and_compared(dbstor, two_devices):
    usable("postgres")
    slow, fs = two_devices
    log, fast = fs.path / "log", fs.path / "fast"
    log.mkdir()
    fast.mkdir()
    proc = dbstor(
        "run", "--engine", "postgres", "--target", slow, "--target", f"log={log}",
        "--target", f"fast={fast}", "--place", "trade=fast", "--users", "2", *SHORT,
        "--out", "out", timeout=300,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    folder = dbstor.only_run_folder(dbstor.cwd / "out")
    results = dbstor.results(folder)
    roles = results["target"]["roles"]
    loop = _name(fs)
    assert roles["log"]["devices"] == [loop] and roles["fast"]["devices"] == [loop]
    assert roles["data"]["devices"] and roles["data"]["devices"] != [loop]
    assert results["target"]["device"].split(",")[0] == roles["data"]["devices"][0]
    assert roles["log"]["shared_with"] == ["fast"]
    point = results["points"][0]
    log_io = point["roles"]["log"]
    # every commit writes the WAL on the loop device: its writes are counted there
    assert log_io["devices"] == [loop] and log_io["write_iops"] > 0
    assert log_io["write_await_ms"] is not None or log_io.get("await_reasons")
    assert point["roles"]["data"]["devices"] == roles["data"]["devices"]
    assert point["roles"]["data"]["read_iops"] == pytest.approx(point["device"]["read_iops"])
    html = (folder / "report.html").read_text()
    layout = html[html.index('<table class="layout">') :]
    layout = layout[: layout.index("</table>")]
    for role in ("log", "fast"):
        row = re.search(rf"<td>{role}</td><td>([^<]*)</td>", layout)
        assert row and row.group(1) == loop, (role, layout)
    data_row = re.search(r"<td>data</td><td>([^<]*)</td>", layout)
    assert data_row and data_row.group(1) == roles["data"]["devices"][0]
    assert "Each role&#x27;s device" in html or "Each role's device" in html
    # the walker: every device named for a role is the one its files are on, by the run's
    # own path facts and by this host now; a planted wrong device is caught by both
    runs, _ = load_folder(folder)
    assert document_problems(html, runs, (host_role_problems,)) == []
    data = roles["data"]["devices"][0]
    planted = html.replace(f"<td>log</td><td>{loop}</td>", f"<td>log</td><td>{data}</td>", 1)
    problems = document_problems(planted, runs, (host_role_problems,))
    said = f"log is named on {data}, while"
    assert any(said in p and "the path facts" in p for p in problems), problems
    assert any(said in p and "this host now" in p for p in problems), problems
    _compared_with_a_run_on_one_device(dbstor, slow, folder, loop)


def _compared_with_a_run_on_one_device(dbstor, slow: Path, after: Path, loop: str) -> None:
    """A before-run on one device beside the after-run with its log and a placement's fast
    path on a second: `dbstor compare` (JSON, terminal) and its document show the
    after-run's I/O on the second device beside the before-run's single one."""
    before = slow / "before"
    before.mkdir()
    proc = dbstor(
        "run", "--engine", "postgres", "--target", before, "--label", "BEFORE", "--users",
        "2", *SHORT, "--out", "b", timeout=300,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    folders = [dbstor.only_run_folder(dbstor.cwd / "b"), after]
    proc = dbstor("compare", "--json", *folders, timeout=120)
    assert proc.returncode == 0, proc.stderr
    roles = json.loads(proc.stdout)["roles"]
    by_label = {r["label"]: r for r in roles["runs"]}
    assert set(by_label["BEFORE"]["roles"]) == {"data"}
    moved = by_label["slow"]["roles"]
    assert moved["log"]["devices"] == [loop] and moved["log"]["write_iops"] > 0
    assert "fast" not in moved  # on the log's device: counted once, there
    assert moved["log"]["shared_with"] == ["fast"]
    assert sum(e["share"] for e in moved.values()) == pytest.approx(1.0)
    assert roles["at"]  # the load it was read at, in words
    shown = dbstor("compare", *folders, "--report", "rep", timeout=120)
    assert shown.returncode == 0, shown.stderr
    assert "Each role's device" in shown.stdout and loop in shown.stdout
    html = next((dbstor.cwd / "rep").rglob("*.html")).read_text()
    assert "Each role&#x27;s device" in html and f"<td>{loop}</td>" in html

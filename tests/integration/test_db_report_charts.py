"""A real SQLite run on tmpfs with points too short for a transaction p99: the report gives
the reasons in place of the charts that have nothing to draw (no block device, too few
transactions for a p99), writes no caption under them, and draws the TPS it did measure."""

from __future__ import annotations

import re
import tempfile
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration


def test_sqlite_on_tmpfs_with_a_withheld_p99(dbstor, tmp_path: Path) -> None:
    shm = Path("/dev/shm")
    if not shm.is_dir():
        pytest.skip("no /dev/shm tmpfs here")
    with tempfile.TemporaryDirectory(dir=shm) as target:
        proc = dbstor(
            "run", "--engine", "sqlite", "--workload", "brokerage", "--target", target,
            "--users", "1,2", "--duration", "2", "--warmup", "0", "--scale", "50",
            "--think-time", "20ms", "--out", tmp_path / "out",
        )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    folder = dbstor.only_run_folder(tmp_path / "out")
    points = dbstor.results(folder)["points"]
    assert all(p["txn_lat_ms"]["p99"] is None and p["txn_lat_ms"]["count"] < 1000 for p in points)
    for p in points:  # the withheld p99 says why in the point's own trust notes too
        count = p["txn_lat_ms"]["count"]
        assert any(f"p99 withheld: {count:,} " in note for note in p["trust"]["notes"]), p["trust"]
    most = max(p["txn_lat_ms"]["count"] for p in points)
    report = (folder / "report.html").read_text()
    absent = re.findall(r'<figure><svg class="chart absent".*?</figure>', report, flags=re.S)
    words = " ".join(absent)
    assert f"the most any point had was {most:,}" in words
    assert "Transaction p99 latency not measured: a p99 needs 1,000 transactions" in words
    assert "no block device under the target" in words
    assert all("<figcaption>" not in figure for figure in absent)
    assert "no data to plot" not in report
    assert "The database&#x27;s own view" not in report and "Line: the p99" not in report
    assert "Transactions per second (the transaction p99 was not measured)" in report

"""The intervals of an io comparison against real fio: every point records its p99's
spread by batch quantiles of fio's own per-second histograms and its CPU's from the host's
seconds, and the comparison's p99 read-latency factor is stated with its interval or
withheld with an interval that includes no change, never without one."""

from __future__ import annotations

import json

import pytest

pytestmark = [pytest.mark.integration, pytest.mark.skip_without_fio]


def test_p99_and_cpu_factors_carry_their_interval(dbstor, tmp_path):
    for name in ("a", "b"):
        (tmp_path / name).mkdir()
    proc = dbstor(
        "io", "--target", f"A={tmp_path / 'a'}", "--target", f"B={tmp_path / 'b'}",
        "--iodepth", "2", "--duration", "4s", "--warmup", "1s", "--size", "32MiB",
        "--steady", "off", "--out", "out", "--quiet",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    (study,) = [p for p in (dbstor.cwd / "out").iterdir() if p.is_dir()]
    for results in study.glob("*/results.json"):
        (point,) = json.loads(results.read_text())["points"]
        sure = point["uncertainty"]
        assert "batch quantiles" in sure["read_lat_p99_ms"]["method"]
        assert sure["read_lat_p99_ms"]["df"] >= 2  # at least three batches of 1,000 reads
        assert sure["cpu_pct"]["method"].endswith("effective")
    comparison = json.loads((study / "comparison.json").read_text())
    entry = next(r for r in comparison["runs"] if r["label"] == "B")
    low, high = entry["intervals"]["read_lat_ms"]
    factor = comparison["factors"][0]["text"]
    if low <= 1 <= high:  # the same disk twice: most often no difference beyond the spread
        assert "with an interval of" in entry["withheld"]["read_lat_ms"]
        assert "includes no change" in factor
    else:
        assert f"({(low - 1) * 100:+.0f}% to {(high - 1) * 100:+.0f}%)" in factor

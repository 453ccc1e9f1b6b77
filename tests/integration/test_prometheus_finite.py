"""Figures from a real Prometheus that are no figures: a ratio whose denominator is 0
(+Inf) and a negative latency from the user's own PromQL. The run finishes, every point is
kept, the figure is null with the reason beside it, and results.json is plain JSON."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from prom_servers import node_exporter, prometheus

pytestmark = [pytest.mark.integration, pytest.mark.skip_without_fio]


def test_infinite_and_negative_figures_become_null_with_the_reason(dbstor, tmp_path: Path):
    (tmp_path / "target").mkdir()
    with node_exporter(tmp_path) as target, prometheus(tmp_path, {"node": [target]}) as server:
        server.wait_for(f'up{{instance="{target}"}}')
        result = dbstor(
            "io",
            "--target", f"T={tmp_path / 'target'}",
            "--iodepth", "1,2",
            "--duration", "4s",
            "--warmup", "1s",
            "--size", "16MiB",
            "--prometheus", server.url,
            # +Inf: a ratio whose denominator is 0; a latency below zero
            "--storage-query", "read_latency_ms=sum(up) / (sum(up) - sum(up))",
            "--storage-query", "write_latency_ms=-3 * sum(up)",
            "--storage-query", "read_iops=sum(up)",
            "--out", str(tmp_path / "results"),
            timeout=300,
        )  # fmt: skip
    assert result.returncode == 0, result.stderr
    text = next((tmp_path / "results").glob("*/results.json")).read_text()
    assert "NaN" not in text and "Infinity" not in text
    results = json.loads(text)
    assert results["status"] == "complete"
    assert [p["status"] for p in results["points"]] == ["ok", "ok"]
    for point in results["points"]:
        storage = point["layers"]["storage"]
        assert storage["read_iops"] == 1  # the finite figure is kept as measured
        assert storage["read_latency_ms"] is None and storage["write_latency_ms"] is None
        assert "not a finite number" in storage["nulled"]["read_latency_ms"]
        assert "negative" in storage["nulled"]["write_latency_ms"]


def test_a_source_that_gives_only_such_figures_says_so_not_no_samples(dbstor, tmp_path: Path):
    """With no finite figure beside them, the reason is still theirs (not a finite number,
    negative), never "no samples in the window"."""
    (tmp_path / "target").mkdir()
    with node_exporter(tmp_path) as target, prometheus(tmp_path, {"node": [target]}) as server:
        server.wait_for(f'up{{instance="{target}"}}')
        result = dbstor(
            "io",
            "--target", f"T={tmp_path / 'target'}",
            "--iodepth", "1",
            "--duration", "3s",
            "--warmup", "1s",
            "--size", "16MiB",
            "--prometheus", server.url,
            "--storage-query", "read_latency_ms=sum(up) / (sum(up) - sum(up))",
            "--storage-query", "write_latency_ms=-3 * sum(up)",
            "--out", str(tmp_path / "results"),
            timeout=300,
        )  # fmt: skip
    assert result.returncode == 0, result.stderr
    results = json.loads(next((tmp_path / "results").glob("*/results.json")).read_text())
    storage = results["points"][0]["layers"]["storage"]
    assert "missing" not in storage, storage
    assert "not a finite number" in storage["nulled"]["read_latency_ms"]
    assert "negative" in storage["nulled"]["write_latency_ms"]

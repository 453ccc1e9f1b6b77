"""Two targets with layers from a real Prometheus, compared layer by layer through the CLI:
the study's comparison.json, `dbstor compare --json`, its terminal table and its report
normalise each layer to the baseline's same layer = 100 (TR-4367 Figures 1 and 2)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from prom_servers import node_exporter, prometheus

from dbstor.telemetry.disk import devices_for_path

pytestmark = [pytest.mark.integration, pytest.mark.skip_without_fio]


def test_two_targets_compared_by_layer(dbstor, tmp_path: Path) -> None:
    device = (devices_for_path(tmp_path) or [None])[0]
    if device is None:
        pytest.skip(f"no block device under {tmp_path}")
    for name in ("a", "b"):
        (tmp_path / name).mkdir()
    out = tmp_path / "results"
    with node_exporter(tmp_path) as target, prometheus(tmp_path, {"node": [target]}) as server:
        server.wait_for_samples(f'node_disk_reads_completed_total{{instance="{target}"}}', 3)
        result = dbstor(
            "io",
            "--target", f"A={tmp_path / 'a'}",
            "--target", f"B={tmp_path / 'b'}",
            "--profile", "io-oltp",
            "--iodepth", "1,4",
            "--duration", "3s",
            "--warmup", "1s",
            "--size", "32MiB",
            "--prometheus", server.url,
            "--db-host", f'instance="{target}",device="{device}"',
            "--quiet",
            "--out", str(out),
            timeout=300,
        )  # fmt: skip
    assert result.returncode == 0, result.stderr
    (study,) = [p for p in out.iterdir() if p.is_dir()]
    saved = json.loads((study / "comparison.json").read_text())["layers"]
    assert saved["layers"] == ["client", "host_device", "remote_device"]
    base, other = saved["runs"]
    assert base["label"] == "A" and other["label"] == "B"
    for run in (base, other):
        for layer in saved["layers"]:
            assert run["values"][layer]["iops"] > 0, (run["label"], layer)
    # The same device seen by /proc and by node_exporter: the two layers agree.
    assert other["values"]["remote_device"]["iops"] == pytest.approx(
        other["values"]["host_device"]["iops"], rel=0.1
    )
    withheld = [run["withheld"] for run in (base, other) if run.get("withheld")]
    if withheld:
        # On a busy machine a point can be unsteady or share its device with other work:
        # then no ratio is stated, and the reason names the run, the point and the flag.
        for why in withheld:
            assert why.startswith(("A's point at", "B's point at")), why
            assert "not steady" in why or "not the run's own" in why or "from memory" in why
        for run in (base, other):
            if run.get("withheld"):
                assert all(
                    v is None for layer in run["normalised"].values() for v in layer.values()
                )
    if not base.get("withheld"):
        for layer in saved["layers"]:
            assert base["normalised"][layer]["iops"] == pytest.approx(100.0)
            assert base["normalised"][layer]["read_latency_ms"] == pytest.approx(100.0)
    if not other.get("withheld"):
        for layer in saved["layers"]:
            assert other["normalised"][layer]["iops"] > 0

    shown = dbstor("compare", str(study), "--json", "--report", str(tmp_path / "cmp"))
    assert shown.returncode == 0, shown.stderr
    layers = json.loads(shown.stdout)["layers"]
    assert layers["runs"][1]["normalised"] == other["normalised"]
    report = (tmp_path / "cmp" / "report.html").read_text()
    assert "Layer by layer" in report
    # each layer's CPU is compared too: node_exporter's for the database host, /proc's here
    cpu = base["values"]["remote_device"]["cpu_util_pct"]
    assert cpu is not None and 0 <= cpu <= 100
    if not base.get("withheld"):
        assert base["normalised"]["remote_device"]["cpu_util_pct"] == pytest.approx(100.0)
    # the CPU chart stands exactly where some run's CPU could be normalised (not withheld)
    cpu_normalised = any(
        figures.get("cpu_util_pct") is not None
        for run in (base, other)
        for figures in run["normalised"].values()
    )
    assert ("CPU busy by layer, relative to A = 100" in report) == cpu_normalised
    table = dbstor("compare", str(study))
    assert table.returncode == 0, table.stderr
    assert "By layer, at" in table.stdout and "(A's layer = 100)" in table.stdout
    assert "the database host's device" in table.stdout

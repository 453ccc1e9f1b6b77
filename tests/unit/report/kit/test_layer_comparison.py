"""Runs compared layer by layer (TR-4367 Figures 1 and 2) in the HTML report and the terminal:
one bar group per layer, the baseline's same layer = 100, and a missing layer's reason."""

from __future__ import annotations

import copy
import re

from rich.console import Console

from dbstor.report.console import print_comparison
from dbstor.report.kit.comparison import comparison_block
from dbstor.report.kit.layer_comparison import layer_comparison_block


def comparison(layers: dict | None) -> dict:
    out = {"baseline": "FC", "comparable": True, "warnings": [], "runs": [], "factors": []}
    if layers is not None:
        out["layers"] = layers
    return out


LAYERS = {
    "load": {"kind": "users", "value": 20.0},
    "layers": ["client", "host_device", "storage"],
    "runs": [
        {
            "label": "FC",
            "values": {
                "client": {"read_latency_ms": 20.0, "write_latency_ms": None, "iops": 2000.0},
                "host_device": {"read_latency_ms": 16.0, "write_latency_ms": None, "iops": 2500.0},
                "storage": {"read_latency_ms": 4.0, "write_latency_ms": None, "iops": 2000.0},
            },
            "normalised": {
                "client": {"read_latency_ms": 100.0, "write_latency_ms": None, "iops": 100.0},
                "host_device": {"read_latency_ms": 100.0, "write_latency_ms": None, "iops": 100.0},
                "storage": {"read_latency_ms": 100.0, "write_latency_ms": None, "iops": 100.0},
            },
        },
        {
            "label": "NFS",
            "values": {
                "client": {"read_latency_ms": 17.7, "write_latency_ms": None, "iops": 1767.0},
                "host_device": {"read_latency_ms": 15.7, "write_latency_ms": None, "iops": 2208.0},
                "storage": {"read_latency_ms": None, "write_latency_ms": None, "iops": None},
            },
            "normalised": {
                "client": {"read_latency_ms": 88.5, "write_latency_ms": None, "iops": 88.35},
                "host_device": {"read_latency_ms": 98.1, "write_latency_ms": None, "iops": 88.3},
                "storage": {"read_latency_ms": None, "write_latency_ms": None, "iops": None},
            },
            "missing": {"storage": "Prometheus at http://prom:9090 did not answer"},
        },
    ],
}


def test_report_has_one_bar_group_per_layer_with_the_baseline_at_100() -> None:
    html = comparison_block(comparison(LAYERS))
    assert "Layer by layer" in html and "8 users" not in html and "20 users" in html
    assert "Mean read latency by layer, relative to FC = 100" in html
    assert "IOPS by layer, relative to FC = 100" in html
    assert "Mean write latency by layer" not in html  # no layer has a write latency
    for words in ("the client", "this host&#x27;s device", "the storage system"):
        assert words in html
    assert "17.7 ms (88.5)" in html and "2,208 (88.3)" in html
    assert "mean read latency" in html and "CPU busy" not in html  # no layer has a CPU
    assert "not measured: Prometheus at http://prom:9090 did not answer" in html


def test_nothing_by_layer_without_layers() -> None:
    assert layer_comparison_block(comparison(None)) == ""
    assert "Layer by layer" not in comparison_block(comparison(None))


def test_terminal_table_by_layer() -> None:
    console = Console(record=True, width=200, color_system=None)
    print_comparison(comparison(LAYERS), console)
    text = console.export_text()
    assert "By layer, at users 20 (FC's layer = 100)" in text
    assert "this host's device" in text and "15.7 (98.1)" in text and "mean read ms" in text
    assert "NFS, the storage system: missing: Prometheus at http://prom:9090 did not answer" in text
    narrow = Console(record=True, width=80, color_system=None)
    print_comparison(comparison(LAYERS), narrow)
    lines = narrow.export_text().splitlines()
    assert all(len(line) <= 80 and "…" not in line for line in lines), "\n".join(lines)
    start = next(i for i, line in enumerate(lines) if line.startswith("By layer"))
    headings = " ".join(lines[start + 1 : start + 5])
    for word in ("layer", "mean", "read", "write", "IOPS", "TPS", "txn", "ms"):
        assert re.search(rf"(?<!\S){word}(?!\S)", headings), (word, lines)  # never cut
    assert any(line.rstrip().endswith("–") for line in lines if "the client" in line)
    assert not any(line.startswith("Compared with") for line in lines)  # no empty table
    console = Console(record=True, width=200, color_system=None)
    print_comparison(comparison(None), console)
    assert "By layer" not in console.export_text()


def test_the_storage_cpu_is_compared_layer_by_layer() -> None:
    layers = copy.deepcopy(LAYERS)
    for run, cpu in zip(layers["runs"], (40.0, 62.0), strict=True):
        run["values"]["storage"]["cpu_util_pct"] = cpu
        run["normalised"]["storage"]["cpu_util_pct"] = cpu / 40.0 * 100
    layers["runs"][1]["missing"] = {}
    html = comparison_block(comparison(layers))
    assert "CPU busy by layer, relative to FC = 100" in html
    assert "CPU busy" in html and "62% (155)" in html and "40% (100)" in html

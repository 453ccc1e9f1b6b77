"""The source contract: series by layer, side by side, and a missing layer with its reason."""

from __future__ import annotations

import pytest

from dbstor.telemetry.sources import Fetched, Series, layers_side_by_side, proc_series


def test_layers_side_by_side_in_stack_order_with_reasons() -> None:
    storage = Fetched(
        "purefa", "storage", (Series("read_latency_ms", "storage", ((1.0, 0.6),), 0.6),)
    )
    remote = Fetched(
        "node-exporter", "remote_device", missing="Prometheus at http://p did not answer"
    )
    out = layers_side_by_side([storage, remote])
    assert list(out) == ["remote_device", "storage"]
    assert out["storage"] == {"source": "purefa", "read_latency_ms": 0.6}
    assert out["remote_device"]["missing"] == "Prometheus at http://p did not answer"


def test_series_refuse_unknown_names() -> None:
    with pytest.raises(ValueError, match="quantity"):
        Series("read_ops", "storage", (), None)
    with pytest.raises(ValueError, match="layer"):
        Series("read_iops", "array", (), None)


def test_proc_rows_become_host_device_series() -> None:
    rows = [
        {"t_s": 1.0, "dev_read_iops": 100.0, "dev_write_iops": None, "cpu_util_pct": 50.0},
        {"t_s": 2.0, "dev_read_iops": 120.0, "dev_write_iops": None, "cpu_util_pct": 40.0},
    ]
    series = {s.quantity: s for s in proc_series(rows, t0=1000.0)}
    assert set(series) == {"read_iops", "cpu_util_pct"}
    assert series["read_iops"].points == ((1001.0, 100.0), (1002.0, 120.0))
    assert series["read_iops"].layer == "host_device"

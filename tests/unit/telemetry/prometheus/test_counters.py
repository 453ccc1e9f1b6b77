"""Counter arithmetic: increases across resets, per-step rates and ratios, exact window figures."""

from __future__ import annotations

import pytest

from dbstor.telemetry.prometheus.presets import load_preset
from dbstor.telemetry.prometheus.source import _counter_figures, increase, latency_resolved


def test_increase_counts_a_reset_from_zero() -> None:
    assert increase([(0, 100.0), (1, 150.0), (2, 20.0), (3, 50.0)]) == 50 + 20 + 30
    assert increase([(0, 5.0)]) == 0


def test_counter_rate_uses_the_real_sample_times() -> None:
    spec = load_preset("node-exporter").quantities["read_iops"]
    stepped = [[(10.0, 0.0), (11.0, 1000.0), (12.0, 2000.0)]]
    raw = [[(9.9, 0.0), (11.9, 2000.0)], [(9.8, 0.0), (11.8, 400.0)]]  # two devices
    per_step, total = _counter_figures(spec, (stepped, raw), None)
    assert per_step == {11.0: 1000.0, 12.0: 1000.0}
    assert total == pytest.approx(1000.0 + 200.0)


def test_latency_is_seconds_over_operations_in_ms() -> None:
    spec = load_preset("node-exporter").quantities["read_latency_ms"]
    seconds = [[(0.0, 10.0), (1.0, 10.5)]], [[(0.0, 10.0), (1.0, 10.5)]]
    ops = [[(0.0, 0.0), (1.0, 1000.0)]], [[(0.0, 0.0), (1.0, 1000.0)]]
    per_step, total = _counter_figures(spec, seconds, ops)
    assert per_step == {1.0: pytest.approx(0.5)}  # 0.5 s over 1000 reads = 0.5 ms each
    assert total == pytest.approx(0.5)


def test_no_operations_no_latency() -> None:
    spec = load_preset("node-exporter").quantities["write_latency_ms"]
    flat = [[(0.0, 3.0), (1.0, 3.0)]], [[(0.0, 3.0), (1.0, 3.0)]]
    per_step, total = _counter_figures(spec, flat, flat)
    assert per_step == {} and total is None


def test_time_that_did_not_move_over_operations_is_under_resolution_not_zero() -> None:
    spec = load_preset("node-exporter").quantities["read_latency_ms"]
    seconds = [[(0.0, 4.0), (1.0, 4.0), (2.0, 4.001)]], [[(0.0, 4.0), (2.0, 4.0)]]
    ops = [[(0.0, 0.0), (1.0, 3.0), (2.0, 1003.0)]], [[(0.0, 0.0), (2.0, 3.0)]]
    per_step, total = _counter_figures(spec, seconds, ops)
    assert total == 0.0 and per_step[1.0] == 0.0  # what the counters alone give
    kept, total, why = latency_resolved(spec, per_step, total, "the point's 2.0 s window")
    assert total is None and 1.0 not in kept and kept[2.0] == pytest.approx(0.001)
    assert "node_disk_read_time_seconds_total did not move" in why
    assert "resolution" in why
    iops = load_preset("node-exporter").quantities["read_iops"]
    assert latency_resolved(iops, {1.0: 0.0}, 0.0, "w") == ({1.0: 0.0}, 0.0, None)

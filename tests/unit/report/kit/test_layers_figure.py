"""The latency-by-layer figure (TR-4367 Figures 1 and 2) and its sentences."""

from __future__ import annotations

from dbstor.report.kit.layers import layers_html
from dbstor.results.model import Load, Point, Run


def _run(*layers: dict | None) -> Run:
    run = Run("r", "0", {}, {}, {}, {}, {}, {}, "now")
    for i, entry in enumerate(layers):
        point = Point(load=Load("iodepth", 2**i), duration_s=10)
        point.layers = entry
        run.points.append(point)
    return run


def test_bars_per_layer_and_where_the_time_goes() -> None:
    html = layers_html(
        _run(
            {
                "client": {"source": "fio", "read_latency_ms": 4.3},
                "host_device": {"source": "proc", "read_latency_ms": 4.1},
                "storage": {"source": "purefa", "read_latency_ms": 0.6},
            },
            {
                "client": {"source": "fio", "read_latency_ms": 1.0},
                "host_device": {"source": "proc", "read_latency_ms": 0.9},
                "storage": {"source": "purefa", "missing": "Prometheus at http://p did not answer"},
            },
        )
    )
    assert "Mean read latency by layer" in html
    assert "Storage system" in html and "This host&#x27;s device" in html
    assert "this host&#x27;s device saw 4.1 ms, the storage system 0.6 ms: 3.5 ms" in html
    assert "storage system missing on some points: Prometheus at http://p did not answer" in html
    assert "Mean write latency by layer" not in html  # no write figures at all


def test_nothing_without_a_layer_beyond_this_host() -> None:
    assert layers_html(_run(None, None)) == ""
    only_host = {"client": {"read_latency_ms": 1.0}, "host_device": {"read_latency_ms": 0.9}}
    assert layers_html(_run(only_host)) == ""

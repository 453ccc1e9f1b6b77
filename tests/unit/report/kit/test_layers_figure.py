"""The latency-by-layer figure (TR-4367 Figures 1 and 2) and its sentences."""

from __future__ import annotations

from html import escape

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
    assert "The storage system is missing at QD2: Prometheus at http://p did not answer." in html
    assert "Mean write latency by layer" not in html  # no write figures at all


def test_nothing_without_a_layer_beyond_this_host() -> None:
    assert layers_html(_run(None, None)) == ""
    only_host = {"client": {"read_latency_ms": 1.0}, "host_device": {"read_latency_ms": 0.9}}
    assert layers_html(_run(only_host)) == ""


def test_a_layer_missing_on_short_points_names_them_and_why() -> None:
    short = "the point's 1.4 s window is shorter than two of Prometheus's samples (1 s apart)"
    run = _run(
        {"client": {"txn_latency_ms": 900.0}, "remote_device": {"missing": short}},
        {"client": {"txn_latency_ms": 950.0}, "remote_device": {"missing": short}},
        {"client": {"txn_latency_ms": 2000.0}, "remote_device": {"read_latency_ms": 0.5}},
    )
    html = layers_html(run)
    assert escape(f"The database host's device is missing at QD1, QD2: {short}.") in html
    assert "QD4" not in html.split("is missing at")[1]

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


def _storage_cpu_run() -> Run:
    """Layers as a real run recorded them (node_exporter read as the storage system)."""
    return _run(
        {
            "client": {"source": "fio", "read_latency_ms": 0.084, "read_iops": 5931.0},
            "host_device": {"source": "proc", "read_latency_ms": 0.05, "cpu_util_pct": 99.9},
            "storage": {"source": "purefa", "read_latency_ms": 0.049, "cpu_util_pct": 41.5},
        },
        {
            "client": {"source": "fio", "read_latency_ms": 0.15},
            "host_device": {"source": "proc", "read_latency_ms": 0.067, "cpu_util_pct": 100.0},
            "storage": {"source": "purefa", "missing": "Prometheus at http://p did not answer"},
        },
    )


def test_the_storage_cpu_is_a_row_of_the_layer_table() -> None:
    html = layers_html(_storage_cpu_run())
    table = html[html.index('<table class="layers">') :]
    table = table[: table.index("</table>")]
    rows = table.split("<tr>")[1:]
    storage = [r for r in rows if "the storage system" in r]
    assert len(storage) == 2
    assert "42%" in storage[0] and "0.049" in storage[0]
    assert "not measured: Prometheus at http://p did not answer" in storage[1]
    assert "CPU busy" in table and "mean read latency" in table


def test_the_storage_cpu_has_its_own_bars() -> None:
    html = layers_html(_storage_cpu_run())
    start = html.index("CPU busy by layer")
    chart = html[html.rfind("<svg", 0, start) : html.index("</svg>", start)]
    assert "Storage system" in chart and "This host" in chart
    assert "Storage system, QD1: 41.5" in chart  # the bar's tooltip
    assert "Storage system, QD2" not in chart  # missing there: no bar at all


def test_no_cpu_chart_when_only_this_host_has_cpu() -> None:
    run = _run(
        {
            "client": {"read_latency_ms": 0.1},
            "host_device": {"read_latency_ms": 0.09, "cpu_util_pct": 50.0},
            "storage": {"read_latency_ms": 0.05},
        }
    )
    html = layers_html(run)
    assert "CPU busy by layer" not in html and "Mean read latency by layer" in html
    assert "mean read latency (ms)" in html  # the axis names the statistic and unit

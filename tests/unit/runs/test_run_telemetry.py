"""A run's telemetry glue: windows, repeats merged, the terminal's storage column, no Prometheus."""

from __future__ import annotations

import pytest

from dbstor.errors import UserError
from dbstor.results.model import LatencyStats, Load, Point
from dbstor.runs.telemetry import RunTelemetry, measured_window, merge_windows, storage_text
from dbstor.study.telemetry import TelemetryConfig


def test_the_window_ends_where_the_samples_end() -> None:
    assert measured_window(1000.0, 5.0, 30.0) == (1005.0, 1035.0)
    samples = [{"t_s": 4.2}, {"t_s": 5.4}, {"t_s": 35.4}]  # the sampler's snapshots
    assert measured_window(1000.0, 5.0, 30.0, samples) == (1005.4, 1035.4)


def test_repeats_average_and_a_missing_layer_stays_missing() -> None:
    a = {"storage": {"source": "purefa", "read_latency_ms": 0.5, "read_iops": 1000.0}}
    b = {"storage": {"source": "purefa", "read_latency_ms": 0.7, "read_iops": 3000.0}}
    gone = {"storage": {"source": "purefa", "missing": "Prometheus at http://p did not answer"}}
    assert merge_windows([a, b])["storage"] == {
        "source": "purefa",
        "read_latency_ms": pytest.approx(0.6),
        "read_iops": 2000.0,
    }
    assert merge_windows([a, gone])["storage"]["missing"].startswith("Prometheus at")
    assert merge_windows([a]) is a


def test_storage_text_on_the_point_line() -> None:
    point = Point(load=Load("iodepth", 1), duration_s=1)
    assert storage_text(point) == ""
    point.layers = {"storage": {"source": "x", "read_latency_ms": 0.6, "write_latency_ms": 1.25}}
    assert storage_text(point) == "  storage read 0.600 ms, write 1.250 ms"
    point.layers = {"storage": {"source": "x", "missing": "gone"}}
    assert storage_text(point) == "  storage -"


def test_without_prometheus_layers_stay_off_and_live_serves() -> None:
    pytest.importorskip("prometheus_client")
    telemetry = RunTelemetry(TelemetryConfig(metrics_port=0), run="r", kind="io")
    telemetry.preflight(10)  # nothing to ask
    telemetry.open()
    try:
        telemetry.start_point(1, {"iodepth": 4}, lambda: 123.0)
        point = Point(
            load=Load("iodepth", 4),
            duration_s=2,
            read_iops=500.0,
            read_lat_ms=LatencyStats(p99=2.0),
        )
        telemetry.finish_point(1, point, [(0.0, 2.0)], "fio")
        assert point.layers is None
        import urllib.request

        text = urllib.request.urlopen(telemetry.live.url, timeout=5).read().decode()
        assert "dbstor_last_point_ops_per_second 500.0" in text
        assert 'dbstor_last_point_latency_seconds{quantile="0.99"} 0.002' in text
    finally:
        telemetry.close()


def _answers(host: str, port: int) -> bool:
    import socket

    try:
        socket.create_connection((host, port), timeout=2).close()
    except OSError:
        return False
    return True


@pytest.mark.parametrize(
    ("address", "listens", "not_on"),
    [(None, "127.0.0.1", "127.0.0.2"), ("127.0.0.2", "127.0.0.2", "127.0.0.1")],
)
def test_live_figures_listen_on_loopback_unless_told(address, listens, not_on) -> None:
    pytest.importorskip("prometheus_client")
    config = TelemetryConfig(metrics_port=0, metrics_address=address)
    telemetry = RunTelemetry(config, run="r", kind="io")
    telemetry.open()
    try:
        assert telemetry.live.host == listens
        assert _answers(listens, telemetry.live.port)
        assert not _answers(not_on, telemetry.live.port)
    finally:
        telemetry.close()


@pytest.mark.parametrize(
    ("config", "words"),
    [
        ({"metrics_address": "0.0.0.0"}, "--metrics-address needs --metrics-port"),
        ({"metrics_port": 9464, "metrics_address": "dbhost"}, "is not an IP address"),
    ],
)
def test_a_metrics_address_is_an_ip_beside_a_port(config, words) -> None:
    with pytest.raises(UserError, match=words):
        TelemetryConfig(**config)

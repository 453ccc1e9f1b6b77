"""A point shorter than two of Prometheus's samples (a quick query point): its layer says
it is missing and why; a query run's preflight does not refuse a sample spacing (its
points last as long as their queries) but says how long a point must be."""

from __future__ import annotations

from dbstor.runs.telemetry import RunTelemetry
from dbstor.study.telemetry import TelemetryConfig
from dbstor.telemetry.prometheus.client import PrometheusClient
from dbstor.telemetry.prometheus.presets import load_preset
from dbstor.telemetry.prometheus.source import PrometheusSource

NOW = 1_700_000_000.0


def _answer(path: str, params: dict[str, str], headers: dict[str, str]):
    """Samples 5 s apart over preflight's 5 minutes; one sample in any shorter window."""
    query = params.get("query", "")
    if path == "/api/v1/metadata":
        return 200, {"status": "success", "data": {}}
    if path == "/api/v1/query" and query.endswith("[300000ms]"):
        values = [[NOW - 10, "1"], [NOW - 5, "2"], [NOW, "3"]]
    else:
        values = [[NOW - 1, "3"]]
    row = {"metric": {"device": "sdb"}, "values": values}
    return 200, {"status": "success", "data": {"resultType": "matrix", "result": [row]}}


def test_a_window_shorter_than_two_samples_says_so(fake_prometheus) -> None:
    with fake_prometheus(_answer) as (url, _):
        client = PrometheusClient(url, env={})
        source = PrometheusSource(
            client, load_preset("node-exporter"), 'device="sdb"', "remote_device"
        )
        source.preflight(60.0)
        assert source.spacing_s == 5.0
        fetched = source.fetch(NOW - 3.5, NOW, 1.0)
    assert fetched.missing is not None
    assert fetched.missing.startswith("the point's 3.5 s window is shorter than two of ")
    assert "(5 s apart)" in fetched.missing and "run longer points" in fetched.missing


def test_a_query_run_is_not_refused_for_its_spacing_but_told(fake_prometheus) -> None:
    with fake_prometheus(_answer) as (url, _):
        config = TelemetryConfig(prometheus=url, db_host='device="sdb"')
        telemetry = RunTelemetry(config)
        note = telemetry.preflight(None)
        assert telemetry.preflight(60.0) is None  # fixed-length points: nothing to say
    assert note == (
        "note: Prometheus's samples are 5 s apart: a query point shorter than 10 s gets no "
        "figures from it, and says so in its layers"
    )

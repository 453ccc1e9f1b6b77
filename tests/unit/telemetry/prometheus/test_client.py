"""The HTTP API client: credentials from the environment only, and never in a message."""

from __future__ import annotations

import base64

import pytest

from dbstor.errors import UserError
from dbstor.telemetry.prometheus.client import PrometheusClient, PrometheusError
from dbstor.telemetry.prometheus.presets import load_preset
from dbstor.telemetry.prometheus.source import PrometheusSource

TOKEN = "s3cr3t-t0ken-value"
PASSWORD = "hunter2-password"


def _echo(path: str, params: dict, headers: dict) -> tuple[int, dict]:
    """A server that echoes what it was sent in its error, as a careless proxy might."""
    return 401, {"status": "error", "error": f"unauthorized: {headers.get('authorization')}"}


def test_token_is_sent_and_never_shown(fake_prometheus) -> None:
    with fake_prometheus(_echo) as (url, seen):
        client = PrometheusClient(url, env={"DBSTOR_PROMETHEUS_TOKEN": TOKEN})
        with pytest.raises(PrometheusError) as info:
            client.query("up")
    assert seen[0]["h:authorization"] == f"Bearer {TOKEN}"
    text = f"{info.value} {info.value!r} {client!r}"
    assert TOKEN not in text and "answered 401" in text and "***" in text


def test_basic_auth_is_sent_and_never_shown(fake_prometheus) -> None:
    env = {"DBSTOR_PROMETHEUS_USER": "bench", "DBSTOR_PROMETHEUS_PASSWORD": PASSWORD}
    pair = base64.b64encode(f"bench:{PASSWORD}".encode()).decode()
    with fake_prometheus(_echo) as (url, seen):
        client = PrometheusClient(url, env=env)
        source = PrometheusSource(client, load_preset("node-exporter"), 'device="vda"')
        fetched = source.fetch(0, 10, 1)  # the run's path: a reason, not an exception
        with pytest.raises(UserError) as info:
            source.preflight(10)  # the preflight's path: one line
    assert seen[0]["h:authorization"] == f"Basic {pair}"
    for text in (fetched.missing or "", str(info.value), repr(client), repr(fetched)):
        assert PASSWORD not in text and pair not in text
    assert "answered 401" in (fetched.missing or "")


def test_credentials_in_the_url_are_refused() -> None:
    with pytest.raises(UserError) as info:
        PrometheusClient(f"http://bench:{PASSWORD}@prom:9090")
    assert PASSWORD not in str(info.value) and "DBSTOR_PROMETHEUS_TOKEN" in str(info.value)


def test_not_a_url_and_half_basic_auth() -> None:
    with pytest.raises(UserError, match="not an http"):
        PrometheusClient("prom:9090")
    with pytest.raises(UserError, match="set both"):
        PrometheusClient("http://prom:9090", env={"DBSTOR_PROMETHEUS_USER": "x"})


def test_unreachable_is_one_line() -> None:
    with pytest.raises(PrometheusError, match=r"^Prometheus at http://127.0.0.1:9 did not answer"):
        PrometheusClient("http://127.0.0.1:9", timeout=2).query("up")

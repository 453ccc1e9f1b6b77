"""Presets whose exporter cannot run here, on query_range answers built from their documentation.

Each fixture (tests/fixtures/prometheus/*.json) says how it was built and what the
window's figures must be, worked out by hand in its "expected_why".
"""

from __future__ import annotations

import pytest

from dbstor.errors import UserError
from dbstor.telemetry.prometheus import PrometheusClient, PrometheusSource, load_preset
from dbstor.telemetry.sources import layers_side_by_side

RECORDED = [
    "ontap-harvest", "ontap-harvest-lun", "purefa", "powerstore-csm", "powerflex-csm",
    "kubelet-cadvisor",
]  # fmt: skip


@pytest.mark.parametrize("name", RECORDED)
def test_window_figures_in_dbstors_units(name: str, fake_prometheus, recorded) -> None:
    data = recorded(name)
    assert data["about"].startswith("Not recorded from a live system")
    with fake_prometheus(data) as (url, seen):
        source = PrometheusSource(PrometheusClient(url), load_preset(name), data["selection"])
        source.preflight(30)
        fetched = source.fetch(data["start"], data["end"], data["step"])
    assert fetched.ok, fetched.missing
    assert fetched.layer == load_preset(name).layers[0]  # storage; kubelet: the node's device
    figures = fetched.summary()
    for quantity, expected in data["expected"].items():
        assert figures[quantity] == pytest.approx(expected, rel=1e-9), quantity
    ranges = [r for r in seen if r["path"] == "/api/v1/query_range"]
    assert {r["step"] for r in ranges} == {"1.000"}
    assert layers_side_by_side([fetched])[fetched.layer]["source"] == name


def test_a_selection_that_matches_nothing_is_refused(fake_prometheus, recorded) -> None:
    data = recorded("purefa")
    with fake_prometheus(data) as (url, _):
        source = PrometheusSource(PrometheusClient(url), load_preset("purefa"), 'name="other"')
        with pytest.raises(UserError, match="returned no series"):
            source.preflight(30)

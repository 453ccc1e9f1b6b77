"""Presets: every shipped one loads, cites its documentation and converts its units; bad ones are refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from dbstor.errors import UserError
from dbstor.telemetry.prometheus.presets import load_preset, parse_preset, preset_names


def test_the_shipped_presets() -> None:
    names = preset_names()
    for wanted in ("node-exporter", "ontap-harvest", "purefa", "powerstore-csm", "powerflex-csm"):
        assert wanted in names
    for name in names:
        preset = load_preset(name)
        assert preset.docs and all(d.startswith("https://") for d in preset.docs), name
        assert {"read_iops", "write_iops", "read_latency_ms", "write_latency_ms"} <= set(
            preset.quantities
        ), name


@pytest.mark.parametrize(
    ("preset", "quantity", "factor"),
    [
        ("node-exporter", "read_latency_ms", 1e3),  # seconds per op -> ms
        ("node-exporter", "read_mbps", 1e-6),  # bytes -> MB
        ("node-exporter", "cpu_util_pct", 100.0),  # a share -> %
        ("ontap-harvest", "read_latency_ms", 1e-3),  # microseconds -> ms
        ("purefa", "write_latency_ms", 1e-3),
        ("purefa", "read_mbps", 1e-6),
        ("powerstore-csm", "read_latency_ms", 1.0),  # already ms
        ("powerflex-csm", "write_mbps", 1.0),  # already MB/s
    ],
)
def test_units_convert_to_dbstors(preset: str, quantity: str, factor: float) -> None:
    assert load_preset(preset).quantities[quantity].factor == factor


def test_kinds_say_what_needs_a_delta() -> None:
    node = load_preset("node-exporter").quantities
    assert node["read_iops"].kind == "counter"
    assert node["read_latency_ms"].kind == "ratio"
    assert node["read_latency_ms"].per == "node_disk_reads_completed_total"
    assert load_preset("ontap-harvest").quantities["read_iops"].kind == "gauge"


def _preset(**quantity: object) -> dict:
    return {"layers": ["storage"], "quantities": {"read_latency_ms": quantity}}


@pytest.mark.parametrize(
    ("table", "message"),
    [
        (_preset(kind="gauge", metric="lat", unit="furlongs"), "unknown unit 'furlongs'"),
        (_preset(kind="gauge", metric="lat", unit="ops/s"), "cannot give ms"),
        (_preset(kind="gauge", metric="x_latency_usec", unit="ms"), "is in us by its name, not ms"),
        (_preset(kind="gauge", metric="x_latency_milliseconds", unit="us"), "is in ms by its name"),
        (_preset(kind="ratio", metric="x_seconds_total", unit="s"), "a ratio needs 'per'"),
        (_preset(kind="rate", metric="lat", unit="ms"), "kind must be one of"),
        (_preset(kind="gauge", metric="rate(x[1m])", unit="ms"), "must be a metric name"),
        ({"layers": ["client"], "quantities": {}}, "'layers' must list"),
    ],
)
def test_bad_presets_are_refused(table: dict, message: str) -> None:
    with pytest.raises(UserError, match=message):
        parse_preset(table, "mine.toml")


def test_unknown_name_suggests_the_close_one() -> None:
    with pytest.raises(UserError, match="did you mean 'purefa'"):
        load_preset("pure-fa")


def test_a_users_own_preset_file(tmp_path: Path) -> None:
    path = tmp_path / "mine.toml"
    path.write_text(
        'name = "mine"\nlayers = ["storage"]\n[quantities.read_latency_ms]\n'
        'kind = "gauge"\nmetric = "array_read_latency_microseconds"\nunit = "us"\n'
        "match = 'pool=\"fast\"'\n"
    )
    preset = load_preset(str(path))
    spec = preset.quantities["read_latency_ms"]
    assert (preset.name, spec.factor, str(spec.match[0])) == ("mine", 1e-3, 'pool="fast"')


def test_every_preset_is_in_the_docs() -> None:
    docs = (Path(__file__).parents[4] / "docs" / "telemetry.md").read_text()
    for name in preset_names():
        assert f"| `{name}` |" in docs, name

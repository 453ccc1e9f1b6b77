"""Telemetry settings from flags or a [telemetry] table, and the per-point layers dict."""

from __future__ import annotations

import pytest

from dbstor.errors import UserError
from dbstor.results.model import CpuStats, DeviceStats, LatencyStats, Load, Point
from dbstor.study.telemetry import TelemetryConfig, config_from_table
from dbstor.telemetry.config import Layers
from dbstor.telemetry.layers import point_layers


def test_table_and_its_errors() -> None:
    cfg = config_from_table(
        {
            "prometheus": "http://prom:9090",
            "storage": "purefa",
            "storage_select": 'name="x"',
            "step": "2s",
        },
        "s.toml",
    )
    assert (cfg.storage, cfg.step_s) == ("purefa", 2.0)
    assert cfg.describe()["prometheus"] == "http://prom:9090"
    with pytest.raises(
        UserError, match=r"s.toml: telemetry.storag: unknown field \(did you mean 'storage'\?\)"
    ):
        config_from_table({"storag": "purefa"}, "s.toml")
    with pytest.raises(UserError, match="s.toml: telemetry: --storage needs --prometheus URL"):
        config_from_table({"storage": "purefa"}, "s.toml")
    with pytest.raises(UserError, match="--storage-select needs --storage"):
        TelemetryConfig(prometheus="http://p:9090", storage_select='a="b"')
    with pytest.raises(UserError, match="not a port number"):
        TelemetryConfig(metrics_port=70000)


def test_layers_are_built_per_setting() -> None:
    cfg = TelemetryConfig(
        prometheus="http://prom:9090",
        storage="ontap-harvest",
        storage_select='volume="sqldata"',
        db_host='instance="db:9100",device="sdb"',
    )
    layers = Layers(cfg, env={})
    assert [(s.name, s.layer) for s in layers.sources] == [
        ("node-exporter", "remote_device"),
        ("ontap-harvest", "storage"),
    ]
    assert not Layers(TelemetryConfig(metrics_port=9464), env={})
    with pytest.raises(UserError, match="no preset 'nope'"):
        Layers(TelemetryConfig(prometheus="http://p:9090", storage="nope"), env={})


def test_point_layers_side_by_side() -> None:
    point = Point(
        load=Load("iodepth", 8),
        duration_s=10,
        read_iops=900.0,
        read_lat_ms=LatencyStats(mean=4.3, count=9000),
        device=DeviceStats(name="sdb", read_iops=910.0, read_await_ms=4.1),
        cpu=CpuStats(util_pct=35.0),
    )
    storage = {"storage": {"source": "purefa", "read_latency_ms": 0.6}}
    layers = point_layers(point, "fio", storage)
    assert list(layers) == ["client", "host_device", "storage"]
    assert layers["client"] == {"source": "fio", "read_iops": 900.0, "read_latency_ms": 4.3}
    assert layers["host_device"]["read_latency_ms"] == 4.1
    assert layers["host_device"]["cpu_util_pct"] == 35.0


def test_a_study_files_telemetry_table(tmp_path) -> None:
    from dbstor.study.load import load_study

    study = tmp_path / "s.toml"
    study.write_text(
        '[study]\nprofiles = ["io-oltp"]\n[[targets]]\nlabel = "A"\npath = "."\n'
        '[telemetry]\nprometheus = "http://prom:9090"\nstorage = "ontap-harvest"\n'
        'storage_select = \'volume="sqldata"\'\ndb_host = \'instance="db:9100",device="sdb"\'\n'
        "metrics_port = 9464\n"
    )
    loaded = load_study(study)
    assert loaded.telemetry == TelemetryConfig(
        prometheus="http://prom:9090",
        storage="ontap-harvest",
        storage_select='volume="sqldata"',
        db_host='instance="db:9100",device="sdb"',
        metrics_port=9464,
    )
    assert loaded.describe()["telemetry"]["storage"] == "ontap-harvest"
    study.write_text('[[targets]]\nlabel = "A"\npath = "."\n[telemetry]\nmetrics_port = "x"\n')
    with pytest.raises(UserError, match=r"s.toml: telemetry.metrics_port: must be a port number"):
        load_study(study)

"""Where the time goes between the host's device and the storage system; layers against a baseline."""

from __future__ import annotations

import pytest

from dbstor.analysis.layers import normalise_layers, where_time_goes


def test_the_path_between_host_and_array() -> None:
    layers = {
        "client": {"read_latency_ms": 4.3},
        "host_device": {"read_latency_ms": 4.1},
        "storage": {"read_latency_ms": 0.6},
    }
    assert where_time_goes(layers) == (
        "reads: this host's device saw 4.1 ms, the storage system 0.6 ms: 3.5 ms between "
        "them, in the path (HBA, network, switches, queues)"
    )


def test_the_database_hosts_device_comes_first() -> None:
    layers = {
        "host_device": {"write_latency_ms": 0.2},
        "remote_device": {"write_latency_ms": 12.0},
        "storage": {"write_latency_ms": 1.0},
    }
    assert where_time_goes(layers, "write").startswith(
        "writes: the database host's device saw 12 ms, the storage system 1 ms: 11 ms"
    )


def test_agreement_within_tolerance_says_nothing() -> None:
    assert (
        where_time_goes(
            {"host_device": {"read_latency_ms": 0.7}, "storage": {"read_latency_ms": 0.6}}
        )
        is None
    )
    assert where_time_goes({"host_device": {"read_latency_ms": 0.7}}) is None
    missing = {"host_device": {"read_latency_ms": 4.0}, "storage": {"missing": "Prometheus ..."}}
    assert where_time_goes(missing) is None


def test_array_slower_than_host_is_said_too() -> None:
    text = where_time_goes(
        {"host_device": {"read_latency_ms": 0.5}, "storage": {"read_latency_ms": 3.0}}
    )
    assert text is not None and "covers more than this host's I/O" in text


def test_normalised_to_the_baseline() -> None:
    by_target = {
        "FC": {"host_device": {"read_latency_ms": 2.0}, "storage": {"read_latency_ms": 0.5}},
        "NFS": {"host_device": {"read_latency_ms": 2.2}, "storage": {"read_latency_ms": 0.6}},
    }
    out = normalise_layers(by_target, "FC", "read_latency_ms")
    assert out["FC"] == {"host_device": 100.0, "storage": 100.0}
    assert out["NFS"]["host_device"] == pytest.approx(110.0)
    assert out["NFS"]["storage"] == pytest.approx(120.0)
    with pytest.raises(KeyError):
        normalise_layers(by_target, "iSCSI", "read_latency_ms")


def test_the_remote_view_without_device_reads_has_no_reads_per_txn_not_0() -> None:
    """An external server's device layer with writes but no read figure: its reads per
    transaction are not measured (None), never 0 (which would read as 'all from memory')."""
    from dbstor.analysis.layers import remote_view
    from dbstor.results.model import Load, Point

    point = Point(load=Load("users", 2), duration_s=10.0, tps=100.0)
    point.layers = {"remote_device": {"write_iops": 40.0, "write_latency_ms": 1.5}}
    view = remote_view(point)
    assert view is not None and view.write_iops == 40.0
    assert view.read_iops is None and view.engine_io["device_reads_per_txn"] is None
    point.layers["remote_device"]["read_iops"] = 250.0
    assert remote_view(point).engine_io["device_reads_per_txn"] == pytest.approx(2.5)

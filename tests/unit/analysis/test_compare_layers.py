"""A comparison of runs with layers (TR-4367 Figures 1 and 2): each run's latency and IOPS at
every layer, at the same load as the headline, normalised to the baseline's same layer = 100."""

import pytest

from dbstor.analysis.compare import compare_runs
from dbstor.results.model import CpuStats, LatencyStats, Load, Point, Run


def point(users, iops, read_ms, host_ms=None, storage_ms=None, storage_missing=None):
    layers = {"client": {"source": "sqlserver", "read_iops": iops, "read_latency_ms": read_ms}}
    if host_ms is not None:
        layers["host_device"] = {"source": "proc", "read_iops": iops, "write_iops": iops / 4,
                                 "read_latency_ms": host_ms}  # fmt: skip
    if storage_ms is not None:
        layers["storage"] = {"source": "ontap-harvest", "read_iops": iops,
                             "read_latency_ms": storage_ms}  # fmt: skip
    if storage_missing is not None:
        layers["storage"] = {"source": "ontap-harvest", "missing": storage_missing}
    return Point(
        load=Load("users", users, jobs=users),
        duration_s=60,
        tps=iops / 10,
        read_iops=iops,
        write_iops=0.0,
        read_lat_ms=LatencyStats(mean=read_ms, count=100_000),
        cpu=CpuStats(util_pct=10.0),
        layers=layers,
    )


def run(label, points):
    return Run(
        run_id=f"r-{label}",
        tool_version="0",
        study={"duration_s": 60},
        target={"label": label},
        engine={"name": "sqlserver"},
        workload={"name": "brokerage", "scale": 1000},
        host={},
        slo={"metric": "read_lat_mean_ms", "limit_ms": 20.0},
        created_at="",
        points=points,
    )


# FC knees at 20 users (reads reach 20 ms there); NFS is measured at 10 and 40 users, so its
# figures at 20 users are interpolated on its curve.
FC = run("FC", [point(10, 1000, 10, 8.0, 2.0), point(20, 2000, 20, 16.0, 4.0),
                point(40, 2100, 60, 50.0, 10.0)])  # fmt: skip
NFS = run("NFS", [point(10, 1100, 11, 9.0, 3.0), point(40, 3100, 31, 29.0, 9.0)])


def test_each_layer_is_normalised_to_the_baselines_same_layer():
    c = compare_runs([FC, NFS], "FC")
    layers = c["layers"]
    assert layers["load"] == {"kind": "users", "value": pytest.approx(20)}
    assert layers["layers"] == ["client", "host_device", "storage"]
    fc, nfs = layers["runs"]
    assert fc["label"] == "FC" and nfs["label"] == "NFS"
    assert fc["normalised"]["storage"] == {
        "read_latency_ms": 100.0, "write_latency_ms": None, "iops": 100.0, "cpu_util_pct": None,
        "tps": None, "txn_latency_ms": None,
    }  # fmt: skip
    # NFS at 20 users: a third of the way from 10 to 40 users.
    assert nfs["values"]["storage"]["read_latency_ms"] == pytest.approx(5.0)
    assert nfs["normalised"]["storage"]["read_latency_ms"] == pytest.approx(125.0)
    assert nfs["values"]["host_device"]["read_latency_ms"] == pytest.approx(15.6667, rel=1e-4)
    assert nfs["normalised"]["host_device"]["read_latency_ms"] == pytest.approx(97.917, rel=1e-4)
    # IOPS at a layer are reads and writes together: 1766.7 * 1.25 vs 2000 * 1.25.
    assert nfs["normalised"]["host_device"]["iops"] == pytest.approx(88.333, rel=1e-4)
    assert nfs["normalised"]["client"]["read_latency_ms"] == pytest.approx(88.333, rel=1e-4)


def test_a_layer_only_one_run_has_is_none_for_the_other_and_its_reason_is_kept():
    nfs = run("NFS", [point(10, 1100, 11, 9.0, storage_missing="Prometheus did not answer"),
                      point(40, 3100, 31, 29.0, storage_missing="Prometheus did not answer")])  # fmt: skip
    c = compare_runs([FC, nfs], "FC")
    entry = c["layers"]["runs"][1]
    assert entry["normalised"]["storage"]["read_latency_ms"] is None
    assert entry["missing"] == {"storage": "Prometheus did not answer"}
    assert entry["normalised"]["host_device"]["read_latency_ms"] is not None


def test_runs_without_layers_have_no_layers_block():
    plain = [
        run(label, [Point(load=Load("users", u, jobs=u), duration_s=60, read_iops=1000.0 * u,
                          read_lat_ms=LatencyStats(mean=5.0 * u, count=10)) for u in (1, 2, 4)])
        for label in ("A", "B")
    ]  # fmt: skip
    assert "layers" not in compare_runs(plain, "A")


def test_layers_of_a_run_read_from_memory_are_not_normalised():
    """NFS's reads came from memory (0.01 device reads per transaction): its layers keep
    their values, but no share of the baseline's, and the block says why."""
    import copy

    nfs = copy.deepcopy(NFS)
    for p in nfs.points:
        p.engine_io = {"device_reads_per_txn": 0.01}
    c = compare_runs([FC, nfs], "FC")
    _, held = c["layers"]["runs"]
    assert held["values"]["storage"]["read_latency_ms"] is not None
    assert all(v is None for figures in held["normalised"].values() for v in figures.values())
    assert "its reads came from memory" in held["withheld"]
    assert c["same_load"]["factors"][0]["text"].startswith("not computed: NFS's point at")


def test_a_database_client_layer_is_its_transactions_not_the_device_row():
    """A database run's client layer repeated this host's device row; it is the
    transaction rate and latency (the device's figures are host_device's)."""
    import copy

    fc, nfs = copy.deepcopy(FC), copy.deepcopy(NFS)
    for p in fc.points + nfs.points:
        p.layers["client"] = {"source": "client", "read_iops": p.read_iops, "tps": p.tps,
                              "read_latency_ms": 1.0, "txn_latency_ms": 3.0}  # fmt: skip
    c = compare_runs([fc, nfs], "FC")
    base, other = c["layers"]["runs"]
    assert base["values"]["client"]["iops"] is None
    assert base["values"]["client"]["read_latency_ms"] is None
    assert base["values"]["client"]["tps"] == pytest.approx(200.0)
    assert other["normalised"]["client"]["txn_latency_ms"] == pytest.approx(100.0)


def test_the_baseline_is_never_withheld_from_beside_itself():
    import copy

    fc = copy.deepcopy(FC)
    for p in fc.points:
        p.engine_io = {"device_reads_per_txn": 0.01}  # the baseline read from memory
    c = compare_runs([fc, NFS], "FC")
    base, other = c["layers"]["runs"]
    assert "withheld" not in base
    assert "memory" in other["withheld"]

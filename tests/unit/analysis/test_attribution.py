"""The own processes' I/O and CPU beside the host's: the cgroup files parsed, the foreign
share and its refusals, and the CPU the comparisons and the cost case use."""

from __future__ import annotations

from pathlib import Path

import pytest

from dbstor.analysis.attribution import (
    fio_attribution,
    foreign_share,
    own_cpu,
    own_io,
    server_cpu,
)
from dbstor.analysis.tco.runs import cpu_from_runs
from dbstor.results.model import CpuStats, DeviceStats, Load, Point, Run
from dbstor.results.store import save_run
from dbstor.telemetry.own import own_window, parse_v1_blkio, parse_v2_io

V1_SERVICED = """254:0 Read 1024
254:0 Write 100
254:0 Sync 1124
254:0 Async 0
254:0 Discard 0
254:0 Total 1124
253:0 Read 7
Total 1124
"""
V1_BYTES = """254:0 Read 67108864
254:0 Write 6553600
254:0 Total 73662464
Total 73662464
"""


def test_v1_and_v2_files_parse_per_device_named():
    names = {"254:0": "vda"}
    assert parse_v1_blkio(V1_SERVICED, V1_BYTES, names) == {"vda": [1024, 100, 67108864, 6553600]}
    v2 = "254:0 rbytes=4096 wbytes=8192 rios=1 wios=2 dbytes=0 dios=0\n8:0 rbytes=1 rios=1\n"
    assert parse_v2_io(v2, names) == {"vda": [1, 2, 4096, 8192]}


def _snap(server: list[int], client: list[int], server_ns: int, client_ns: int) -> dict:
    def role(row: list[int], ns: int, processes: int) -> dict:
        return {
            "devices": {"vda": row},
            "processes": processes,
            "cpu_ns": ns,
            "proc_read_bytes": row[2],
            "proc_write_bytes": row[3],
        }

    return {
        "source": "cgroup v1 blkio.throttle.io_serviced/io_service_bytes, cpuacct.usage",
        "writes_counted": "direct",
        "roles": {"server": role(server, server_ns, 3), "client": role(client, client_ns, 1)},
    }


WINDOW = own_window(
    _snap([0, 0, 0, 0], [0, 0, 0, 0], 0, 0),
    _snap([600, 100, 600 * 8192, 100 * 8192], [0, 0, 0, 0], 4 * 10**9, 1 * 10**9),
)


def test_own_io_per_transaction_and_the_device_excess_is_foreign():
    device = DeviceStats(name="vda", read_iops=300.0, read_mbps=300 * 8192 / 1e6)
    io = own_io(WINDOW, device, txns=1200)
    assert io["reads"] == 600 and io["reads_per_txn"] == 0.5
    assert io["roles"]["server"]["reads"] == 600 and io["roles"]["client"]["reads"] == 0
    share, why = foreign_share(io, device, seconds=10)  # the device read 3,000: 600 were ours
    assert share == pytest.approx(0.8) and why is None


def test_no_device_and_a_barely_read_device_give_no_share_but_a_reason():
    io = own_io(WINDOW, None, txns=1200)
    assert io["reads"] is None  # not measured, not 0
    share, why = foreign_share(io, None, 10)
    assert share is None and "no block device" in why
    quiet = DeviceStats(name="vda", read_iops=5.0, read_mbps=0.04)
    share, why = foreign_share(own_io(WINDOW, quiet, 1200), quiet, 10)
    assert share is None and "too few" in why


def test_own_cpu_is_a_share_of_the_hosts_cores_and_the_rest_is_other_work():
    cpu = own_cpu(WINDOW, CpuStats(util_pct=90.0), seconds=10, cores=2)
    assert cpu["server_pct"] == pytest.approx(20.0)  # 4 s of 20 core-seconds
    assert cpu["client_pct"] == pytest.approx(5.0)
    assert cpu["own_pct"] == pytest.approx(25.0) and cpu["other_pct"] == pytest.approx(65.0)


def test_fio_own_io_is_its_output_and_the_device_excess_foreign():
    device = DeviceStats(name="vda", read_mbps=4.0, write_mbps=0.0)
    own, share, why = fio_attribution(1.0, 0.0, 250.0, 0.0, device, seconds=10)
    assert own["reads"] == 2500 and own["read_bytes"] == 10_000_000
    assert share == pytest.approx(0.75) and why is None


def test_the_database_servers_own_cpu_before_the_hosts():
    assert server_cpu(CpuStats(util_pct=97.0, server_pct=12.0, own_pct=20.0))[0] == 12.0
    assert server_cpu(CpuStats(util_pct=97.0, own_pct=20.0))[0] == 20.0  # embedded
    assert server_cpu(CpuStats(util_pct=97.0)) == (97.0, "the whole host")  # an old run


def _run(folder: Path, cpu: dict[int, tuple[float, float]]) -> None:
    points = [
        Point(load=Load("users", u), duration_s=10, cpu=CpuStats(util_pct=h, server_pct=s))
        for u, (h, s) in cpu.items()
    ]
    save_run(folder, Run(folder.name, "t", {}, {}, {}, {}, {}, {}, "now", points=points))


def test_the_cost_case_from_runs_uses_the_servers_own_cpu(tmp_path):
    """A CPU-bound shared host reads 97-99% in both runs; the servers' own CPU does not."""
    _run(tmp_path / "legacy", {8: (98.0, 10.0), 16: (99.0, 12.0)})
    _run(tmp_path / "flash", {8: (97.0, 30.0), 16: (99.0, 48.0)})
    before, after, how, _points = cpu_from_runs(tmp_path / "legacy", tmp_path / "flash")
    assert (before, after) == (12.0, 48.0)
    assert how.endswith("CPU of the database server's own processes")


def test_cluster_hosts_on_one_machine_add_their_own_io_against_one_device():
    from dbstor.runs.merge import merge_own_windows as merge_own

    merged = merge_own([WINDOW, WINDOW, WINDOW], ["boot-a"] * 3)
    assert merged["roles"]["server"]["devices"]["vda"][0] == 1800
    assert merged["roles"]["server"]["cpu_ns"] == 12 * 10**9  # one machine: its cores
    device = DeviceStats(name="h1:vda", read_iops=360.0, read_mbps=1.0)  # counted once
    io = own_io(merged, device, txns=3600)
    assert io["reads"] == 1800
    share, _ = foreign_share(io, device, seconds=10)
    assert share == pytest.approx(0.5)
    apart = merge_own([WINDOW, WINDOW], ["boot-a", "boot-b"])
    assert apart["roles"]["server"]["cpu_ns"] is None, "two machines' cores are not one share"


def test_a_comparison_puts_the_servers_own_cpu_in_its_factors_and_says_so():
    from dbstor.analysis.compare import compare_runs

    def run(label: str, server: float) -> Run:
        points = [
            Point(
                load=Load("users", u),
                duration_s=10,
                tps=100.0 * u,
                read_lat_ms=None,
                cpu=CpuStats(util_pct=99.0, server_pct=server * u),
            )
            for u in (1, 2)
        ]
        slo = {"metric": "txn_lat_p99_ms", "limit_ms": 1000.0}
        return Run(
            label,
            "t",
            {},
            {"label": label},
            {"name": "postgres"},
            {"name": "w"},
            {},
            slo,
            "now",
            points=points,
        )

    comparison = compare_runs([run("A", 10.0), run("B", 40.0)], baseline="A")
    assert comparison["cpu_from"] == "the database server's own processes"
    b = next(e for e in comparison["runs"] if e["label"] == "B")
    assert b["normalised"]["cpu_pct"] == pytest.approx(400.0)  # the host read 99% in both

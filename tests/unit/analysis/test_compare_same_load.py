"""Comparisons made the way the seeds made them: the headline at the same load (the
baseline's knee load), each run's own knee second, the response time, three significant
figures, and no verdict for runs that are not comparable."""

import pytest

from dbstor.analysis.compare import compare_runs, factor
from dbstor.results.model import CpuStats, LatencyStats, Load, Point, Run


def users_point(users, iops, read_ms, cpu, response_ms):
    return Point(
        load=Load("users", users, jobs=users),
        duration_s=60,
        tps=iops / 10,
        read_iops=iops,
        write_iops=0.0,
        read_lat_ms=LatencyStats(mean=read_ms, count=100_000),
        txn_lat_ms=LatencyStats(mean=response_ms, count=100_000),
        cpu=CpuStats(util_pct=cpu),
    )


def oltp_run(label, points, drives):
    return Run(
        run_id=f"r-{label}",
        tool_version="0",
        study={"duration_s": 60},
        target={"label": label, "facts": {"drives": drives}},
        engine={"name": "sqlserver"},
        workload={"name": "brokerage", "scale": 1000},
        host={},
        slo={"metric": "read_lat_mean_ms", "limit_ms": 20.0},
        created_at="",
        points=points,
    )


# TR-4403's ramp, constructed: the legacy array stops delivering reads under 20 ms at 20
# users; the flash array goes on to 160 users within the limit.
LEGACY = oltp_run(
    "LEGACY",
    [users_point(10, 10_000, 10, 5, 70), users_point(20, 12_500, 20, 10, 140),
     users_point(40, 13_000, 60, 11, 400)],
    drives=48,
)  # fmt: skip
FLASH = oltp_run(
    "FLASH",
    [users_point(10, 25_000, 0.5, 20, 12), users_point(20, 50_000, 0.6, 40, 20),
     users_point(40, 75_000, 0.8, 60, 30), users_point(80, 100_000, 1.2, 80, 50),
     users_point(160, 100_000, 2.0, 80, 110)],
    drives=24,
)  # fmt: skip


def test_headline_is_at_the_baselines_knee_load_and_own_knee_second():
    c = compare_runs([LEGACY, FLASH], "LEGACY")
    same = c["same_load"]
    assert same["load"] == {"kind": "users", "value": pytest.approx(20)}
    assert [{k: f[k] for k in ("label", "text")} for f in same["factors"]] == [
        {
            "label": "FLASH",
            "text": "mean device read latency -97%, transactions x4, IOPS x4, CPU x4, "
            "mean response time x0.143",
        }
    ]
    assert same["factors"][0]["intervals"] == {}  # these points carry no spread of their own
    own = c["factors"][0]["text"]
    assert "IOPS x8" in own  # what the seed's method avoids quoting as the headline
    lead, second = c["verdict"]["lines"]
    assert "at the same load (20 users, the baseline's knee load)" in lead["lead"]
    assert "IOPS x4" in lead["text"] and "own knee" in second["lead"]
    assert c["verdict"]["reason"] is None


def test_factors_have_three_significant_figures():
    assert [factor(v) for v in (115.0, 178.0, 400.0, 14.29, 1250.0)] == [
        "x1.15", "x1.78", "x4", "x0.143", "x12.5",
    ]  # fmt: skip


def test_runs_that_are_not_comparable_get_the_reason_and_no_verdict():
    other = oltp_run("OTHER", FLASH.points, drives=24)
    other.workload = {"name": "orders", "scale": 10}
    c = compare_runs([LEGACY, other], "LEGACY")
    assert c["comparable"] is False
    assert c["verdict"]["lines"] == [] and "different workloads" in c["verdict"]["reason"]


def test_per_disk_efficiency_uses_the_drive_counts():
    c = compare_runs([LEGACY, FLASH], "LEGACY")
    [row] = c["per_disk"]
    assert row["drive_reduction"] == 2.0 and row["per_disk_efficiency"] == pytest.approx(2 * 8)


def test_runs_that_wrote_other_data_say_so():
    compressible = oltp_run("FLASH", FLASH.points, drives=24)
    compressible.workload = {**FLASH.workload, "data": {"kind": "ratio", "compression": 1.8}}
    c = compare_runs([LEGACY, compressible], "LEGACY")
    assert any("data written" in w for w in c["warnings"])


@pytest.mark.parametrize(
    ("base_drives", "drives", "performance", "per_disk"),
    [(75, 6, 1.15, "x14.4"), (45, 5, 1.78, "x16")],  # h6080's two per-disk figures
)
def test_per_disk_efficiency_reproduces_h6080(base_drives, drives, performance, per_disk):
    base = oltp_run("HDD", LEGACY.points, drives=base_drives)
    faster = [
        users_point(p.load.value, p.read_iops * performance, p.read_lat_ms.mean, 10, 100)
        for p in LEGACY.points
    ]
    flash = oltp_run("SSD", faster, drives=drives)
    [row] = compare_runs([base, flash], "HDD")["per_disk"]
    assert row["performance_factor"] == pytest.approx(performance)
    assert factor(row["per_disk_efficiency"] * 100) == per_disk

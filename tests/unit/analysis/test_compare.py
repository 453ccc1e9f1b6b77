import pytest

from dbstor.analysis.compare import compare_runs, factor_text
from dbstor.results.model import CpuStats, LatencyStats, Load, Point, Run


def point(qd, iops, p99, cpu):
    return Point(
        load=Load("iodepth", qd),
        duration_s=10,
        read_iops=iops,
        write_iops=0.0,
        read_lat_ms=LatencyStats(p99=p99, count=10_000),
        cpu=CpuStats(util_pct=cpu),
    )


def run(label, points, drives=None, workload="io-oltp", limit=1.0):
    return Run(
        run_id=f"r-{label}",
        tool_version="0",
        study={"duration_s": 10},
        target={"label": label, "facts": {"drives": drives} if drives else {}},
        engine={"name": "fio"},
        workload={"name": workload, "file_size_bytes": 1},
        host={},
        slo={"metric": "read_lat_p99_ms", "limit_ms": limit},
        created_at="",
        points=points,
    )


HDD = run(
    "HDD",
    [point(1, 1_000, 0.5, 10), point(4, 2_000, 1.5, 20), point(16, 2_100, 8.0, 22)],
    drives=75,
)
FLASH = run(
    "FLASH",
    [point(1, 10_000, 0.1, 20), point(4, 30_000, 0.2, 60), point(16, 40_000, 0.9, 80)],
    drives=6,
)


def test_normalised_to_baseline_at_the_knee():
    c = compare_runs([HDD, FLASH])
    assert c["baseline"] == "HDD" and c["comparable"]
    hdd, flash = c["runs"]
    # HDD knee: halfway from QD1 (0.5 ms) to QD4 (1.5 ms): QD 2.5, 1,500 IOPS, CPU 15%
    assert hdd["basis"] == "knee" and hdd["values"]["iops"] == pytest.approx(1_500)
    assert hdd["values"]["cpu_pct"] == pytest.approx(15.0)
    assert hdd["normalised"]["iops"] == pytest.approx(100.0)
    # FLASH: every point within 1 ms -> knee at its last point, 40,000 IOPS, CPU 80%
    assert flash["values"]["iops"] == pytest.approx(40_000)
    assert flash["normalised"]["iops"] == pytest.approx(40_000 / 1_500 * 100)
    assert flash["normalised"]["cpu_pct"] == pytest.approx(80 / 15 * 100)
    # latency at the baseline's knee load (QD 2.5): HDD 1.0 ms, FLASH 0.1 + 0.5 x 0.1 = 0.15 ms
    assert hdd["values"]["read_lat_ms"] == pytest.approx(1.0)
    assert flash["values"]["read_lat_ms"] == pytest.approx(0.15)
    assert [(f["label"], f["text"]) for f in c["factors"]] == [
        ("FLASH", "p99 read latency -85%, IOPS x26.7, CPU x5.33")
    ]


def test_per_disk_efficiency_as_h6080_computes_it():
    # h6080: 75 drives against 6, 1.15x the transactions -> 12.5 x 1.15 = 14.4x per disk
    a = run("FC-HDD", [point(1, 1_000, 0.5, 10)], drives=75, limit=20)
    b = run("EFD", [point(1, 1_150, 0.5, 10)], drives=6, limit=20)
    (per_disk,) = compare_runs([a, b])["per_disk"]
    assert per_disk["drive_reduction"] == pytest.approx(12.5)
    assert per_disk["performance_factor"] == pytest.approx(1.15)
    assert per_disk["per_disk_efficiency"] == pytest.approx(14.375)


def test_matched_points_and_chosen_baseline():
    c = compare_runs([HDD, FLASH], baseline="FLASH")
    assert c["baseline"] == "FLASH"
    assert [row["load"]["value"] for row in c["matched"]] == [1, 4, 16]
    row = c["matched"][0]
    assert row["normalised"]["FLASH"]["iops"] == pytest.approx(100)
    assert row["normalised"]["HDD"]["iops"] == pytest.approx(10)


def test_not_comparable_when_workloads_differ():
    other = run("X", HDD.points, workload="io-dss")
    c = compare_runs([HDD, other])
    assert c["comparable"] is False
    assert any("different workloads" in w for w in c["warnings"])
    assert [e["label"] for e in c["runs"]] == ["HDD io-oltp", "X io-dss"]


def test_factor_text():
    assert (
        factor_text({"read_lat_ms": 5.0, "iops": 420.0, "cpu_pct": 410.0, "tps": None})
        == "read latency -95%, IOPS x4.2, CPU x4.1"
    )


def test_the_cpu_column_names_whose_cpu_it_is():
    """The CPU compared is the database server's own where it was counted: the column says
    so ('server's own CPU (%)'), never 'host CPU' over a server's own figures."""
    from dataclasses import replace

    def own(p, server):
        return replace(p, cpu=CpuStats(util_pct=100.0, own_pct=server + 5, server_pct=server))

    assert compare_runs([HDD, FLASH])["metric_names"]["cpu_pct"] == "host CPU (%)"
    hdd = replace(HDD, points=[own(p, 10.0) for p in HDD.points])
    flash = replace(FLASH, points=[own(p, 30.0) for p in FLASH.points])
    c = compare_runs([hdd, flash])
    assert c["metric_names"]["cpu_pct"] == "server's own CPU (%)"
    assert c["runs"][1]["values"]["cpu_pct"] == pytest.approx(30.0)  # not the host's 100
    mixed = compare_runs([hdd, FLASH])["metric_names"]["cpu_pct"]
    assert "the database server's own processes" in mixed and "the whole host" in mixed


def test_a_knee_never_reached_is_not_called_a_knee():
    """Every point within the SLO: the knee lies beyond the highest load, so the figures
    are at the run's highest load and the words say so, never 'the baseline's knee'."""
    c = compare_runs([FLASH, HDD])  # FLASH, every point within 1 ms, is the baseline
    flash, hdd = c["runs"]
    assert flash["basis"] == "highest load" and hdd["basis"] == "knee"
    assert flash["values"]["iops"] == pytest.approx(40_000)  # QD 16, its highest load
    assert c["latency_at"] == "QD 16, the baseline's highest load"
    assert "knee load" not in str(c["verdict"]) and "QD 16, the baseline's highest load" in str(
        c["verdict"]
    )
    assert "vs FLASH at its own highest load" in str(c["verdict"])
    # the latency factor is read at one load for both runs, not at each run's own figure
    leads = [line["lead"] for line in c["verdict"]["lines"]]
    assert any(
        lead.endswith("(read latency at one load for both: QD 16, the baseline's highest load)")
        for lead in leads
    ), leads

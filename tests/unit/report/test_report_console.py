"""The terminal summary."""

from __future__ import annotations

from rich.console import Console

from dbstor.report.console import print_comparison, print_run_summary
from dbstor.results.model import Run


def output(func, *args) -> str:
    console = Console(record=True, width=200, color_system=None)
    func(*args, console)
    return console.export_text()


def test_run_summary_lists_points_peak_and_knee(fc: Run):
    text = output(print_run_summary, fc)
    for load in ("QD1", "QD2", "QD4", "QD8", "QD16", "QD32", "QD64"):
        assert load in text
    assert "54,100" in text and "0.76" in text and "71%" in text and "1.04" in text
    assert "not steady" in text and "saturated" in text and "44,100–46,050 over 3" in text
    assert "peak: 54,100 IOPS at QD 64 (p99 read 1.90 ms)" in text
    assert "knee: 47,702 IOPS at QD 23.8 (p99 read 1.00 ms, SLO 1 ms)" in text


def test_run_summary_of_an_interrupted_run(tmpfs: Run):
    text = output(print_run_summary, tmpfs)
    assert "failed: fio exited with status 1" in text
    assert "run interrupted: 2 of 3 load points finished" in text
    assert "note: direct I/O not supported on tmpfs" in text
    assert "the knee lies beyond the highest load" in text
    assert '<script>alert("x")</script>' in text  # shown literally, not taken as markup


def test_knee_line_when_no_point_is_within(iscsi: Run):
    iscsi.slo["limit_ms"] = 0.2
    assert "knee: no point within the SLO" in output(print_run_summary, iscsi)


def test_comparison(comparison):
    comparison["comparable"] = False
    comparison["warnings"] = ["ISCSI ran on device sdc, FC on dm-3"]
    comparison["per_disk"] = [
        {
            "label": "FLASH",
            "drives": 6,
            "baseline_drives": 75,
            "drive_reduction": 12.5,
            "performance_factor": 1.15,
            "per_disk_efficiency": 14.4,
        }
    ]
    text = output(print_comparison, comparison)
    assert "Compared with FC (= 100)" in text
    assert "26,400 (55.3)" in text and "3.58 ms (358)" in text and "48% (87.1)" in text
    assert "ISCSI vs FC: read latency +258%, IOPS x0.55, CPU x0.87" in text
    assert "warning: ISCSI ran on device sdc" in text
    assert "not comparable" in text and "x14.4" in text

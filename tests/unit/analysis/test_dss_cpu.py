"""A dss comparison's CPU is the run's own where it counted it (TR-3476 set FC beside iSCSI
with each query's CPU): never the host's, which on a shared host was mostly other work."""

from dbstor.analysis.dss_compare import compare_query_runs, point_values
from dbstor.results.model import CpuStats, Load, Point, Run


def _run(label: str, cpu: CpuStats, elapsed: float) -> Run:
    run = Run(f"r-{label}", "t", {}, {"label": label}, {"name": "duckdb"},
              {"name": "dss", "kind": "queries"}, {}, {"metric": "read_lat_p99_ms"}, "now")  # fmt: skip
    run.points = [
        Point(Load("streams", 1), elapsed, read_mbps=100.0, cpu=cpu,
              workload_metrics={"total_elapsed_s": elapsed})
    ]  # fmt: skip
    return run


def test_the_cpu_of_a_query_point_is_the_runs_own_not_the_busy_hosts():
    busy = CpuStats(util_pct=91.0, own_pct=6.0, client_pct=6.0, other_pct=85.0)
    assert point_values(_run("FC", busy, 10.0).points[0])["cpu_pct"] == 6.0


def test_the_cpu_factor_is_of_the_runs_own_cpu_and_says_host_only_when_it_is_the_hosts():
    fc = _run("FC", CpuStats(util_pct=91.0, own_pct=6.0, other_pct=85.0), 10.0)
    iscsi = _run("iSCSI", CpuStats(util_pct=88.0, own_pct=12.0, other_pct=76.0), 11.0)
    result = compare_query_runs([fc, iscsi], "FC")
    assert "CPU x2" in result["factors"][0]["text"]  # 12 / 6, not 88 / 91 ("CPU x0.97")
    assert result["cpu_from"] == "the engine's own (client) processes"
    old_fc = _run("FC", CpuStats(util_pct=40.0), 10.0)
    old_iscsi = _run("iSCSI", CpuStats(util_pct=44.0), 11.0)
    assert "host CPU x1.1" in compare_query_runs([old_fc, old_iscsi], "FC")["factors"][0]["text"]


def test_no_cpu_factor_from_a_runs_own_cpu_over_another_runs_host_cpu():
    fc = _run("FC", CpuStats(util_pct=91.0, own_pct=6.0, other_pct=85.0), 10.0)
    old = _run("iSCSI", CpuStats(util_pct=44.0), 11.0)
    result = compare_query_runs([fc, old], "FC")
    assert result["runs"][1]["normalised"]["cpu_pct"] is None
    assert "CPU" not in result["factors"][0]["text"]

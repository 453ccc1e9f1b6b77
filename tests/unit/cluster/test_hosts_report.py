"""The report's per-host part: drawn for points measured on several hosts, absent otherwise."""

from dbstor.report.kit.hosts import hosts_block, lagging_sentence
from dbstor.results.model import Load, Point, Run, run_from_dict


def a_run(points: list[Point]) -> Run:
    return Run(
        run_id="r",
        tool_version="0",
        study={},
        target={"label": "lun1"},
        engine={},
        workload={},
        host={},
        slo={},
        created_at="2026-11-24T00:00:00",
        points=points,
    )


def host(name: str, iops: float, p99: float, offset: float) -> dict:
    return {
        "host": name,
        "iops": iops,
        "read_lat_ms": {"p99": p99},
        "device": {"read_iops": iops, "write_iops": 0.0, "read_await_ms": 0.5},
        "cpu": {"util_pct": 40.0},
        "start_offset_ms": offset,
    }


def test_a_cluster_run_gets_a_host_table_chart_and_the_lagging_host():
    point = Point(
        load=Load("iodepth", 4, 1),
        duration_s=10,
        read_iops=3000,
        hosts=[host("db1", 2000, 1.0, 0.0), host("db2", 1000, 3.0, 1.2)],
        start_skew_ms=1.2,
    )
    run = a_run([point])
    html = hosts_block(run)
    assert "<h3>Hosts</h3>" in html and "IOPS per host" in html
    assert "db1" in html and "db2" in html and "1.2" in html
    assert lagging_sentence(run) == (
        "Host db2 lagged: 67% of an even share of the throughput on average. "
        "Start skew: at most 1.2 ms."
    )


def test_a_single_host_run_has_no_host_part_and_keeps_its_results_shape():
    run = a_run([Point(load=Load("iodepth", 4, 1), duration_s=10, read_iops=3000)])
    assert hosts_block(run) == ""
    data = run.to_dict()
    assert "hosts" not in data["points"][0] and "start_skew_ms" not in data["points"][0]
    assert run_from_dict(data).points[0].hosts is None


def test_a_hosts_device_await_under_the_counters_resolution_shows_its_bound_not_a_dash():
    fast = host("db1", 2000, 1.0, 0.0)
    fast["device"] = {
        "read_iops": 1.5,
        "write_iops": 0.0,
        "read_await_ms": None,
        "read_await_reason": "device reads await under 0.065 ms: 15 reads took less than the "
        "disk counters' 1 ms resolution in all",
    }
    idle = host("db2", 1000, 3.0, 1.2)
    idle["device"] = {"read_iops": None, "write_iops": None, "read_await_ms": None}
    point = Point(load=Load("iodepth", 4, 1), duration_s=10, read_iops=3000, hosts=[fast, idle])
    html = hosts_block(a_run([point]))
    cells = [row.split("</th>", 1)[1] for row in html.split("<tr>")[2:]]
    assert "&lt;0.065" in cells[0]
    assert "0.065" not in cells[1] and "–" in cells[1]

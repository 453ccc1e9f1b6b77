import pytest

from dbstor.analysis.curve import find_knee, find_peak, value_at_knee
from dbstor.results.model import CpuStats, LatencyStats, Load, Point


def point(qd, iops, p99, cpu=None, status="ok", series="main"):
    return Point(
        load=Load("iodepth", qd),
        duration_s=10,
        status=status,
        series=series,
        read_iops=iops * 0.9,
        write_iops=iops * 0.1,
        read_lat_ms=LatencyStats(p99=p99, mean=p99 / 2, count=10_000),
        cpu=CpuStats(util_pct=cpu),
    )


CURVE = [
    point(1, 10_000, 0.2, 10),
    point(4, 30_000, 0.6, 30),
    point(16, 40_000, 1.4, 50),
    point(64, 42_000, 4.0, 60),
]


def test_knee_interpolates_between_the_points_around_the_limit():
    knee = find_knee(CURVE, "read_lat_p99_ms", 1.0)
    # 1.0 lies halfway from 0.6 to 1.4: load 4 + 0.5 x 12 = 10, IOPS 30,000 + 0.5 x 10,000
    assert knee["load"] == pytest.approx(10.0)
    assert knee["iops"] == pytest.approx(35_000)
    assert knee["within_slo"] and knee["interpolated"] and not knee["beyond_last"]
    assert value_at_knee(CURVE, knee, lambda p: p.cpu.util_pct) == pytest.approx(40.0)


def test_knee_when_every_point_is_within_or_none_is():
    beyond = find_knee(CURVE, "read_lat_p99_ms", 10.0)
    assert (
        beyond["beyond_last"] and beyond["load"] == 64 and beyond["iops"] == pytest.approx(42_000)
    )
    none = find_knee(CURVE, "read_lat_p99_ms", 0.1)
    assert none["within_slo"] is False and none["load"] is None


def test_knee_ignores_failed_and_discovery_points_and_missing_metrics():
    points = [
        *CURVE,
        point(128, 99_000, 0.1, status="failed"),
        point(256, 99_000, 0.1, series="discovery"),
    ]
    points[1].read_lat_ms.p99 = None  # too few samples: cannot be judged
    knee = find_knee(points, "read_lat_p99_ms", 1.0)
    # now between QD1 (0.2) and QD16 (1.4): 1/1.5 of the way -> load 11, IOPS 30,000
    assert knee["load"] == pytest.approx(1 + (0.8 / 1.2) * 15)
    assert find_knee([], "read_lat_p99_ms", 1.0) is None


def test_peak_is_highest_throughput():
    assert find_peak(CURVE)["load"] == 64
    with_tps = [point(1, 10_000, 0.2), point(2, 9_000, 0.3)]
    with_tps[0].tps, with_tps[1].tps = 100.0, 150.0
    assert find_peak(with_tps)["load"] == 2  # transactions decide when there are any


def test_other_metrics():
    pts = [point(1, 1000, 0.5), point(2, 2000, 0.9)]
    pts[0].read_lat_ms.mean, pts[1].read_lat_ms.mean = 10.0, 30.0
    knee = find_knee(pts, "read_lat_mean_ms", 20.0)
    assert knee["load"] == pytest.approx(1.5)


def test_knee_is_never_interpolated_on_a_segment_that_runs_backwards():
    # the default study's curve: QD32 84,943 IOPS at 0.55 ms, QD64 fewer IOPS beyond 1 ms;
    # interpolating there gave 75,296 IOPS at QD 57.1, beaten by QD32 within the limit
    points = [point(8, 60_000, 0.3), point(32, 84_943, 0.55), point(64, 74_000, 1.07)]
    knee = find_knee(points, "read_lat_p99_ms", 1.0)
    assert knee["load"] == 32 and knee["iops"] == pytest.approx(84_943)
    assert not knee["interpolated"] and knee["latency_ms"] == 0.55


def test_knee_is_the_highest_throughput_within_the_limit_wherever_it_lies():
    # a latency excursion at QD16, then QD32 back within the limit with more IOPS
    points = [point(4, 30_000, 0.6), point(16, 40_000, 1.4), point(32, 50_000, 0.9)]
    knee = find_knee(points, "read_lat_p99_ms", 1.0)
    assert knee["load"] == 32 and knee["iops"] == pytest.approx(50_000)
    assert not knee["beyond_last"]
    for candidate in points:  # no measured point within the limit beats the knee
        if candidate.read_lat_ms.p99 <= 1.0:
            assert candidate.iops <= knee["iops"]

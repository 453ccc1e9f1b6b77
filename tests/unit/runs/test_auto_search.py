"""Auto mode's search for the load (runs/auto_search.py), shared by fio and databases:
doubling until throughput stops rising or the latency limit is crossed, then fractions."""

from __future__ import annotations

from dbstor.results.model import LatencyStats, Load, Point
from dbstor.runs.auto_search import PeakSearch, load_fractions


def point(users: int, tps: float | None, mean_ms: float = 0.5, ok: bool = True) -> Point:
    return Point(
        load=Load("users", users, users),
        duration_s=1,
        tps=tps,
        read_lat_ms=LatencyStats(mean=mean_ms),
        status="ok" if ok else "failed",
        series="discovery",
    )


def search(tps: dict[int, float], latency: dict[int, float] | None = None, most: int = 64):
    found = PeakSearch("read_lat_mean_ms", 1.0, most)
    loads = []
    while found.more():
        loads.append(found.load)
        found.add(point(found.load, tps.get(found.load), (latency or {}).get(found.load, 0.5)))
    return found, loads


def test_the_search_stops_when_two_doublings_in_a_row_add_under_5_percent():
    found, loads = search({1: 100, 2: 190, 4: 300, 8: 310, 16: 305, 32: 900})
    assert loads == [1, 2, 4, 8, 16]  # 8 and 16 added under 5% over 4's 300: stop
    assert found.best is not None and found.best.load.value == 8  # the most within the limit
    assert "stopped rising" in found.stop


def test_one_flat_doubling_does_not_stop_it():
    found, loads = search({1: 100, 2: 101, 4: 300, 8: 305, 16: 306})
    assert loads == [1, 2, 4, 8, 16] and found.best.load.value == 16


def test_the_search_stops_where_the_latency_limit_is_crossed_and_that_point_is_not_the_best():
    found, loads = search({1: 100, 2: 200, 4: 400, 8: 800}, latency={4: 0.9, 8: 2.5})
    assert loads == [1, 2, 4, 8]
    assert found.best.load.value == 4  # 8 gave more, over the limit
    assert found.stop == "the latency limit was crossed at 8 (2.5 ms over 1 ms)"


def test_the_search_stops_at_its_limit_and_on_a_point_without_throughput():
    found, loads = search({n: 100.0 * n for n in (1, 2, 4, 8)}, most=8)
    assert loads == [1, 2, 4, 8] and "limit of 8" in found.stop
    found, loads = search({1: 100})
    assert loads == [1, 2] and found.best.load.value == 1 and "no throughput" in found.stop


def test_the_fractions_of_the_found_load_are_whole_rising_and_each_once():
    assert load_fractions(8) == [1, 4, 6, 7, 8]
    assert load_fractions(1) == [1]
    assert load_fractions(64) == [6, 32, 45, 51, 58, 64]

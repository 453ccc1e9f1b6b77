import json
from pathlib import Path

from dbstor.analysis.histogram import MIN_OPS_P99, LatencyHistogram, merge_all

FIXTURES = Path(__file__).parents[2] / "fixtures" / "fio"


def _hist(bins: dict[int, int]) -> LatencyHistogram:
    total = sum(v * n for v, n in bins.items())
    return LatencyHistogram.from_fio(
        {str(k): v for k, v in bins.items()},
        total / sum(bins.values()),
        sum(bins.values()),
        max(bins),
    )


def test_percentile_is_first_bin_reaching_the_share():
    h = _hist({100: 50, 200: 40, 1000: 9, 5000: 1})
    assert h.percentile_ns(50) == 100  # cumulative 50 of 100 reaches 50%
    assert h.percentile_ns(50.1) == 200
    assert h.percentile_ns(90) == 200
    assert h.percentile_ns(99) == 1000
    assert h.percentile_ns(99.5) == 5000
    assert h.percentile_ns(100) == 5000


def test_merge_adds_counts_and_keeps_exact_mean():
    a = _hist({100: 10})
    b = _hist({300: 30})
    merged = merge_all([a, b])
    assert merged.count == 40
    assert merged.total_ns == 100 * 10 + 300 * 30
    assert merged.stats().mean == (100 * 10 + 300 * 30) / 40 / 1e6
    # averaging the two p50s would say 200 ns; the merged histogram says 300 ns
    assert merged.percentile_ns(50) == 300


def test_percentiles_withheld_below_sample_thresholds():
    small = _hist({100: 500, 200: 499, 900: 1})
    stats = small.stats()
    assert stats.count == 1000 and stats.p99 is not None
    assert stats.p999 is None  # 1000 operations cannot support a p99.9
    tiny = _hist({100: MIN_OPS_P99 - 1})
    assert tiny.stats().p99 is None and tiny.stats().p50 is not None


def test_empty_histogram():
    assert LatencyHistogram().percentile_ns(99) is None
    assert LatencyHistogram().stats().count == 0


def test_matches_fios_own_percentiles_on_a_real_run():
    data = json.loads((FIXTURES / "randrw-8k-qd4-1job.json").read_text())
    for direction in ("read", "write"):
        clat = data["jobs"][0][direction]["clat_ns"]
        h = LatencyHistogram.from_fio(clat["bins"], clat["mean"], clat["N"], clat["max"])
        assert h.count == clat["N"]
        for q in ("50.000000", "95.000000", "99.000000"):
            assert h.percentile_ns(float(q)) == clat["percentile"][q], (direction, q)

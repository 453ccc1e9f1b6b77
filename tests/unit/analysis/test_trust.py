import pytest

from dbstor.analysis.trust import drift_note, drift_pct, is_noisy, is_steady, spread


def test_flat_series_is_steady():
    assert drift_pct([100, 101, 99, 100, 100, 100]) == pytest.approx(0.0, abs=1.0)
    assert is_steady(drift_pct([100, 101, 99, 100, 100, 100]))


def test_rising_series_is_not_steady():
    # last half [130, 140, 150]: slope 10/s over 2 s = 20 on a mean of 140 -> +14%
    drift = drift_pct([100, 110, 120, 130, 140, 150])
    assert drift == pytest.approx(20 / 140 * 100)
    assert is_steady(drift) is False


def test_a_fall_past_the_mean_reads_as_a_trend_not_an_impossible_drop():
    # a point that collapsed late (last half 200, 60, 10): the fitted line falls by more
    # than the mean, so the note names the trend and the limit, never "TPS drifted -149%"
    drift = drift_pct([250, 300, 220, 200, 60, 10])
    assert drift is not None and drift < -100
    note = drift_note(drift, "transactions per second")
    assert note.startswith("not steady: over the measured window, transactions per second")
    assert f"trended down by {abs(drift):.0f}% of their mean there" in note
    assert "within 10%" in note and "-" not in note.split("window,")[1].split("second-to")[0]
    assert "trended up by 14%" in drift_note(20 / 140 * 100, "IOPS")


def test_too_short_to_judge():
    assert drift_pct([100, 200]) is None
    assert is_steady(None) is None


def test_noisy_repeats():
    assert not is_noisy(spread([100, 104, 108]))
    assert is_noisy(spread([100, 112, 106]))
    s = spread([3, 1, 2])
    assert (s.minimum, s.median, s.maximum) == (1, 2, 3)


def test_a_withheld_percentile_says_why():
    from dbstor.analysis.trust import withheld_percentiles

    assert withheld_percentiles(640, "transactions") == [
        "p99 withheld: 640 transactions, a p99 needs at least 1,000",
        "p99.9 withheld: 640 transactions, a p99.9 needs at least 10,000",
    ]
    assert withheld_percentiles(5_000, "reads") == [
        "p99.9 withheld: 5,000 reads, a p99.9 needs at least 10,000"
    ]
    assert withheld_percentiles(10_000, "reads") == []
    assert withheld_percentiles(0, "transactions") == ["p99 withheld: no transactions finished"]


def test_untrustworthy_is_the_one_guard_composed_claims_call():
    from dbstor.analysis.trust import cpu_untrustworthy, point_flags, untrustworthy
    from dbstor.results.model import CpuStats, Load, Point

    good = Point(Load("users", 4), 10.0, tps=100.0, read_iops=300.0, cpu=CpuStats(util_pct=40.0))
    good.engine_io = {"device_reads_per_txn": 3.0}
    assert untrustworthy(good) is None and cpu_untrustworthy(good) is None
    memory = Point(Load("users", 4), 10.0, tps=100.0, read_iops=1.0)
    memory.engine_io = {"device_reads_per_txn": 0.01}
    assert untrustworthy(memory) == "its reads came from memory, not the storage"
    # not steady, or a device shared in part: the point carries its factor, flagged
    drifting = Point(Load("iodepth", 4), 10.0, read_iops=5000.0)
    drifting.trust.steady = False
    assert untrustworthy(drifting) is None
    assert point_flags(drifting) == ["not steady"]
    partly = Point(Load("iodepth", 4), 10.0, read_iops=5000.0)
    partly.shared_device, partly.foreign_io_share = True, 0.23
    assert untrustworthy(partly) is None
    assert point_flags(partly) == ["shared device (23% of its I/O foreign)"]
    # over half the device's I/O foreign: it cannot carry a factor at all
    shared = Point(Load("iodepth", 4), 10.0, read_iops=5000.0)
    shared.shared_device, shared.foreign_io_share = True, 0.62
    assert untrustworthy(shared) == "62% of the device's I/O was not the run's own (shared device)"
    saturated = Point(Load("users", 4), 10.0, tps=100.0, read_iops=300.0)
    saturated.engine_io = {"device_reads_per_txn": 3.0}
    saturated.cpu = CpuStats(util_pct=99.5)
    assert untrustworthy(saturated) is None  # its throughput may stand
    assert cpu_untrustworthy(saturated) == "the CPU of the whole host was saturated (100%)"
    # the server's own CPU is the figure a factor uses: a busy host does not void it
    saturated.cpu = CpuStats(util_pct=99.5, own_pct=45.0, server_pct=40.0)
    assert cpu_untrustworthy(saturated) is None


def test_a_factor_inside_the_runs_own_spread_says_so():
    from dbstor.analysis.trust import inside_spread, spread_pct
    from dbstor.results.model import Load, Point, Run, Spread

    def run(spread: Spread | None, repeats: int) -> Run:
        point = Point(Load("users", 4), 10.0, tps=100.0, repeats=repeats, tps_spread=spread)
        return Run("r", "0", {}, {}, {}, {}, {}, {}, "", points=[point])

    noisy, quiet, single = run(Spread(90, 100, 112), 3), run(Spread(99, 100, 101), 3), run(None, 1)
    assert spread_pct(noisy) == 22.0 and spread_pct(single) is None
    assert inside_spread({"throughput": 110.0}, [noisy, quiet]) == (
        22.0, True, " (inside the runs' own spread of 22.0% between repeats)"
    )  # fmt: skip
    assert inside_spread({"throughput": 110.0}, [quiet, quiet])[1:] == (False, "")
    assert inside_spread({"throughput": 110.0}, [single, single]) == (None, None, "")


def test_steadiness_is_the_whole_windows_trend_beyond_its_own_noise():
    from dbstor.analysis.trust import steadiness

    # a clean climb: far over 10% and far beyond the noise
    assert steadiness([100, 110, 120, 130, 140, 150])[0] is False
    # flat within 10%: steady whatever the noise
    steady, drift = steadiness([100, 101, 99, 100, 100, 100])
    assert steady is True and abs(drift) < 1
    # noise around a level (a busy host): its fitted line moves more than 10%, but the
    # seconds scatter so much that no trend is shown; the interval carries that noise
    steady, drift = steadiness([80, 130, 70, 140, 95, 135])
    assert abs(drift) > 10 and steady is True
    # the same scatter on a steep fall is a trend
    assert steadiness([200, 170, 160, 120, 110, 70])[0] is False
    assert steadiness([100, 200]) == (None, None)


def test_held_words_say_how_long_a_point_ran_and_why():
    from dbstor.analysis.trust import held_words
    from dbstor.results.model import Trust

    assert held_words(Trust(steady=True)) is None  # not held: it ran its duration
    assert held_words(Trust(steady=True, rounds=3, ran_s=27.2, max_s=60)) == (
        "steady after 3 rounds (27 s)"
    )
    assert held_words(Trust(steady=False, rounds=4, ran_s=59.6, max_s=60)) == (
        "not steady within 60 s (4 rounds, 60 s)"
    )
    assert held_words(Trust(steady=True, ran_s=9.0, max_s=22)) == "steady after 9 s"  # fio
    assert held_words(Trust(steady=False, ran_s=22.0, max_s=22)) == (
        "not steady within 22 s (ran 22 s)"
    )

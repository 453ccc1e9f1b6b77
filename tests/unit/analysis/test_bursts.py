"""Write bursts among per-second device writes: a checkpoint pattern found with its size
and period; a level, one spike or jitter on an idle device stated as none."""

from __future__ import annotations

from dbstor.analysis.bursts import bursts_text, write_bursts


def rows(values: list[float], start: float = 1.0) -> list[dict]:
    return [{"t_s": start + i, "dev_write_mbps": v} for i, v in enumerate(values)]


def test_spikes_every_five_seconds_are_bursts_with_their_size_and_period():
    values = [4.0] * 20
    for at in (2, 7, 12, 17):
        values[at] = 44.0
    found = write_bursts(rows(values, start=3.0), warmup_s=2.0)
    assert found is not None
    assert found["count"] == 4 and found["period_s"] == 5.0
    assert found["mb_mean"] == 40.0 and found["peak_mbps"] == 44.0 and found["base_mbps"] == 4.0
    assert found["starts_s"] == [2.0, 7.0, 12.0, 17.0]
    assert (
        bursts_text(found)
        == "4 write bursts of 40 MB every 5 s (peak 44 MB/s over 4.0 MB/s between)"
    )


def test_a_burst_over_two_seconds_is_one_burst():
    values = [2.0] * 16
    values[3:5] = [30.0, 20.0]
    values[11:13] = [30.0, 20.0]
    found = write_bursts(rows(values))
    assert found["count"] == 2 and found["period_s"] == 8.0 and found["mb_mean"] == 46.0


def test_no_bursts_in_a_level_one_spike_jitter_or_the_warm_up():
    assert write_bursts(rows([10.0, 11.0, 9.5, 10.2] * 5)) is None, "a level"
    one = [3.0] * 12
    one[5] = 40.0
    assert write_bursts(rows(one)) is None, "one spike has no period"
    idle = [0.0, 0.2, 0.0, 0.0, 0.3, 0.0, 0.0, 0.2, 0.0, 0.0]
    assert write_bursts(rows(idle)) is None, "under 1 MB/s over the median is jitter"
    busy = [5.0, 40.0] * 8
    assert write_bursts(rows(busy)) is None, "half the seconds spiking is the level"
    warm = [40.0, 2.0, 40.0] + [2.0] * 10
    assert write_bursts(rows(warm), warmup_s=3.0) is None, "the warm-up's writes are not"
    assert write_bursts(rows([1.0, 50.0, 1.0, 50.0])) is None, "too few seconds"
    assert write_bursts([{"t_s": float(i), "dev_write_mbps": None} for i in range(10)]) is None

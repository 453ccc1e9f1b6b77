"""A database point held until steady (runs/database/steady.py): rounds of the measured
window until the one steadiness test holds, within the point's maximum. The measurement
itself is replaced by recorded per-second figures: this tests the loop, not the users."""

from types import SimpleNamespace

import pytest

from dbstor.analysis.trust import steadiness
from dbstor.runs.database import steady
from dbstor.runs.database.point import DbPoint

RISING = [100.0, 120.0, 140.0, 160.0, 180.0, 200.0]  # trended up: not steady
FLAT = [150.0, 151.0, 149.0, 150.0, 152.0, 148.0]


def fake_measure(rounds, clock, monkeypatch):
    """Each call 'measures' the next recorded round and advances the clock by its length."""
    seen = []

    def measure(instances, point, sampler, on_running):
        seen.append(point)
        clock[0] += point.warmup_s + point.duration_s
        per_second = rounds[min(len(seen) - 1, len(rounds) - 1)]
        return SimpleNamespace(drive=SimpleNamespace(per_second=per_second, fatal=None))

    monkeypatch.setattr(steady, "measure_database_point", measure)
    monkeypatch.setattr(steady.time, "monotonic", lambda: clock[0])
    return seen


def point(max_s):
    return DbPoint(index=0, instances=1, users=4, warmup_s=5.0, duration_s=6.0, max_s=max_s)


def test_a_drifting_window_runs_again_until_the_same_test_says_steady(monkeypatch):
    clock = [0.0]
    seen = fake_measure([RISING, RISING, FLAT], clock, monkeypatch)
    outcome = steady.measure_until_steady([], point(60.0), lambda: None)
    assert outcome.rounds == 3 and outcome.ran_s == pytest.approx(5 + 6 + 2 * (1 + 6))
    assert outcome.window_warmup_s == steady.SETTLE_S
    assert steadiness(outcome.drive.per_second)[0] is True  # never flagged once steady
    assert [p.warmup_s for p in seen] == [5.0, steady.SETTLE_S, steady.SETTLE_S]
    assert len({p.seed for p in seen}) == 3  # each round a fresh stream of transactions


def test_a_point_that_never_steadies_stops_at_its_maximum_and_keeps_its_flag(monkeypatch):
    clock = [0.0]
    fake_measure([RISING], clock, monkeypatch)
    outcome = steady.measure_until_steady([], point(25.0), lambda: None)
    # 11 s, then 18 s; a third round would end at 25 s: allowed; a fourth (32 s) is not
    assert outcome.rounds == 3 and outcome.ran_s <= 25.0
    assert steadiness(outcome.drive.per_second)[0] is False
    assert outcome.max_s == 25.0


def test_without_a_maximum_the_point_runs_its_duration_once(monkeypatch):
    clock = [0.0]
    fake_measure([RISING], clock, monkeypatch)
    outcome = steady.measure_until_steady([], point(None), lambda: None)
    assert outcome.rounds == 1 and outcome.max_s is None

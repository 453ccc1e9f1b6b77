"""A query point held until steady (runs/queries/steady.py): rounds of its query set until
the rounds' queries per hour pass the one steadiness test (analysis/trust.py:
rounds_steadiness), within the point's maximum; the point's flag comes from the same call
(runs/queries/summary.py: held_trust). The rounds are recorded outcomes with a stepped
clock: this tests the round decision and the loop, not the streams."""

from __future__ import annotations

import pytest

from dbstor.analysis.trust import ROUND_WINDOW, rounds_note, rounds_steadiness, steadiness
from dbstor.results.model import CpuStats
from dbstor.runs.queries import steady
from dbstor.runs.queries.point import QueryOutcome, QueryPoint
from dbstor.runs.queries.summary import held_trust, round_line


def outcome(rate: float | None, fatal: str | None = None) -> QueryOutcome:
    """A round whose power run finished six queries at `rate` per hour (None: none ok)."""
    seconds = 6 * 3600.0 / rate if rate else 1.0
    records = [
        {"stream": 0, "position": i, "name": f"Q{i}", "status": "ok" if rate else "failed",
         "elapsed_s": seconds / 6}
        for i in range(6)
    ]  # fmt: skip
    return QueryOutcome(
        records=records, stream_s={0: seconds}, wall_s=seconds, fatal=fatal, counters=None,
        samples=[], cpu=CpuStats(), device=None, started_at=0.0,
    )  # fmt: skip


def run_rounds(rates, monkeypatch, max_s=30.0, round_s=2.0):
    """Measure a point whose rounds finish at these rates (the last repeated), each round
    taking round_s on a stepped clock; the rounds measured and what on_round heard."""
    clock = [0.0]
    monkeypatch.setattr(steady.time, "monotonic", lambda: clock[0])
    measured, heard = [], []

    def measure_round(number: int) -> QueryOutcome:
        measured.append(number)
        clock[0] += round_s
        return outcome(rates[min(number, len(rates)) - 1])

    point = QueryPoint(index=0, streams=1, cache="warm", max_s=max_s)
    return steady.measure_until_steady(measure_round, point, heard.append), measured, heard


def test_the_rounds_test_is_snia_pts_over_the_last_five_rounds():
    rates = [50.0, 200.0, 100.0, 101.0, 99.0, 100.0, 100.5]
    assert rounds_steadiness(rates)[0] is True  # only the last five are judged
    assert rounds_steadiness(rates[-ROUND_WINDOW:]) == rounds_steadiness(rates)
    assert rounds_steadiness([100.0, 200.0]) == (None, None)  # two rounds cannot be judged
    assert rounds_steadiness([100.0, 90.0, 80.0])[0] is False  # -22% over three rounds
    assert rounds_steadiness([100.0, 95.0, 103.0])[0] is True
    # no slope to speak of, but a range of 60% of the mean: not steady (SNIA's excursion)
    assert rounds_steadiness([100.0, 130.0, 70.0, 130.0, 100.0]) == (False, 0.0)
    # rounds a t interval of 2 degrees of freedom would pass as noise
    lenient = [86_712.0, 86_037.0, 172_055.0, 66_054.0]
    assert steadiness(lenient)[0] is True and rounds_steadiness(lenient)[0] is False


@pytest.mark.parametrize(
    ("rates", "spent", "next_s", "max_s", "again"),
    [
        ([100.0], 2.0, 2.0, 30.0, True),  # one round cannot be judged: another
        ([100.0, 101.0], 4.0, 2.0, 30.0, True),
        ([100.0, 101.0, 99.0], 6.0, 2.0, 30.0, False),  # steady: the point ends
        ([100.0, 80.0, 60.0], 6.0, 2.0, 30.0, True),  # drifting, another fits
        ([100.0, 80.0, 60.0], 28.0, 2.0, 30.0, True),  # ends at 30 s: still within
        ([100.0, 80.0, 60.0], 28.5, 2.0, 30.0, False),  # would end past the maximum
        ([100.0, 80.0, 60.0], 6.0, 2.0, None, False),  # not held
        ([100.0, None], 4.0, 2.0, 30.0, False),  # a round finished no query
    ],
)
def test_another_round_runs_while_not_steady_or_not_judged_and_it_fits(
    rates, spent, next_s, max_s, again
):
    assert steady.another_round(rates, spent, next_s, max_s) is again


def test_the_next_round_is_expected_to_grow_as_the_last_did():
    assert steady.next_round_s([2.0]) == 2.0
    assert steady.next_round_s([3.0, 2.5, 2.0]) == 3.0  # the longest so far
    assert steady.next_round_s([1.0, 2.0, 3.0]) == pytest.approx(4.5)  # x1.5 again


def test_a_point_runs_rounds_until_the_same_test_says_steady(monkeypatch):
    rates = [100.0, 80.0, 60.0, 40.0, 41.0, 40.5, 40.2, 40.8]  # falling, then five flat
    done, measured, heard = run_rounds(rates, monkeypatch)
    assert measured == [1, 2, 3, 4, 5, 6, 7, 8] and done.rounds == 8
    assert done.round_rates == pytest.approx(rates)
    for k in range(1, 8):  # every earlier set of rounds was not steady, or too few
        assert rounds_steadiness(rates[:k])[0] is not True
    assert rounds_steadiness(done.round_rates)[0] is True
    assert done.ran_s == pytest.approx(16.0) and done.max_s == 30.0
    assert [h["round"] for h in heard] == [2, 3, 4, 5, 6, 7, 8]
    trust = held_trust(done)  # the flag from the same call: a steady point is never flagged
    assert trust.steady is True and (trust.rounds, trust.max_s) == (8, 30.0)
    assert "the last is the measured round" in " ".join(trust.notes)


def test_a_point_that_never_steadies_stops_at_its_maximum_and_keeps_its_flag(monkeypatch):
    falling = [100.0 * 0.8**k for k in range(20)]
    done, measured, _ = run_rounds(falling, monkeypatch, max_s=9.0)
    # rounds of 2 s: a fifth would end at 10 s, past the maximum of 9 s
    assert measured == [1, 2, 3, 4] and done.ran_s == pytest.approx(8.0)
    trust = held_trust(done)
    assert trust.steady is False and trust.slope_pct < -10
    notes = " ".join(trust.notes)
    assert "not steady: over the last 4 rounds, queries per hour trended down" in notes
    assert "(a steady point stays within 10%)" in notes
    assert "not steady within its maximum of 9 s (4 rounds, ran 8 s)" in notes


def test_too_few_rounds_within_the_maximum_say_steadiness_was_not_judged(monkeypatch):
    done, measured, _ = run_rounds([100.0, 50.0], monkeypatch, max_s=5.0)
    assert measured == [1, 2]
    trust = held_trust(done)
    assert trust.steady is None and trust.rounds == 2
    assert "steadiness not judged: 2 rounds of its queries within its maximum of 5 s" in " ".join(
        trust.notes
    )


def test_a_point_not_held_runs_once_and_is_not_judged(monkeypatch):
    done, measured, _ = run_rounds([100.0, 50.0], monkeypatch, max_s=None)
    assert measured == [1] and done.rounds == 1 and done.ran_s is None
    assert held_trust(done).steady is None and held_trust(done).notes == []


def test_a_failed_round_ends_the_point(monkeypatch):
    clock = [0.0]
    monkeypatch.setattr(steady.time, "monotonic", lambda: clock[0])
    point = QueryPoint(index=0, streams=1, cache="cold", max_s=60.0)
    done = steady.measure_until_steady(lambda n: outcome(100.0, fatal="server gone"), point)
    assert done.rounds == 1 and done.fatal == "server gone"


def test_the_terminal_says_why_another_round_runs():
    assert round_line({"round": 2, "rates": [5210.4]}) == (
        "    round 2 (queries/h so far 5,210): fewer than 3 rounds to judge"
    )
    line = round_line({"round": 4, "rates": [100.0, 80.0, 60.0]})
    assert line.endswith("drifting -50% over the last 3 rounds")


def test_the_outcome_keeps_its_rounds_through_a_plain_dict():
    done = outcome(100.0)
    done.rounds, done.ran_s, done.max_s, done.round_rates = 3, 7.5, 20.0, [90.0, None, 100.0]
    again = QueryOutcome.from_dict(done.to_dict())
    assert (again.rounds, again.ran_s, again.max_s) == (3, 7.5, 20.0)
    assert again.round_rates == [90.0, None, 100.0]
    older = {k: v for k, v in done.to_dict().items() if k not in ("rounds", "round_rates")}
    assert QueryOutcome.from_dict(older).rounds == 1


def test_rounds_level_but_far_apart_say_their_range_not_a_trend():
    level = [100.0, 130.0, 70.0, 130.0, 100.0]  # no trend, a range of 57% of the mean (60 of 106)
    assert "ranged over 57% of their mean (a steady point stays within 20%)" in rounds_note(
        level, 0.0
    )
    line = round_line({"round": 6, "rates": level})
    assert "ranged over 57%" in line and "drifting" not in line

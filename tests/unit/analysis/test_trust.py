import pytest

from dbstor.analysis.trust import drift_pct, is_noisy, is_steady, spread


def test_flat_series_is_steady():
    assert drift_pct([100, 101, 99, 100, 100, 100]) == pytest.approx(0.0, abs=1.0)
    assert is_steady(drift_pct([100, 101, 99, 100, 100, 100]))


def test_rising_series_is_not_steady():
    # last half [130, 140, 150]: slope 10/s over 2 s = 20 on a mean of 140 -> +14%
    drift = drift_pct([100, 110, 120, 130, 140, 150])
    assert drift == pytest.approx(20 / 140 * 100)
    assert is_steady(drift) is False


def test_too_short_to_judge():
    assert drift_pct([100, 200]) is None
    assert is_steady(None) is None


def test_noisy_repeats():
    assert not is_noisy(spread([100, 104, 108]))
    assert is_noisy(spread([100, 112, 106]))
    s = spread([3, 1, 2])
    assert (s.minimum, s.median, s.maximum) == (1, 2, 3)

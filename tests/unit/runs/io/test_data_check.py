"""The written data's check: a quick sample is trusted only when its ratios are sure to
within half the tolerance; otherwise the larger scan runs."""

from __future__ import annotations

from pathlib import Path

import pytest

from dbstor.runs.io import data_check
from dbstor.study.data import DataPattern


def figures(compression: float, low: float, high: float) -> dict:
    return {
        "compression_ratio": compression,
        "compression_ratio_ci95": [low, high],
        "dedup_ratio": 1.0,
        "dedup_ratio_ci95": [1.0, 1.0],
    }


def test_a_narrow_interval_is_sure_and_a_wide_one_is_not():
    assert not data_check.unsure(figures(1.8, 1.79, 1.81))
    assert data_check.unsure(figures(1.8, 1.7, 1.81))
    assert data_check.unsure(figures(1.8, 1.79, 1.9))
    assert not data_check.unsure({"compression_ratio": None, "compression_ratio_ci95": None})


@pytest.mark.parametrize(("first", "scans"), [((1.8, 1.79, 1.81), 1), ((1.8, 1.6, 2.1), 2)])
def test_the_full_scan_runs_only_when_the_sample_is_unsure(monkeypatch, first, scans):
    calls = []

    def scan(paths, read_all, array=data_check.MEASURE_AS, quick=False):
        calls.append((array, quick))
        return figures(*first) if quick else figures(1.8, 1.79, 1.81)

    monkeypatch.setattr(data_check, "scan", scan)
    written = data_check.measure_written([Path("f")], DataPattern(kind="ratio", compression=1.8))
    own = [quick for array, quick in calls if array == data_check.MEASURE_AS]
    on_array = [quick for array, quick in calls if array != data_check.MEASURE_AS]
    assert own == [True, False][:scans] and on_array == [True, False][:scans]
    assert written["achieved"]["compression"] == 1.8 and written["warning"] is None

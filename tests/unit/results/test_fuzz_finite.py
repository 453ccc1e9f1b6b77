"""Property-based: a finished run whose figures came from outside with NaN, infinities or
anything else a float can be is always saved (no exception, no point lost) as strict JSON:
every non-finite figure null, and where it was named in a note."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dbstor.results.finite import checked_figure
from dbstor.results.store import load_run, save_run

GOLDEN = Path(__file__).parents[2] / "golden"
RUN = GOLDEN / "sqlite-brokerage"
ANY_FLOAT = st.floats(allow_nan=True, allow_infinity=True)


def _strict(text: str):
    def refuse(constant: str):
        raise AssertionError(f"{constant} in results.json")

    return json.loads(text, parse_constant=refuse)


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(figures=st.lists(ANY_FLOAT, min_size=1, max_size=8), where=st.integers(0, 10**6))
def test_any_float_anywhere_saves_as_strict_json(tmp_path, figures, where):
    run = load_run(RUN)
    point = run.points[where % len(run.points)]
    point.tps = figures[0]
    point.layers = {
        "storage": {"source": "own-queries", **{f"q{i}": v for i, v in enumerate(figures)}}
    }
    if point.txn_lat_ms is not None:
        point.txn_lat_ms.p99 = figures[-1]
    folder = tmp_path / f"run-{where}"
    save_run(folder, run)
    data = _strict((folder / "results.json").read_text(encoding="utf-8"))
    assert len(data["points"]) == len(run.points)
    bad = [f for f in figures if not math.isfinite(f)]
    saved = data["points"][where % len(run.points)]
    assert saved["tps"] == (figures[0] if math.isfinite(figures[0]) else None)
    if bad:
        assert any("not finite, stored as null" in n for n in data["notes"])
    load_run(folder)  # and it reads back


@pytest.mark.parametrize(
    ("value", "negative_ok", "why"),
    [
        (float("inf"), False, "not a finite number"),
        (float("nan"), True, "not a finite number"),
        (-0.5, False, "negative"),
        ("12", False, "not a number"),
        (True, False, "not a number"),
    ],
)
def test_what_is_no_figure_is_null_with_the_reason(value, negative_ok, why):
    figure, reason = checked_figure(value, "storage read_latency_ms", negative_ok)
    assert figure is None and why in reason and "storage read_latency_ms" in reason


def test_a_figure_stays_as_measured():
    assert checked_figure(0.25, "x") == (0.25, None)
    assert checked_figure(-3, "delta", negative_ok=True) == (-3, None)


def test_an_engine_counter_that_went_back_is_null_with_the_reason():
    from dbstor.engines.base import EngineCounters, sum_counters

    before = EngineCounters(logical_reads=1000.0, physical_reads=50.0, physical_writes=9.0)
    after = EngineCounters(logical_reads=1500.0, physical_reads=10.0, physical_writes=float("nan"))
    point = after.minus(before)
    assert point.logical_reads == 500.0
    assert point.physical_reads is None and point.physical_writes is None
    assert "went back" in point.why_null["physical_reads"]
    assert "negative" in point.why_null["physical_reads"]
    assert "not a finite number" in point.why_null["physical_writes"]
    total = sum_counters([point, EngineCounters(logical_reads=1.0)])
    assert total.logical_reads == 501.0 and "physical_reads" in total.why_null

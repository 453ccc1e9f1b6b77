"""backward_steps: where a curve's throughput falls as the load rises, on a measured run."""

from __future__ import annotations

from pathlib import Path

from dbstor.analysis.curve import backward_steps
from dbstor.report.kit.figures import backwards_sentence, curve_caption
from dbstor.results.model import Load, Point, Run
from dbstor.results.store import load_run

GOLDEN = Path(__file__).resolve().parents[2] / "golden"
DEFAULT_IO = GOLDEN / "default-study" / "20261122-025516-dbstor-data-io-oltp"


def _run(*iops: float | None) -> Run:
    run = Run("r", "0", {}, {}, {}, {}, {}, {}, "now")
    for i, value in enumerate(iops):
        point = Point(load=Load("iodepth", 2**i), duration_s=10, read_iops=value)
        run.points.append(point)
    return run


def test_the_measured_default_study_steps_back_twice() -> None:
    run = load_run(DEFAULT_IO)  # QD1 29,808 -> QD2 24,969; QD32 56,388 -> QD64 52,726 IOPS
    steps = [(low.load.value, high.load.value) for low, high in backward_steps(run.points)]
    assert steps == [(1, 2), (32, 64)]
    sentence = backwards_sentence(run)
    assert "from 29,808 IOPS at QD1 to 24,969 at QD2 (-16%)" in sentence
    assert "from 56,388 IOPS at QD32 to 52,726 at QD64 (-6%)" in sentence
    assert "goes backwards" in curve_caption([run])


def test_a_rising_curve_and_small_dips_say_nothing() -> None:
    assert backward_steps(_run(7500, 9000, 12000).points) == []
    assert backward_steps(_run(7500, 7200, 12000).points) == []  # -4%: within noise
    assert backwards_sentence(_run(7500, 9000)) == ""


def test_the_issue_example_and_missing_points_are_skipped() -> None:
    run = _run(7500, 6200, None, 6000)
    steps = backward_steps(run.points)
    assert [(a.load.value, b.load.value) for a, b in steps] == [(1, 2)]
    assert backwards_sentence(run, "fc") == (
        "fc's curve goes backwards: IOPS fell as the load rose, from 7,500 IOPS at QD1 to "
        "6,200 at QD2 (-17%). More load bought less throughput there."
    )

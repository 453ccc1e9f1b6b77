"""fio's interim statuses (--status-interval with json+): the final result is still the
last object, the tail hands over whole objects only, the warm-up's statuses are skipped."""

from __future__ import annotations

import json
from pathlib import Path

from dbstor.drivers.fio_output import final_json_text, json_objects, parse_fio_json
from dbstor.drivers.fio_status import StatusTail, status_figures
from dbstor.telemetry.live import RunningLatencies

FIXTURES = Path(__file__).parents[2] / "fixtures" / "fio"


def _status(final: dict, elapsed: int, ios: int) -> dict:
    """A status like fio's interim ones: the final object with fewer I/Os so far."""
    status = json.loads(json.dumps(final))
    for job in status["jobs"]:
        job["elapsed"] = elapsed
        job["read"]["total_ios"] = ios
    return status


def test_the_final_object_counts_after_interim_statuses() -> None:
    final_text = (FIXTURES / "randrw-8k-qd4-1job.json").read_text()
    final = json.loads(final_text[final_text.find("{") :])
    text = "\n".join(json.dumps(_status(final, e, 10 * e)) for e in (1, 2, 3)) + "\n" + final_text
    assert len(json_objects(text)) == 4
    run = parse_fio_json(text)
    assert run.read.ios == final["jobs"][0]["read"]["total_ios"]
    assert json.loads(final_json_text(text)) == final
    assert final_json_text(final_text) == final_text  # alone, fio's text is kept as it is


def test_the_tail_hands_over_whole_objects_only(tmp_path: Path) -> None:
    out = tmp_path / "point.json"
    text = json.dumps({"fio version": "fio-3", "jobs": [{"elapsed": 4}]})
    out.write_text(text[:20])
    tail = StatusTail(out)
    assert tail.poll() is None  # half written
    with out.open("a") as f:
        f.write(text[20:] + "\n" + text.replace("4", "5")[:10])
    assert tail.poll() == {"fio version": "fio-3", "jobs": [{"elapsed": 4}]}
    with out.open("a") as f:
        f.write(text.replace("4", "5")[10:])
    assert tail.poll()["jobs"][0]["elapsed"] == 5
    assert tail.poll() is None  # nothing new


def test_running_figures_from_a_status_and_none_in_the_warm_up() -> None:
    text = (FIXTURES / "randrw-8k-qd4-2job.json").read_text()
    final = json.loads(text[text.find("{") :])
    run = parse_fio_json(text)
    assert status_figures(_status(final, 3, 100), warmup_s=2.0) is None  # fio resets at 2 s
    figures = status_figures(final | {"jobs": [j | {"elapsed": 9} for j in final["jobs"]]}, 2.0)
    assert figures is not None
    assert figures["ops"] == run.read.ios + run.write.ios
    assert figures["elapsed_s"] == run.runtime_s
    assert figures["histogram"] == run.read.histogram.to_dict()  # reads' percentiles, as the point
    assert status_figures({"jobs": []}, 0.0) is None


def test_finished_queries_make_a_running_histogram() -> None:
    now = [100.0]
    running = RunningLatencies(clock=lambda: now[0])
    for seconds in (0.2, 0.1, 0.4):
        running.add(seconds)
    running.add(None, ok=False)
    now[0] = 102.0
    figures = running.figures()
    assert figures["ops"] == 3 and figures["errors"] == 1 and figures["elapsed_s"] == 2.0
    assert sorted(int(k) for k in figures["histogram"]["bins"]) == [
        100_000_000,
        200_000_000,
        400_000_000,
    ]
    assert figures["histogram"]["max_ns"] == 400_000_000
    running.restart()  # a further round of a held query point: its own figures from here
    now[0] = 103.0
    running.add(0.3)
    figures = running.figures()
    assert figures["ops"] == 1 and figures["errors"] == 0 and figures["elapsed_s"] == 1.0
    assert list(figures["histogram"]["bins"]) == ["300000000"]

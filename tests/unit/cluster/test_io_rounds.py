"""An io point on several hosts held until steady (cluster/io.py): rounds of one window,
every host started in each round, judged on the hosts' merged IOPS. The session here
stands in for the hosts (the real thing: tests/integration/test_cluster.py)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from dbstor.cluster.io import ClusterIoWorker
from dbstor.cluster.session import ClusterPoint
from dbstor.drivers.fio_output import parse_fio_json
from dbstor.results.model import CpuStats
from dbstor.runs.io.point import IoOutcome
from dbstor.testfiles import Safety

FIXTURE = Path(__file__).parents[2] / "fixtures" / "fio" / "randrw-8k-qd4-1job.json"


def outcome(host: str, per_second: list[float]) -> dict:
    return IoOutcome(
        fio=parse_fio_json(FIXTURE.read_text()),
        read_iops_per_second=per_second,
        write_iops_per_second=[0.0] * len(per_second),
        samples=[],
        cpu=CpuStats(util_pct=50.0),
        device=None,
        job_text="",
        output_text="",
        ioengine="io_uring",
        started_at=100.0,
        wall_s=4.0,
        host=host,
    ).to_dict()


class Hosts:
    """Each call to measure is one round on every host: its per-second IOPS from `rounds`."""

    def __init__(self, rounds: list[list[float]]) -> None:
        self.hosts = [SimpleNamespace(name=h) for h in ("h1", "h2")]
        self.rounds, self.asked = rounds, []

    def measure(self, points: dict, duration_s: float) -> ClusterPoint:
        self.asked.append(points)
        half = [v / 2 for v in self.rounds[len(self.asked) - 1]]
        outcomes = {h: outcome(h, half) for h in points}
        return ClusterPoint(outcomes, {h: 100.0 for h in points}, 0.0, 0.05)


def held(rounds: list[list[float]], max_s: float | None) -> tuple[dict, Hosts]:
    hosts = Hosts(rounds)
    worker = ClusterIoWorker(hosts, Safety(), say=lambda _: None)  # type: ignore[arg-type]
    worker.facts = {h: {"files": [f"/{h}/f"], "devices": []} for h in ("h1", "h2")}
    point = {"duration_s": 3, "warmup_s": 2, "max_s": max_s, "name": "point-01"}
    return worker.measure(point), hosts


FALLING = [900.0, 700.0, 500.0, 300.0]
FLAT = [600.0, 610.0, 595.0, 605.0]


def test_rounds_run_on_every_host_until_the_merged_iops_are_steady():
    got, hosts = held([FALLING, FALLING, FLAT, FALLING], max_s=60)
    assert got["rounds"] == 3 and got["max_s"] == 60 and got["window_warmup_s"] == 1.0
    assert got["read_iops_per_second"] == FLAT  # the last round is the measured window
    for points in hosts.asked:  # every round on both hosts, fio's own steadystate off
        assert sorted(points) == ["h1", "h2"]
        assert {p["max_s"] for p in points.values()} == {None}
    warmups = [points["h1"]["warmup_s"] for points in hosts.asked]
    assert warmups == [2, 1.0, 1.0]  # the point's warm-up, then a 1 s settle


def test_no_round_begins_that_would_pass_the_maximum():
    got, hosts = held([FALLING] * 10, max_s=3.5)  # another 1 s + 3 s would pass it at once
    assert len(hosts.asked) == 1 and got["rounds"] == 1 and got["max_s"] == 3.5


def test_a_point_not_held_runs_its_window_once_and_records_no_rounds():
    got, hosts = held([FALLING, FLAT], max_s=None)
    assert len(hosts.asked) == 1 and got["rounds"] is None and got["max_s"] is None

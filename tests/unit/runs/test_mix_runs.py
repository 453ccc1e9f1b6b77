"""runs/mix.py: the members' workers meet at one barrier and every point starts at the
time set there (a query member's as the others' warm-up ends); a target on two devices is
not one storage."""

import threading
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from dbstor.errors import UserError
from dbstor.runs.mix import MixGroup, TogetherWorker, check_one_storage, mix_groups, run_together
from dbstor.runs.study import plans_for
from dbstor.study.load import study_from_dict
from dbstor.study.model import DatabaseSpec


class Recording:
    """A worker that records the point descriptions it is given."""

    def __init__(self) -> None:
        self.points: list[dict] = []

    def measure(self, point, *more):
        self.points.append(point | {"more": more})
        return {}


class Start:
    value = 0.0


def test_members_start_every_point_at_the_time_the_barrier_set():
    start = Start()

    def set_start() -> None:
        start.value = time.time() + 0.5

    barrier = threading.Barrier(2, action=set_start)
    plain, query = Recording(), Recording()
    members = [TogetherWorker(plain, barrier, start), TogetherWorker(query, barrier, start, 5.0)]

    def two_points(worker: TogetherWorker, more: tuple) -> None:
        for index in range(2):
            worker.measure({"index": index, "start_at": None}, *more)

    threads = [
        threading.Thread(target=two_points, args=(members[0], ())),
        threading.Thread(target=two_points, args=(members[1], ("on_record",))),
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=10)
    assert [p["index"] for p in plain.points] == [0, 1] == [p["index"] for p in query.points]
    for mine, theirs in zip(plain.points, query.points, strict=True):
        assert mine["start_at"] > 0 and theirs["start_at"] == mine["start_at"] + 5.0
    assert plain.points[0]["start_at"] != plain.points[1]["start_at"]  # set anew per point
    assert query.points[0]["more"] == ("on_record",)  # a query worker's callback passes


def _study(tmp_path: Path, **target):
    data = {
        "targets": [{"label": "A", "path": str(tmp_path), **target}],
        "databases": [
            {"engine": "postgres", "workload": "brokerage", "users": [2]},
            {"engine": "duckdb", "workload": "dss", "streams": [1]},
        ],
        "study": {"profiles": ["io-log"], "repeats": 3},
        "load": {"kind": "iodepth", "values": [4]},
        "mix": {"workloads": ["dss", "io-log"]},
    }
    return study_from_dict(data, source="s.toml", base_dir=tmp_path)


def test_a_mix_group_holds_the_named_workloads_beside_their_runs_alone(tmp_path):
    study = _study(tmp_path)
    plans = plans_for(study, tmp_path)
    (group,) = mix_groups(study, plans, tmp_path)
    names = [p.run_id for p in group.plans]
    assert [n.rsplit("-", 2)[-2:] for n in names] == [["dss", "mix"], ["log", "mix"]]
    alone = {p.run_id for p in plans}
    assert set(group.alone.values()) <= alone and not set(names) & alone
    assert set(group.alone) == {"dss", "io-log"}  # brokerage is not in the mix
    # together, points are held for the duration: no steady rounds moving one window
    assert all(p.max_duration_s for p in plans) and not any(p.max_duration_s for p in group.plans)
    assert {p.repeats for p in plans} == {3} and {p.repeats for p in group.plans} == {1}


def test_a_target_on_two_devices_is_not_one_storage(tmp_path):
    other = Path("/proc")  # always another file system than the test's folder
    (tmp_path / "log").mkdir()  # a folder of its own (the data folder itself is refused)
    check_one_storage(_study(tmp_path, log=str(tmp_path / "log")))  # one device: fine
    with pytest.raises(UserError, match="target 'A' is not one storage") as caught:
        check_one_storage(_study(tmp_path, log=str(other)))
    assert f"log {other}" in str(caught.value) and "\n" not in str(caught.value)


class FakeRun:
    """A run loop that measures two points through its worker; `fail_after` points, it is
    refused as a run would be."""

    def __init__(self, folder: Path, fail_after: int | None):
        self.folder, self.fail_after = folder, fail_after
        self.run = SimpleNamespace(together=None, notes=[])
        self.worker = Recording()

    def execute(self) -> None:
        for index in range(2):
            if index == self.fail_after:
                raise UserError("the disk under the target is full: give it more room")
            self.worker.measure({"index": index, "start_at": None})
            (self.folder / f"point-{index}").write_text(str(self.run.together["workload"]))
        (self.folder / "notes").write_text("\n".join(self.run.notes))


def _group(tmp_path: Path) -> MixGroup:
    plans = tuple(
        SimpleNamespace(database=DatabaseSpec(workload=name), run_id=f"A-{name}-mix", warmup_s=1.0)
        for name in ("brokerage", "orders")
    )
    for plan in plans:
        (tmp_path / plan.run_id).mkdir()
    return MixGroup("A", plans, {"brokerage": "A-brokerage", "orders": "A-orders"})


def test_members_run_in_processes_of_their_own_and_each_knows_its_mix(tmp_path):
    group = _group(tmp_path)
    said: list[str] = []
    folders = run_together(group, tmp_path, lambda plan, folder: FakeRun(folder, None), said.append)
    assert [f.name for f in folders] == ["A-brokerage-mix", "A-orders-mix"]
    for folder, name in zip(folders, ("brokerage", "orders"), strict=True):
        assert [(folder / f"point-{i}").read_text() for i in (0, 1)] == [name, name]
    assert (folders[0] / "notes").read_text() == (
        "measured together with orders on the same target, every point started at one "
        "instant ([mix], docs/mix.md); this workload alone: A-brokerage"
    )
    assert said == ["mix on A: brokerage, orders started together"]


def test_a_member_refused_stops_the_others_at_their_next_point_in_one_line(tmp_path):
    group = _group(tmp_path)

    def build(plan, folder):
        return FakeRun(folder, 1 if "orders" in plan.run_id else None)

    with pytest.raises(UserError) as caught:
        run_together(group, tmp_path, build, lambda line: None)
    assert str(caught.value) == (
        "orders (in the mix): the disk under the target is full: give it more room"
    )
    # both measured point 0 together; brokerage waited for orders at point 1 and stopped
    assert (tmp_path / "A-brokerage-mix" / "point-0").exists()
    assert not (tmp_path / "A-brokerage-mix" / "point-1").exists()

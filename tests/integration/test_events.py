"""Events inside a point, for real: a cgroup throttle of a loop device during an fio point
and during a PostgreSQL point (the dip and the recovery found within a second of when
they happened), a btrfs snapshot during a PostgreSQL brokerage point (the device's writes
meanwhile), commands that fail or hang, and nothing left behind even after kill -9."""

from __future__ import annotations

import contextlib
import os
import signal
import time
from pathlib import Path

import pytest
from loopfs import mounted_loop_fs
from needs import usable

pytestmark = pytest.mark.integration

BLKIO = Path("/sys/fs/cgroup/blkio")


def device_number(fs) -> str:
    return Path(f"/sys/class/block/{fs.device.name}/dev").read_text().strip()


def throttle_rules(number: str) -> list[str]:
    """Every v1 throttle rule for this device anywhere under the blkio mount (other
    processes' groups come and go meanwhile)."""
    found = []
    for rules in BLKIO.rglob("blkio.throttle.*_device"):
        with contextlib.suppress(OSError):
            text = rules.read_text()
            found += [f"{rules}: {ln}" for ln in text.splitlines() if ln.split()[:1] == [number]]
    return found


def snapshots(mount: Path) -> list[Path]:
    return sorted(mount.rglob(".dbstor-snapshot-*"))


@pytest.fixture
def btrfs(server_dir):
    """btrfs on a loop device under a directory a server's account can reach."""
    with mounted_loop_fs(server_dir, "300M", fstype="btrfs") as fs:
        os.chmod(fs.path, 0o711)
        yield fs


def events_of(dbstor, out: Path) -> list[dict]:
    return dbstor.results(dbstor.only_run_folder(out))["points"][0]["events"]


def assert_found_in_time(event: dict, back_within_s: float = 1.0) -> None:
    """The dip began within a second of the throttle and ended within back_within_s of its
    lift (fio's load is back at once; a database works off what queued during the throttle
    first, which took PostgreSQL 1-2 s here)."""
    impact = event["impact"]
    assert event["ok"], event
    dip = impact["dip"]
    assert dip is not None and dip["depth_pct"] > 50, impact
    assert abs(dip["started_at_s"] - event["started_s"]) <= 1.0, (dip, event["started_s"])
    assert impact["recovered_at_s"] is not None, impact
    back = impact["recovered_at_s"] - event["ended_s"]
    assert -1.0 <= back <= back_within_s, (impact, event["ended_s"])


@pytest.mark.skip_without_fio
def test_a_throttle_during_an_fio_point_and_commands_that_fail_or_hang(dbstor, tmp_path, btrfs):
    number = device_number(btrfs)
    proc = dbstor(
        "io", "--target", btrfs.path, "--rate", "1500", "--duration", "8s", "--warmup", "1s",
        "--size", "32MiB", "--out", "out",
        "--event", "throttle@3s,for=2s,iops=100",
        "--event", "command@6s,argv=/bin/sh -c 'echo about to fail; exit 3'",
        "--event", "command@6s,timeout=1s,argv=/bin/sleep 30",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    throttle, failing, hanging = events_of(dbstor, tmp_path / "out")
    assert_found_in_time(throttle)
    assert throttle["impact"]["dip"]["lowest"] < 300, throttle["impact"]  # held near 100 IOPS
    assert "event throttle at 3s for 2s" in proc.stderr and "dip" in proc.stderr
    assert failing["ok"] is False and failing["details"]["exit_status"] == 3, failing
    folder = dbstor.only_run_folder(tmp_path / "out")
    output = folder / failing["details"]["output_file"]
    assert output.read_text() == "about to fail\n"
    assert hanging["ok"] is False and hanging["details"]["timed_out"], hanging
    assert 1.0 <= hanging["details"]["run_s"] < 5, hanging
    assert "time limit of 1s" in hanging["error"]
    assert throttle_rules(number) == [], "the throttle is lifted"


def test_a_snapshot_and_a_throttle_during_a_postgres_brokerage_point(dbstor, tmp_path, btrfs):
    usable("postgres")
    number = device_number(btrfs)
    target = btrfs.path / "lun"
    target.mkdir(mode=0o711)
    proc = dbstor(
        "run", "--engine", "postgres", "--workload", "brokerage", "--target", target,
        "--users", "2", "--duration", "14s", "--warmup", "1s", "--scale", "10", "--out", "out",
        "--event", "snapshot@2s,for=2s", "--event", "throttle@8s,for=2s,iops=40",
        timeout=300,
    )  # fmt: skip
    # the throttle's baseline is the seconds outside the snapshot's (0-1 and 5-7: two seconds
    # alone, the first of the run, were once too fast to come back to), and four seconds
    # follow its lift
    assert proc.returncode == 0, proc.stderr
    snapshot, throttle = events_of(dbstor, tmp_path / "out")
    assert snapshot["ok"], snapshot
    assert snapshot["details"]["method"] == "btrfs subvolume snapshot"
    device = snapshot["impact"]["device"]
    assert device["during"]["dev_write_mbps"] > 0, device  # the device's writes meanwhile
    assert snapshot["impact"]["unit"] == "TPS"
    assert not Path(snapshot["details"]["path"]).exists(), "the snapshot is removed"
    assert_found_in_time(throttle, back_within_s=3.0)
    assert throttle_rules(number) == [] and snapshots(btrfs.path) == []


@pytest.mark.skip_without_fio
def test_kill_9_during_a_throttle_and_a_snapshot_leaves_neither(dbstor, tmp_path, btrfs):
    number = device_number(btrfs)
    proc = dbstor.start(
        "io", "--target", btrfs.path, "--rate", "500", "--duration", "30s", "--warmup", "1s",
        "--size", "16MiB", "--out", tmp_path / "out",
        "--event", "throttle@1s,for=25s,iops=200", "--event", "snapshot@1s",
    )  # fmt: skip
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not (throttle_rules(number) and snapshots(btrfs.path)):
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.1)
    assert throttle_rules(number) and snapshots(btrfs.path), "both began"
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(10)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and (throttle_rules(number) or snapshots(btrfs.path)):
        time.sleep(0.1)
    assert throttle_rules(number) == [] and snapshots(btrfs.path) == []


def test_bad_events_are_refused_before_anything_runs(dbstor, tmp_path):
    """One line each, exit 2, nothing made, by io, study and run alike."""
    target = tmp_path / "t"
    # the kinds of refusal of --event are rows of docs/bad-input.md (test_bad_input_doc.py)
    cases = {"a throttle needs for": "throttle@1s,iops=9"}
    for needle, event in cases.items():
        proc = dbstor(
            "io", "--target", target, "--duration", "10s", "--out", "out", "--event", event
        )
        dbstor.assert_user_error(proc, needle)
    assert not target.exists() and not (tmp_path / "out").exists()
    study = tmp_path / "s.toml"
    study.write_text(
        f'[study]\nduration = "10s"\n[[targets]]\npath = "{target}"\n'
        '[[events]]\nkind = "throttle"\nat = "8s"\nfor = "5s"\niops = 100\n'
    )
    dbstor.assert_user_error(dbstor("study", study), "ends after the point's measured window")
    dbstor.assert_user_error(dbstor("run", study, "--out", "out"), "events[0]")
    target.mkdir()
    dss = dbstor(
        "run", "--engine", "duckdb", "--workload", "dss", "--target", target, "--out", "out",
        "--event", "drop-caches@1s",
    )  # fmt: skip
    dbstor.assert_user_error(dss, "not query streams")
    assert list(target.iterdir()) == [] and not (tmp_path / "out").exists()


@pytest.mark.skip_without_fio
def test_a_reflink_snapshot_drop_caches_and_fstrim_on_xfs_during_an_fio_point(dbstor, tmp_path):
    with mounted_loop_fs(tmp_path, "320M", ("-m", "reflink=1"), fstype="xfs") as xfs:
        proc = dbstor(
            "io", "--target", xfs.path, "--iodepth", "2", "--duration", "4s", "--warmup", "1s",
            "--size", "16MiB", "--out", "out", "--event", "snapshot@2s,for=1s",
            "--event", "drop-caches@1s", "--event", "fstrim@3s",
        )  # fmt: skip
        assert proc.returncode == 0, proc.stderr
        snapshot, dropped, trimmed = events_of(dbstor, tmp_path / "out")
        assert dropped["ok"] and trimmed["ok"], (dropped, trimmed)
        assert "trimmed" in trimmed["details"]["fstrim_said"], trimmed
        assert snapshot["ok"], snapshot
        details = snapshot["details"]
        assert details["method"] == "reflink copy" and details["files"] >= 1, details
        assert details["bytes"] >= 16 << 20, details  # the test files, cloned not copied
        assert snapshots(xfs.path) == [], "the copy is removed"

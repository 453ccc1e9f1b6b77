"""The own accounting's choice of cgroup: v2 where the io and cpu controllers are enabled,
never when a memory cap's group holds the processes (v2 has one group per process: moving
them would lift the cap), /proc then, saying why. A cgroup v2 tree laid out in a temporary
directory stands in for /sys/fs/cgroup (this machine has cgroup v1)."""

from __future__ import annotations

from pathlib import Path

from dbstor.telemetry import own


def fake_v2(tmp_path: Path, monkeypatch) -> Path:
    root = tmp_path / "unified"
    root.mkdir()
    (root / "cgroup.subtree_control").write_text("cpu io memory pids\n")
    monkeypatch.setattr(own, "cgroup_mounts", lambda: [(str(root), "/", "cgroup2", set())])
    monkeypatch.setattr(own, "own_cgroup_dir", lambda mount, root_, match: Path(mount))
    monkeypatch.setattr(own.lifeline, "watch_dir", lambda path: None)
    monkeypatch.setattr(own.lifeline, "forget_dir", lambda path: None)
    return root


def test_v2_groups_are_read_per_role(tmp_path, monkeypatch):
    root = fake_v2(tmp_path, monkeypatch)
    accounting = own.OwnAccounting((), "t")
    accounting.names = {"254:0": "vda"}
    accounting.start([], [])
    assert accounting.version == 2
    server = root / f"{accounting.label}-server"
    (server / "io.stat").write_text("254:0 rbytes=8192 wbytes=4096 rios=2 wios=1 dbytes=0 dios=0\n")
    (server / "cpu.stat").write_text("usage_usec 1500\nuser_usec 1000\nsystem_usec 500\n")
    client = root / f"{accounting.label}-client"
    (client / "io.stat").write_text("")
    (client / "cpu.stat").write_text("usage_usec 0\n")
    snap = accounting.read()
    assert snap["source"] == "cgroup v2 io.stat, cpu.stat"
    assert snap["roles"]["server"]["devices"] == {"vda": [2, 1, 8192, 4096]}
    assert snap["roles"]["server"]["cpu_ns"] == 1_500_000
    assert "including buffered writes" in snap["writes_counted"]


def test_v2_with_a_memory_cap_falls_back_to_proc_and_says_why(tmp_path, monkeypatch):
    root = fake_v2(tmp_path, monkeypatch)
    accounting = own.OwnAccounting((), "t", capped=True)
    accounting.start([], [])
    assert accounting.version is None and list(root.glob("dbstor-own-*")) == []
    assert accounting.source.startswith("/proc/PID/io and /proc/PID/stat")
    assert "memory cap group" in accounting.source


def test_groups_that_cannot_be_made_fall_back_to_proc_and_say_why(tmp_path, monkeypatch):
    """Not root (a Kubernetes pod running as uid 10001): cgroup v1 is mounted, making a
    group is refused; the point is then counted from /proc, never read from no group."""
    mounts = [(str(tmp_path), "/", "cgroup", {"blkio", "cpuacct"})]
    monkeypatch.setattr(own, "cgroup_mounts", lambda: mounts)
    monkeypatch.setattr(own, "own_cgroup_dir", lambda mount, root_, match: Path(mount))

    def refused(self, *args, **kwargs):
        raise PermissionError(13, "Permission denied", str(self))

    monkeypatch.setattr(Path, "mkdir", refused)
    accounting = own.OwnAccounting((), "t")
    accounting.start([], [])
    snap = accounting.read()
    assert accounting.version is None
    assert accounting.source.startswith("/proc/PID/io and /proc/PID/stat")
    assert "no cgroup could be made: Permission denied" in accounting.source
    assert set(snap["roles"]) == set(own.ROLES)

"""System facts read from this machine's real /sys and /proc."""

from __future__ import annotations

from pathlib import Path

from dbstor.telemetry.disk import devices_for_path
from dbstor.telemetry.system import device_facts, target_system


def test_the_device_under_this_tree_has_its_queue_facts():
    devices = devices_for_path(Path(__file__).parent)
    assert devices, "the test tree lies on a block device here"
    facts = device_facts(devices[0])
    assert facts["logical_block_bytes"] in (512, 4096)
    assert facts["nr_requests"] > 0 and facts["read_ahead_kb"] >= 0
    assert facts["scheduler"] and "[" not in facts["scheduler"]


def test_a_cluster_hosts_device_is_not_read_here():
    assert target_system(["h2:sdb"])["devices"] == {}


def sys_block_tree(root, name: str, files: dict[str, str], slaves: list[str]) -> None:
    """A /sys/block entry as the kernel lays it out (this machine's kernel has no dm or md
    driver to make a real one)."""
    base = root / name
    for rel, text in files.items():
        (base / rel).parent.mkdir(parents=True, exist_ok=True)
        (base / rel).write_text(text + "\n")
    (base / "slaves").mkdir(parents=True, exist_ok=True)
    for below in slaves:
        (base / "slaves" / below).mkdir()


def test_a_multipath_device_names_itself_and_its_paths(tmp_path):
    sys_block_tree(tmp_path, "dm-3", {
        "dm/name": "mpatha", "dm/uuid": "mpath-3600a098038303053",
        "queue/scheduler": "[none] mq-deadline", "queue/rotational": "0",
    }, ["sdb", "sdc"])  # fmt: skip
    facts = device_facts("dm-3", tmp_path)
    assert facts["dm_name"] == "mpatha" and facts["multipath"] is True
    assert facts["built_on"] == ["sdb", "sdc"] and facts["scheduler"] == "none"
    assert facts["rotational"] is False and "model" not in facts, "unread facts left out"


def test_an_lvm_volume_is_dm_but_not_multipath_and_md_names_its_level(tmp_path):
    sys_block_tree(tmp_path, "dm-0", {"dm/name": "vg-data", "dm/uuid": "LVM-abc"}, ["sda"])
    assert device_facts("dm-0", tmp_path)["multipath"] is False
    sys_block_tree(tmp_path, "md0", {"md/level": "raid10"}, ["sdd", "sde"])
    facts = device_facts("md0", tmp_path)
    assert facts["md_level"] == "raid10" and facts["built_on"] == ["sdd", "sde"]

"""System facts read from this machine's real /sys and /proc."""

from __future__ import annotations

from pathlib import Path

from dbstor.telemetry.disk import devices_for_path
from dbstor.telemetry.system import device_facts, mount_facts, target_system


def test_the_device_under_this_tree_has_its_queue_facts():
    devices = devices_for_path(Path(__file__).parent)
    assert devices, "the test tree lies on a block device here"
    facts = device_facts(devices[0])
    assert facts["logical_block_bytes"] in (512, 4096)
    assert facts["nr_requests"] > 0 and facts["read_ahead_kb"] >= 0
    assert facts["scheduler"] and "[" not in facts["scheduler"]


def test_the_file_system_of_a_path_and_of_shm():
    here = mount_facts(Path(__file__))
    assert here["fs_type"] and here["mount_options"].startswith(("rw", "ro"))
    assert mount_facts(Path("/dev/shm"))["fs_type"] == "tmpfs"


def test_mount_facts_take_the_longest_mount_point(tmp_path):
    info = tmp_path / "mountinfo"
    info.write_text(
        "22 1 254:0 / / rw,relatime shared:1 - ext4 /dev/vda rw\n"
        "30 22 0:5 / /mnt/fc rw,noatime shared:2 - xfs /dev/mapper/mpatha rw,attr2\n"
    )
    facts = mount_facts(Path("/mnt/fc/data"), info)
    assert facts == {
        "mount_point": "/mnt/fc", "fs_type": "xfs", "source": "/dev/mapper/mpatha",
        "mount_options": "rw,noatime", "fs_options": "rw,attr2",
    }  # fmt: skip


def test_a_cluster_hosts_device_is_not_read_here():
    assert target_system([], ["h2:sdb"])["devices"] == {}

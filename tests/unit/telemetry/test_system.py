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

"""The host's system facts recorded with a run, read from the real machine: its NUMA
nodes and CPU governor are what /sys says (left out where /sys has none, never guessed).
(Device-mapper and md: this kernel has neither driver, see tests/unit/telemetry.)"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from dbstor.host import host_facts

pytestmark = pytest.mark.integration


def test_the_hosts_numa_nodes_and_cpu_governor_are_what_sys_says():
    facts = host_facts()
    nodes = [n for n in os.listdir("/sys/devices/system/node") if n.startswith("node")]
    assert facts["numa_nodes"] == len(nodes) >= 1
    governor = Path("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor")
    if governor.exists():
        assert facts["cpu_governor"] == governor.read_text().strip()
    else:
        assert "cpu_governor" not in facts, "no cpufreq here: left out, not guessed"

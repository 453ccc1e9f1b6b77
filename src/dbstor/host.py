"""Facts about the host a run ran on, recorded with every run."""

from __future__ import annotations

import os
import platform
from pathlib import Path
from typing import Any


def _meminfo_total_bytes(text: str) -> int | None:
    for line in text.splitlines():
        if line.startswith("MemTotal:"):
            return int(line.split()[1]) * 1024
    return None


def _cpu_model(text: str) -> str | None:
    for line in text.splitlines():
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return None


def _read(path: str) -> str:
    try:
        return Path(path).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


def host_facts() -> dict[str, Any]:
    os_release = dict(
        line.split("=", 1) for line in _read("/etc/os-release").splitlines() if "=" in line
    )
    return {
        "hostname": platform.node(),
        "cpus": os.cpu_count(),
        "cpu_model": _cpu_model(_read("/proc/cpuinfo")),
        "memory_bytes": _meminfo_total_bytes(_read("/proc/meminfo")),
        "kernel": platform.release(),
        "os": os_release.get("PRETTY_NAME", "").strip('"') or platform.system(),
        "python": platform.python_version(),
        **_cpu_and_memory_layout(),
    }


def _cpu_and_memory_layout() -> dict[str, Any]:
    """The CPU frequency governor and the NUMA nodes (left out where /sys has none)."""
    governor = _read("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor").strip()
    nodes = Path("/sys/devices/system/node")
    count = len([n for n in os.listdir(nodes) if n.startswith("node")]) if nodes.is_dir() else 0
    return ({"cpu_governor": governor} if governor else {}) | (
        {"numa_nodes": count} if count else {}
    )

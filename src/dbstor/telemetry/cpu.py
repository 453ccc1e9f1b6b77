"""Host CPU use from the aggregate "cpu" line of /proc/stat.

The kernel counts, per CPU, how many clock ticks (jiffies) went to each kind of work
since boot. The aggregate line sums all CPUs, so shares of its deltas are percentages
of all CPUs' time: 50 % on a 4-CPU host means two CPUs' worth of work.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from pathlib import Path

from dbstor.results.model import CpuStats

PROC_STAT = "/proc/stat"


@dataclass(frozen=True)
class CpuTimes:
    """Cumulative jiffies of all CPUs since boot (guest time is already inside user/nice)."""

    user: int = 0
    nice: int = 0
    system: int = 0
    idle: int = 0
    iowait: int = 0
    irq: int = 0
    softirq: int = 0
    steal: int = 0


_FIELDS = tuple(f.name for f in fields(CpuTimes))


def parse_proc_stat(text: str | None = None) -> CpuTimes:
    """Parse the aggregate "cpu" line of /proc/stat text (read from /proc/stat when None).

    Raises ValueError when the text has no aggregate cpu line.
    """
    if text is None:
        text = Path(PROC_STAT).read_text()
    for line in text.splitlines():
        parts = line.split()
        if parts and parts[0] == "cpu":
            values = [int(v) for v in parts[1 : 1 + len(_FIELDS)]]
            if len(values) < 4:
                break
            values += [0] * (len(_FIELDS) - len(values))  # old kernels lack iowait..steal
            return CpuTimes(*values)
    raise ValueError("no aggregate 'cpu' line in /proc/stat text")


def cpu_stats(before: CpuTimes, after: CpuTimes) -> CpuStats:
    """Percentages of all CPUs' time between two snapshots.

    util = everything but idle and iowait (so steal counts as busy); user = user + nice;
    system = system + irq + softirq; iowait = idle time with I/O outstanding. All None
    when no time passed between the snapshots.
    """
    # A counter that went backwards (iowait can, on tickless kernels) counts as zero.
    delta = {name: max(0, getattr(after, name) - getattr(before, name)) for name in _FIELDS}
    total = sum(delta.values())
    if total <= 0:
        return CpuStats()

    def pct(*names: str) -> float:
        return 100.0 * sum(delta[n] for n in names) / total

    return CpuStats(
        util_pct=100.0 - pct("idle", "iowait"),
        user_pct=pct("user", "nice"),
        system_pct=pct("system", "irq", "softirq"),
        iowait_pct=pct("iowait"),
    )

"""fio profiles: database-shaped raw I/O, each with the source of its shape.

A profile says what one I/O looks like (size, direction, randomness, hot spots) and how
load is raised by default. Studies may define their own with the same fields.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

DISTRIBUTIONS = ("uniform", "zipf", "pareto", "zoned", "normal")


_DISTRIBUTION_FORM = re.compile(r"[a-z]+(:\d+(\.\d+)?(/\d+(\.\d+)?)?)*")


def parse_distribution(value: Any) -> str:
    """fio random_distribution: uniform, zipf:THETA, pareto:H, normal:DEV, zoned:A/B:C/D..."""
    if not isinstance(value, str) or not value.strip():
        raise ValueError("must be a distribution such as zipf:1.2")
    text = value
    name = text.split(":", 1)[0]
    if name not in DISTRIBUTIONS:
        raise ValueError(f"{text!r}: distribution must be one of {', '.join(DISTRIBUTIONS)}")
    if not _DISTRIBUTION_FORM.fullmatch(text):
        raise ValueError(
            f"{text[:60]!r}: after the name give numbers only, e.g. zipf:1.2 or zoned:60/10:40/90"
        )
    if name == "zoned":
        zones = text.split(":")[1:]
        if not zones or sum(float(z.split("/")[0]) for z in zones) != 100:
            raise ValueError(f"{text!r}: zoned needs ACCESS%/SIZE% pairs whose access adds to 100")
    return text


@dataclass(frozen=True)
class Profile:
    name: str
    description: str
    source: str
    pattern: str = "random"  # random | sequential
    read_pct: float = 100.0
    block_size: int = 8192
    block_split: tuple[tuple[int, float], ...] = ()  # (size, percent) pairs; overrides block_size
    distribution: str = "uniform"  # fio random_distribution, e.g. "zipf:1.2", "zoned:60/10:40/90"
    files: int = 1
    fdatasync: int = 0  # issue an fdatasync after this many writes (0: never)
    ioengine: str = "io_uring"
    load_kind: str = "iodepth"  # how the default series raises load: iodepth | jobs
    default_series: tuple[int, ...] = (1, 2, 4, 8, 16, 32, 64)
    slo_metric: str = "read_lat_p99_ms"
    extra: dict[str, str] = field(default_factory=dict)

    @property
    def rw(self) -> str:
        """fio's rw= value for this profile."""
        if self.pattern == "random":
            if self.read_pct >= 100:
                return "randread"
            return "randwrite" if self.read_pct <= 0 else "randrw"
        if self.read_pct >= 100:
            return "read"
        return "write" if self.read_pct <= 0 else "rw"

    def describe(self) -> dict[str, object]:
        """The profile as plain data for results.json and the report."""
        sizes = (
            {f"{size // 1024}K": pct for size, pct in self.block_split}
            if self.block_split
            else {f"{self.block_size // 1024}K": 100.0}
        )
        return {
            "name": self.name,
            "description": self.description,
            "source": self.source,
            "pattern": self.pattern,
            "read_pct": self.read_pct,
            "block_sizes": sizes,
            "distribution": self.distribution,
            "files": self.files,
            "fdatasync": self.fdatasync,
            "ioengine": self.ioengine,
            "load_kind": self.load_kind,
        }


BUILTIN_PROFILES: dict[str, Profile] = {
    p.name: p
    for p in (
        Profile(
            name="io-oltp",
            description="8K random I/O, 90% reads: an OLTP database's data files as the array sees them",
            source=(
                "TR-4403 and TR-4367 measured their TPC-E-like SQL Server workload at the storage "
                "as 8K random I/O with a 90/10 read/write ratio"
            ),
            read_pct=90.0,
        ),
        Profile(
            name="io-slob",
            description="8K random I/O, 75% reads / 25% writes: SLOB2's default mix",
            source="TR-4415 drove Oracle with SLOB2 at 75% selects / 25% updates on 8K blocks",
            read_pct=75.0,
        ),
        Profile(
            name="io-dss",
            description="large sequential reads from 64K to 1M: table scans of a decision-support query",
            source=(
                "TR-3476 (DSS on FC and iSCSI) and EMC h6080, which notes SQL Server read-ahead "
                "issues reads of up to 256K-1MB during scans"
            ),
            pattern="sequential",
            read_pct=100.0,
            block_split=((65536, 25.0), (131072, 25.0), (262144, 25.0), (1048576, 25.0)),
            default_series=(1, 2, 4, 8, 16),
        ),
        Profile(
            name="io-log",
            description=(
                "sequential synchronous writes, fdatasync after each: the transaction log stream "
                "(commit latency is this write's latency)"
            ),
            source=(
                "every database hardens its log at commit with a synchronous sequential write; "
                "sizes 4K-64K follow log-buffer flushes of small OLTP transactions"
            ),
            pattern="sequential",
            read_pct=0.0,
            block_split=((4096, 40.0), (8192, 30.0), (16384, 15.0), (32768, 10.0), (65536, 5.0)),
            fdatasync=1,
            ioengine="psync",
            load_kind="jobs",
            default_series=(1, 2, 4, 8),
            slo_metric="write_lat_p99_ms",
        ),
        Profile(
            name="io-tempdb",
            description="64K random I/O, half reads and half writes: spills to tempdb or temp tablespaces",
            source=(
                "TR-4367 placed tempdb in 8 files on its own volume; sorts and hash spills read and "
                "write extents of 64K (eight 8K pages)"
            ),
            read_pct=50.0,
            block_size=65536,
            default_series=(1, 2, 4, 8, 16, 32),
        ),
    )
}

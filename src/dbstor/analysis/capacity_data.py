"""Constants for `dbstor capacity`, each with where it comes from.

Sources are named in full in docs/efficiency.md ("Usable capacity").
"""

from __future__ import annotations

from dataclasses import dataclass

GIB = 1024**3


@dataclass(frozen=True)
class RaidLevel:
    name: str
    parity: int  # parity members per RAID group (0 for mirroring)
    mirror: bool  # RAID 10: half of the members hold copies
    min_group: int
    default_group: int
    ontap: bool  # an ONTAP RAID type: WAFL reserve applies by default
    source: str


RAID_LEVELS: dict[str, RaidLevel] = {
    "raid4": RaidLevel("raid4", 1, False, 2, 8, True, "one parity drive per group (ONTAP RAID4)"),
    "raid5": RaidLevel(
        "raid5",
        1,
        False,
        3,
        8,
        False,
        "one drive's worth of parity per group",
    ),
    "raid6": RaidLevel(
        "raid6",
        2,
        False,
        4,
        10,
        False,
        "two drives' worth of parity per group",
    ),
    "raid10": RaidLevel(
        "raid10", 0, True, 2, 2, False, "mirrored pairs, striped: half the drives hold copies"
    ),
    "raid-dp": RaidLevel(
        "raid-dp",
        2,
        False,
        3,
        23,
        True,
        "NetApp RAID-DP: two parity drives per group",
    ),
    "raid-tec": RaidLevel(
        "raid-tec",
        3,
        False,
        4,
        23,
        True,
        "NetApp RAID-TEC: three parity drives per group (triple erasure coding)",
    ),
}


def layout_source(level: RaidLevel, sizes: list[int]) -> str:
    """The parity line's source, for the RAID groups actually built (their sizes)."""
    if level.mirror:
        return level.source
    kinds = sorted(set(sizes), reverse=True)
    layout = " and ".join(
        f"{sizes.count(n)} group{'s' if sizes.count(n) > 1 else ''} of {n}: "
        f"{n - level.parity} data + {level.parity} parity"
        for n in kinds
    )
    if level.name == "raid-dp":
        seed = kinds == [23]
        return (
            f"NetApp RAID-DP, two parity drives per group; {layout}"
            + (" (the TR-4403 and TR-4415 layout)" if seed else "")
            + "; NetApp recommends 20-28 for SSDs"
        )
    return f"{level.source}; {layout}"


WAFL_RESERVE_PCT = 10.0
WAFL_RESERVE_SOURCE = (
    "NetApp System Manager docs, 'Estimated usable capacity of an aggregate': 10% of the data "
    "disks' capacity is reserved for WAFL"
)
AGGR_SNAP_RESERVE_SOURCE = (
    "NetApp KB 'How to disable aggregate snapshots in Clustered Data ONTAP 8': the aggregate "
    "Snapshot reserve is 0 in clustered Data ONTAP 8.3"
)

# ADP root partition: the seeds' AFF8080 EX (Data ONTAP 8.3.1, 24 x 800 GB per node, root-data)
# does not state it. 54 GiB is what makes the report's own per-node figure come out
# (21 data partitions x (745.06 - 54) GiB x 0.9 = 12.76 TiB, printed by ONTAP as "12.7TB");
# NetApp publishes the real value per platform in Hardware Universe (ADP Root Partition
# Configuration).
DEFAULT_ROOT_PARTITION = 54 * GIB
ROOT_PARTITION_SOURCE = (
    "derived from TR-4403 (AFF8080 EX, 8.3.1: 21 data + 2 parity + 1 spare per node, 12.7 TB "
    "aggregate); use --root-partition with the value NetApp Hardware Universe gives for yours"
)

# NetApp right-sized capacities of hard drives: marketing size -> the MiB ONTAP uses of the
# drive ("Used MB" in `sysconfig -r`, where ONTAP's MB is 2**20 bytes). The table usually
# quoted (storagegaga.com, 'Playing with NetApp ... (Capacity) BR', 2011) gives these as
# "34GB, 68GB, 136GB, 272GB, 560GB, 847GB, 1.69TB, 2.48TB": thousands of ONTAP's MB, not
# GiB (a 600 GB drive holds 558.79 GiB, less than "560"). The exact figures are from
# `sysconfig -r` listings (Used MB/blks: 68000/139264000, 136000/278528000,
# 272000/557056000, 560000/1146880000, 847555/1735794176, 1695466/3472315904); 36 GB and
# 3 TB are the table's figures in the same unit. Every one is less than the drive: right-
# sizing takes capacity away, never adds it (usable() checks). SSDs are not listed: for
# them dbstor uses the drive's decimal size.
NETAPP_RIGHT_SIZED_MIB: dict[int, int] = {
    36 * 10**9: 34_000,
    72 * 10**9: 68_000,
    144 * 10**9: 136_000,
    300 * 10**9: 272_000,
    600 * 10**9: 560_000,
    1 * 10**12: 847_555,
    2 * 10**12: 1_695_466,
    3 * 10**12: 2_480_000,
}
MIB = 1024**2
NETAPP_RIGHT_SIZE_SOURCE = (
    "ONTAP 'sysconfig -r' Used MB (MiB) per drive size; the table in storagegaga.com, "
    "'Playing with NetApp ... (Capacity) BR' in the same unit"
)

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
        "one drive's worth of parity per group; 7+1 is a common group",
    ),
    "raid6": RaidLevel(
        "raid6",
        2,
        False,
        4,
        10,
        False,
        "two drives' worth of parity per group; 8+2 is a common group",
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
        "NetApp RAID-DP: two parity drives per group; 23 (21 data + 2 parity) is the TR-4403 and "
        "TR-4415 layout, inside NetApp's recommended 20-28 for SSDs",
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

# NetApp right-sized capacities of hard drives (marketing size -> GiB ONTAP uses), as
# published in 'Playing with NetApp ... (Capacity) BR' (storagegaga.com, 2011). SSDs are not
# listed: for them dbstor uses the drive's decimal size in binary units.
NETAPP_RIGHT_SIZED_GIB: dict[int, float] = {
    36 * 10**9: 34.0,
    72 * 10**9: 68.0,
    144 * 10**9: 136.0,
    300 * 10**9: 272.0,
    600 * 10**9: 560.0,
    1 * 10**12: 847.0,
    2 * 10**12: 1.69 * 1024,
    3 * 10**12: 2.48 * 1024,
}
NETAPP_RIGHT_SIZE_SOURCE = (
    "storagegaga.com, 'Playing with NetApp ... (Capacity) BR' (NetApp right-sized table)"
)

"""Usable capacity walks: the seed reports' configurations and hand-computed layouts."""

import pytest

from dbstor.analysis.capacity import parse_drives, usable

GIB = 1024**3
TB = 10**12


def test_parse_drives():
    d = parse_drives("48x800GB")
    assert (d.count, d.size) == (48, 800 * 10**9)
    assert parse_drives("24 x 3.84TB").size == 3_840_000_000_000
    for bad in ("48", "x800GB", "48x800", "0x1TB", "2x100MB"):
        with pytest.raises(ValueError):
            parse_drives(bad)


def test_tr4403_48_x_800gb_raid_dp_root_data():
    r = usable(
        parse_drives("48x800GB"), raid="raid-dp", raid_group=23, spares=2, partitioning="root-data"
    )
    assert r["raw_tb"] == 38.4  # the report's 38.4 TB raw
    # 42 data partitions of (745.06 - 54) GiB, less the 10% WAFL reserve
    expected = 42 * (800e9 - 54 * GIB) * 0.9
    assert r["usable_tb"] == pytest.approx(expected / TB, abs=0.001)
    # ONTAP prints binary units: 25.51 TiB is the report's "25.5TB usable"
    assert r["usable_tib"] == pytest.approx(25.51, abs=0.005)
    assert r["data_members"] == 42
    steps = [line["step"] for line in r["deductions"]]
    assert steps == [
        "raw",
        "units",
        "right-size",
        "partitioning",
        "spares",
        "parity",
        "fs-reserve",
        "usable",
    ]
    # each line's deduction is what separates it from the line before
    for before, after in zip(r["deductions"], r["deductions"][1:], strict=False):
        assert before["remaining_bytes"] - after["deduct_bytes"] == pytest.approx(
            after["remaining_bytes"], abs=2
        )
    assert any("root partition assumed" in n for n in r["notes"])


def test_tr4415_legacy_comparison_24_x_400gb_per_node():
    # 21 data + 2 parity + 1 spare per node, aggregate 6.3 TB: a 31 GiB root partition fits
    r = usable(
        parse_drives("48x400GB"),
        raid="raid-dp",
        raid_group=23,
        spares=2,
        partitioning="root-data",
        root_partition=31 * GIB,
    )
    assert r["usable_tib"] / 2 == pytest.approx(6.3, abs=0.01)


def test_netapp_doc_example_5_x_1tb_raid_dp():
    # NetApp: 5 x 1 TB in RAID-DP -> 3 TB of data disks, less 10% WAFL -> 2.7 TB
    r = usable(parse_drives("5x1TB"), raid="raid-dp", raid_group=5)
    assert r["usable_tb"] == pytest.approx(2.7)


@pytest.mark.parametrize(
    ("raid", "group", "spares", "data_drives"),
    [
        ("raid5", 8, 0, 14),
        ("raid6", 8, 0, 12),
        ("raid10", 2, 0, 8),
        ("raid-tec", 16, 0, 13),
        ("raid5", 5, 1, 12),
    ],
)
def test_parity_per_group(raid, group, spares, data_drives):
    r = usable(parse_drives("16x1TB"), raid=raid, raid_group=group, spares=spares, fs_reserve_pct=0)
    assert r["data_members"] == data_drives
    assert r["usable_tb"] == pytest.approx(data_drives * 1.0)


def test_root_data_data_halves_partitions():
    r = usable(
        parse_drives("24x3.84TB"),
        raid="raid-dp",
        raid_group=23,
        spares=1,
        partitioning="root-data-data",
        root_partition=22 * GIB,
        fs_reserve_pct=0,
    )
    # 46 data partitions of (3.84e12 - 22 GiB) / 2 in 2 groups of 23: 42 hold data
    assert r["data_members"] == 42
    assert r["usable_tb"] == pytest.approx(42 * (3.84e12 - 22 * GIB) / 2 / TB, abs=0.001)


def test_netapp_right_size_for_hdds():
    r = usable(parse_drives("10x1TB"), raid="raid-dp", raid_group=10, right_size="netapp")
    # 8 data drives x 847,555 MiB (sysconfig -r "Used MB" of a 1 TB drive) x 0.9
    assert r["usable_tib"] == pytest.approx(8 * 847_555 * 2**20 * 0.9 / 2**40, abs=0.001)
    unknown = usable(parse_drives("10x960GB"), raid="raid-dp", raid_group=10, right_size="netapp")
    assert "no NetApp right-size" in unknown["deductions"][2]["label"]


@pytest.mark.parametrize(
    "kwargs",
    [
        {"raid": "raid7"},
        {"raid": "raid6", "raid_group": 9, "spares": 6},  # 10 members: a last group of 1
        {"raid": "raid-dp", "raid_group": 2},
        {"raid": "raid10", "raid_group": 3},
        {"spares": 16},
        {"partitioning": "root-data", "root_partition": 2 * 10**12},
    ],
)
def test_impossible_layouts_raise(kwargs):
    with pytest.raises(ValueError):
        usable(parse_drives("16x1TB"), **kwargs)


@pytest.mark.parametrize(
    ("drive", "mib"),
    [("600GB", 560_000), ("36GB", 34_000), ("72GB", 68_000), ("144GB", 136_000)],
)
def test_netapp_right_size_never_adds_capacity(drive, mib):
    """A 600 GB drive holds 558.79 GiB; NetApp's "560" is 560,000 MiB = 546.88 GiB."""
    r = usable(parse_drives(f"10x{drive}"), raid="raid-dp", raid_group=10, right_size="netapp")
    step = r["deductions"][2]
    assert step["step"] == "right-size" and step["deduct_bytes"] > 0
    assert step["remaining_bytes"] == 10 * mib * 2**20 < r["raw_tb"] * TB
    assert f"{mib:,} MiB" in step["label"]


def test_every_netapp_right_size_is_below_its_drive():
    from dbstor.analysis.capacity_data import MIB, NETAPP_RIGHT_SIZED_MIB

    for size, mib in NETAPP_RIGHT_SIZED_MIB.items():
        assert mib * MIB < size, (size, mib)


@pytest.mark.parametrize(
    ("group", "expect"),
    [
        (23, "groups of 23: 21 data + 2 parity (the TR-4403 and TR-4415 layout)"),
        (16, "2 groups of 16: 14 data + 2 parity and 1 group of 14"),
    ],
)
def test_parity_source_describes_the_layout_used(group, expect):
    r = usable(parse_drives("46x800GB"), raid="raid-dp", raid_group=group)
    parity = next(line for line in r["deductions"] if line["step"] == "parity")
    assert expect in parity["source"]
    if group != 23:
        assert "21 data" not in parity["source"] and "TR-4403" not in parity["source"]
    r6 = usable(parse_drives("12x3.84TB"), raid="raid6", raid_group=6)
    assert "groups of 6: 4 data + 2 parity" in r6["deductions"][-2]["source"] + next(
        line["source"] for line in r6["deductions"] if line["step"] == "parity"
    )


def test_right_size_larger_than_the_drive_is_refused():
    with pytest.raises(ValueError, match="only takes capacity away"):
        usable(parse_drives("10x600GB"), right_size="600GiB")


def test_absurd_drive_counts_and_sizes_are_refused():
    with pytest.raises(ValueError, match="more than 100,000"):
        parse_drives("100001x1TB")
    with pytest.raises(ValueError, match="over 1 PB"):
        parse_drives("2x2000TB")

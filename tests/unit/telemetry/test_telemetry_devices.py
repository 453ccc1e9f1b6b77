import os
from pathlib import Path

import pytest

from dbstor.telemetry.disk import devices_for_path, mount_facts, mount_source, parse_diskstats


def _devnum(path: Path) -> str:
    st = os.stat(path)
    if os.major(st.st_dev) == 0:
        pytest.skip("tmp_path has no block device here; the fake sysfs is keyed by it")
    return f"{os.major(st.st_dev)}:{os.minor(st.st_dev)}"


class FakeSysfs:
    """A sysfs tree shaped like the kernel's: devices/.../block/<disk>[/<part>],
    dev/block/MAJ:MIN and <dev>/slaves/<name> as symlinks into devices/."""

    def __init__(self, root: Path) -> None:
        self.root = root
        (root / "dev" / "block").mkdir(parents=True)

    def disk(self, name: str, *partitions: str) -> Path:
        disk = self.root / "devices" / "pci0000:00" / "block" / name
        disk.mkdir(parents=True)
        for part in partitions:
            (disk / part).mkdir()
            (disk / part / "partition").write_text("1\n")
        return disk

    def virtual(self, name: str, *slaves: Path) -> Path:
        dev = self.root / "devices" / "virtual" / "block" / name
        (dev / "slaves").mkdir(parents=True)
        for slave in slaves:
            (dev / "slaves" / slave.name).symlink_to(os.path.relpath(slave, dev / "slaves"))
        return dev

    def node(self, devnum: str, target: Path) -> None:
        (self.root / "dev" / "block" / devnum).symlink_to(
            os.path.relpath(target, self.root / "dev" / "block")
        )


@pytest.fixture
def fake(tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    return FakeSysfs(tmp_path / "sys"), data


def test_partition_maps_to_its_disk(fake):
    sysfs, data = fake
    disk = sysfs.disk("sda", "sda1", "sda2")
    sysfs.node(_devnum(data), disk / "sda2")
    assert devices_for_path(data, sysfs=sysfs.root) == ["sda"]


def test_whole_disk(fake):
    sysfs, data = fake
    sysfs.node(_devnum(data), sysfs.disk("nvme0n1"))
    assert devices_for_path(data, sysfs=sysfs.root) == ["nvme0n1"]


def test_dm_with_two_slaves_keeps_dm_first(fake):
    sysfs, data = fake
    sdb = sysfs.disk("sdb", "sdb1")
    sda = sysfs.disk("sda")
    dm = sysfs.virtual("dm-0", sdb / "sdb1", sda)
    sysfs.node(_devnum(data), dm)
    assert devices_for_path(data, sysfs=sysfs.root) == ["dm-0", "sda", "sdb"]


def test_lvm_on_crypt_on_md_goes_down_to_disks(fake):
    sysfs, data = fake
    sdc = sysfs.disk("sdc", "sdc1")
    sdd = sysfs.disk("sdd", "sdd1")
    md = sysfs.virtual("md0", sdc / "sdc1", sdd / "sdd1")
    crypt = sysfs.virtual("dm-0", md)
    lvm = sysfs.virtual("dm-1", crypt)
    sysfs.node(_devnum(data), lvm)
    assert devices_for_path(data, sysfs=sysfs.root) == ["dm-1", "sdc", "sdd"]


def test_sysfs_bang_becomes_slash(fake):
    sysfs, data = fake
    sysfs.node(_devnum(data), sysfs.disk("cciss!c0d0", "cciss!c0d0p1") / "cciss!c0d0p1")
    assert devices_for_path(data, sysfs=sysfs.root) == ["cciss/c0d0"]


def test_device_unknown_to_sysfs_is_no_device(fake):
    sysfs, data = fake
    _devnum(data)
    assert devices_for_path(data, sysfs=sysfs.root) == []


def test_missing_path_resolves_through_parent(fake):
    sysfs, data = fake
    sysfs.node(_devnum(data), sysfs.disk("sda"))
    assert devices_for_path(data / "not" / "yet", sysfs=sysfs.root) == ["sda"]


def test_real_paths_without_block_device():
    assert devices_for_path("/proc") == []
    if os.path.isdir("/dev/shm"):
        assert devices_for_path("/dev/shm/dbstor-does-not-exist") == []


def test_real_path_on_disk(tmp_path):
    devices = devices_for_path(tmp_path)
    if not devices:
        pytest.skip("tmp_path is not on a block device here")
    assert set(devices) <= set(parse_diskstats())
    assert devices_for_path(tmp_path / "a" / "b") == devices
    # The build machine: / is ext4 straight on /dev/vda (no partition table).
    if os.path.exists("/sys/block/vda") and devices_for_path("/") == ["vda"]:
        assert devices_for_path("/dev/vda") == ["vda"]


MOUNTINFO = """\
22 27 0:21 / /proc rw,relatime - proc proc rw
27 1 254:0 / / rw,relatime - ext4 /dev/vda rw
40 27 0:35 /@data /mnt/data rw - btrfs /dev/sdb2 rw,subvol=/@data
41 27 0:36 / /mnt/data/db rw - tmpfs tmpfs rw
42 27 0:37 / /mnt/data/db rw - nfs filer:/vol/db rw
43 27 0:38 / /mnt/my\\040disk rw - btrfs /dev/my\\040dev rw
"""


@pytest.mark.parametrize(
    ("path", "source"),
    [
        ("/", "/dev/vda"),
        ("/mnt/database", "/dev/vda"),  # a prefix of the name is not a parent
        ("/mnt/data", "/dev/sdb2"),
        ("/mnt/data/x/y", "/dev/sdb2"),
        ("/mnt/data/db/t", "filer:/vol/db"),  # the later mount over the same point wins
        ("/mnt/my disk/f", "/dev/my dev"),
        ("/proc/self", "proc"),
    ],
)
def test_mount_source(path, source):
    assert mount_source(path, MOUNTINFO) == source


def test_mount_source_empty():
    assert mount_source("/x", "") is None


def test_anonymous_device_found_through_mount_source(tmp_path):
    """btrfs gives files an anonymous st_dev (major 0); the mount's source names the disk."""
    root_source = mount_source("/", Path("/proc/self/mountinfo").read_text())
    if not (root_source and root_source.startswith("/dev/") and os.path.exists(root_source)):
        pytest.skip("/ is not mounted from a block device node here")
    if not os.path.isdir("/dev/shm") or os.major(os.stat("/dev/shm").st_dev) != 0:
        pytest.skip("no major-0 directory to stand in for btrfs")
    fake = tmp_path / "mountinfo"
    fake.write_text(
        f"1 0 254:0 / / rw - ext4 {root_source} rw\n2 1 0:99 / /dev/shm rw - btrfs {root_source} rw\n"
    )
    assert devices_for_path("/dev/shm", mountinfo=fake) == devices_for_path("/")
    fake.write_text(
        "1 0 254:0 / / rw - ext4 /dev/vda rw\n2 1 0:99 / /dev/shm rw - tmpfs tmpfs rw\n"
    )
    assert devices_for_path("/dev/shm", mountinfo=fake) == []


def test_mount_facts_name_the_file_system_and_its_options(tmp_path):
    real = os.path.realpath(tmp_path)
    mountinfo = tmp_path / "mountinfo"
    mountinfo.write_text(
        "27 1 254:0 / / rw,relatime - ext4 /dev/vda rw,discard\n"
        f"50 27 8:17 / {real} rw,noatime - xfs /dev/sdb1 rw,attr2,inode64\n"
    )
    facts = mount_facts(tmp_path / "not" / "yet", mountinfo)  # its nearest existing parent
    assert facts == {"fs": "xfs", "options": "rw,noatime,attr2,inode64", "point": real}
    assert mount_facts("/", mountinfo) == {
        "fs": "ext4",
        "options": "rw,relatime,discard",
        "point": "/",
    }
    assert mount_facts(tmp_path, tmp_path / "missing") is None
    here = mount_facts(tmp_path)  # this machine's own
    assert here is not None and here["fs"] and real.startswith(here["point"])

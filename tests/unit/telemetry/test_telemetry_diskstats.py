from pathlib import Path

import pytest

from dbstor.results.model import DeviceStats
from dbstor.telemetry.disk import (
    DiskCounters,
    await_figure,
    await_notes,
    await_text,
    device_stats,
    parse_diskstats,
)

FIXTURES = Path(__file__).parent / "fixtures"  # this machine: 2 CPUs, virtio disk vda;
# taken ~0.22 s apart around dd writing 4000 x 8 KiB (oflag=direct), reading 2000 x 8 KiB


def fixture_text(name: str) -> str:
    return (FIXTURES / name).read_text()


def test_parse_stored_diskstats():
    table = parse_diskstats(fixture_text("diskstats_before.txt"))
    assert set(table) == {f"loop{i}" for i in range(8)} | {"vda", "zram0"}
    assert table["vda"] == DiskCounters(49052, 2158274, 6006, 25467, 2402800, 7331, 0, 7300, 15383)
    assert table["loop0"] == DiskCounters()


def test_parse_short_and_old_formats():
    text = (
        "   8       1 sda1 10 20 30 40\n"  # 2.6-era partition line: skipped
        "   8       0 sda 1 2 3 4 5 6 7 8 9 10 11\n"  # pre-4.18: no discard fields
        "\n"
    )
    assert parse_diskstats(text) == {"sda": DiskCounters(1, 3, 4, 5, 7, 8, 9, 10, 11)}


def test_parse_reads_real_diskstats():
    assert parse_diskstats()  # this machine has at least one block device


def test_device_stats_stored_snapshots():
    before = parse_diskstats(fixture_text("diskstats_before.txt"))
    after = parse_diskstats(fixture_text("diskstats_after.txt"))
    # deltas: 2009 reads, 32456 sectors read, 51 ms reading; 4000 writes,
    # 64000 sectors written, 113 ms writing; 172 ms with I/O in flight. Over 0.25 s:
    stats = device_stats(before, after, 0.25, "vda")
    assert stats.name == "vda"
    assert stats.read_iops == pytest.approx(8036.0)
    assert stats.write_iops == pytest.approx(16000.0)
    assert stats.read_mbps == pytest.approx(32456 * 512 / 1e6 / 0.25)  # 66.469888
    assert stats.write_mbps == pytest.approx(131.072)
    assert stats.read_await_ms == pytest.approx(51 / 2009)
    assert stats.write_await_ms == pytest.approx(113 / 4000)
    assert stats.util_pct == pytest.approx(68.8)


def test_device_stats_hand_computed():
    before = {"sdb": DiskCounters(reads=100, sectors_read=800, read_ms=50, io_ms=1000)}
    after = {
        "sdb": DiskCounters(
            reads=300,
            sectors_read=2800,
            read_ms=450,
            writes=10,
            sectors_written=20480,
            write_ms=30,
            io_ms=2500,
            weighted_ms=6400,
        )
    }
    stats = device_stats(before, after, 2.0, "sdb")
    assert stats.read_iops == 100.0
    assert stats.write_iops == 5.0
    assert stats.read_mbps == pytest.approx(2000 * 512 / 1e6 / 2)  # 0.512 MB/s
    assert stats.write_mbps == pytest.approx(20480 * 512 / 1e6 / 2)  # 5.24288 MB/s
    assert stats.read_await_ms == 2.0  # 400 ms over 200 reads
    assert stats.write_await_ms == 3.0
    assert stats.util_pct == 75.0  # 1500 ms busy of 2000
    # the shape: 200 of 210 I/Os were reads, of 2000 sectors (5 KiB each), writes 20480
    # sectors (1 MiB each); 6400 ms of weighted time in 2000 ms is 3.2 I/Os in the queue
    assert stats.read_share == pytest.approx(200 / 210)
    assert stats.read_kib_mean == 5.0 and stats.write_kib_mean == 1024.0
    assert stats.queue_depth_mean == 3.2


def test_device_stats_idle_device_has_no_await_and_util_is_capped():
    before = {"d": DiskCounters(io_ms=0)}
    after = {"d": DiskCounters(io_ms=1500)}  # more busy ms than wall ms (rounding)
    stats = device_stats(before, after, 1.0, "d")
    assert stats.read_iops == 0.0 and stats.write_iops == 0.0
    assert stats.read_await_ms is None and stats.write_await_ms is None
    assert stats.util_pct == 100.0
    assert stats.read_share is None and stats.read_kib_mean is None, "no I/O: no shape"
    assert stats.queue_depth_mean == 0.0


def test_device_stats_32bit_millisecond_counter_wraps():
    before = {"d": DiskCounters(reads=10, read_ms=2**32 - 100)}
    after = {"d": DiskCounters(reads=20, read_ms=100)}
    assert device_stats(before, after, 1.0, "d").read_await_ms == 20.0  # 200 ms / 10


def test_device_stats_zero_seconds_and_unknown_device():
    snap = {"d": DiskCounters()}
    assert device_stats(snap, snap, 0.0, "d") == DeviceStats(name="d")
    with pytest.raises(KeyError, match="nvme9n9"):
        device_stats(snap, snap, 1.0, "nvme9n9")


def test_an_await_under_the_counters_resolution_is_null_with_a_bound_not_zero():
    assert await_figure(0, 0, "reads") == (None, None)  # nothing to wait for
    assert await_figure(12, 4, "reads") == (3.0, None)
    figure, why = await_figure(0, 40, "reads")
    assert figure is None
    assert why == (
        "device reads await under 0.025 ms: 40 reads took less than the disk counters' "
        "1 ms resolution in all"
    )
    before = {"sda": DiskCounters(reads=100, read_ms=50, writes=10, write_ms=7)}
    after = {"sda": DiskCounters(reads=103, read_ms=50, writes=20, write_ms=27)}
    dev = device_stats(before, after, 1.0, "sda")
    assert dev.read_iops == 3.0 and dev.read_await_ms is None
    assert "3 reads took less than" in dev.read_await_reason
    assert dev.write_await_ms == 2.0 and dev.write_await_reason is None
    assert await_notes(dev) == [dev.read_await_reason]


def test_a_tables_await_is_the_figure_the_bound_or_a_dash():
    before = {"sda": DiskCounters(reads=100, read_ms=50, writes=10, write_ms=7)}
    after = {"sda": DiskCounters(reads=140, read_ms=50, writes=20, write_ms=27)}
    dev = device_stats(before, after, 1.0, "sda")
    assert await_text(dev, "read", lambda ms: f"{ms:.3f}") == "<0.025"
    assert await_text(dev, "write", lambda ms: f"{ms:.3f}") == "2.000"
    assert await_text(DeviceStats(name="sda"), "read", str) == "–"
    assert await_text(None, "read", str) == "–"

from pathlib import Path

import pytest

from dbstor.results.model import CpuStats
from dbstor.telemetry.cpu import CpuTimes, cpu_stats, parse_proc_stat

FIXTURES = Path(__file__).parent / "fixtures"  # this machine: 2 CPUs, virtio disk vda;
# taken ~0.22 s apart around dd writing 4000 x 8 KiB (oflag=direct), reading 2000 x 8 KiB


def fixture_text(name: str) -> str:
    return (FIXTURES / name).read_text()


def test_parse_stored_proc_stat():
    before = parse_proc_stat(fixture_text("proc_stat_before.txt"))
    after = parse_proc_stat(fixture_text("proc_stat_after.txt"))
    assert before == CpuTimes(4115, 0, 2038, 39148, 402, 0, 111, 6)
    assert after == CpuTimes(4115, 0, 2047, 39170, 413, 0, 113, 6)


def test_parse_ignores_per_cpu_lines_and_guest_fields():
    text = "cpu0 1 1 1 1 1 1 1 1 0 0\ncpu  10 2 3 40 5 6 7 8 9 10\nintr 1 2 3\n"
    assert parse_proc_stat(text) == CpuTimes(10, 2, 3, 40, 5, 6, 7, 8)


def test_parse_old_kernel_pads_missing_fields():
    assert parse_proc_stat("cpu 1 2 3 4\n") == CpuTimes(1, 2, 3, 4, 0, 0, 0, 0)


@pytest.mark.parametrize("text", ["", "cpu0 1 2 3 4\n", "cpu 1 2\n"])
def test_parse_without_aggregate_line_raises(text):
    with pytest.raises(ValueError, match="cpu"):
        parse_proc_stat(text)


def test_parse_reads_real_proc_stat():
    times = parse_proc_stat()
    assert times.idle > 0


def test_cpu_stats_stored_snapshots():
    # deltas: system 9, idle 22, iowait 11, softirq 2 -> total 44
    before = parse_proc_stat(fixture_text("proc_stat_before.txt"))
    after = parse_proc_stat(fixture_text("proc_stat_after.txt"))
    stats = cpu_stats(before, after)
    assert stats.util_pct == pytest.approx(25.0)
    assert stats.user_pct == pytest.approx(0.0)
    assert stats.system_pct == pytest.approx(25.0)
    assert stats.iowait_pct == pytest.approx(25.0)


def test_cpu_stats_hand_computed():
    before = CpuTimes(100, 100, 100, 100, 100, 100, 100, 100)
    # deltas: user 50, nice 10, system 20, idle 800, iowait 100, irq 5, softirq 5, steal 10
    after = CpuTimes(150, 110, 120, 900, 200, 105, 105, 110)
    stats = cpu_stats(before, after)
    assert stats.util_pct == pytest.approx(10.0)  # 6 user + 3 system + 1 steal
    assert stats.user_pct == pytest.approx(6.0)
    assert stats.system_pct == pytest.approx(3.0)
    assert stats.iowait_pct == pytest.approx(10.0)


def test_cpu_stats_no_time_passed_is_all_none():
    times = CpuTimes(1, 2, 3, 4, 5, 6, 7, 8)
    assert cpu_stats(times, times) == CpuStats()


def test_cpu_stats_counter_going_back_counts_as_zero():
    before = CpuTimes(idle=100, iowait=50)
    after = CpuTimes(user=10, idle=190, iowait=45)  # iowait went back by 5
    stats = cpu_stats(before, after)
    assert stats.iowait_pct == 0.0
    assert stats.util_pct == pytest.approx(10.0)

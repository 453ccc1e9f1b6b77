"""Each role's own device: which device holds each role's paths, what a point samples,
and each role's figures over the window (telemetry/roles.py, sampler.device_window)."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from dbstor.results.model import DeviceStats
from dbstor.telemetry.roles import (
    role_devices,
    role_figures,
    role_iops,
    roles_line,
    sampled_devices,
    target_roles,
)
from dbstor.telemetry.sampler import Sampler, device_window

STAT = (Path(__file__).parent / "fixtures" / "proc_stat_before.txt").read_text()


def diskstats(vda: tuple[int, int, int, int], loop: tuple[int, int, int, int]) -> str:
    """Two devices' lines: (reads, read ms, writes, write ms) each, 8 sectors an I/O."""

    def line(major: int, name: str, r: int, rms: int, w: int, wms: int) -> str:
        return (
            f" {major} 0 {name} {r} 0 {r * 8} {rms} {w} 0 {w * 8} {wms} 0 {rms + wms} {rms + wms}"
        )

    return "\n".join([line(254, "vda", *vda), line(7, "loop3", *loop)]) + "\n"


def test_device_window_gives_every_sampled_device_over_the_same_window() -> None:
    texts = [
        diskstats((0, 0, 0, 0), (0, 0, 0, 0)),
        diskstats((100, 50, 10, 10), (0, 0, 0, 0)),  # warm-up: data only
        diskstats((300, 150, 20, 20), (0, 0, 400, 40)),  # measured: the log writes
        diskstats((500, 250, 30, 30), (0, 0, 800, 80)),
    ]
    reads = iter(texts)
    last = texts[-1]
    clock = itertools.count()
    sampler = Sampler(
        ["vda", "loop3"],
        interval=0.001,
        clock=lambda: float(next(clock)),
        read_stat=lambda: STAT,
        read_diskstats=lambda: next(reads, last),
    )
    sampler.start()
    for _ in range(100_000):  # a bounded wait for three ticks of a 1 ms interval
        if len(sampler.samples) >= 3 or sampler.error is not None:
            break
    samples = sampler.stop()[:3]  # snapshots at 0, 1, 2, 3 seconds
    window = device_window(samples, start_s=1.0)
    assert set(window) == {"vda", "loop3"}
    assert window["vda"].read_iops == pytest.approx(200.0)  # (500 - 100) / 2 s
    assert window["loop3"].write_iops == pytest.approx(400.0)  # (800 - 0) / 2 s
    assert window["loop3"].write_await_ms == pytest.approx(0.1)
    assert window["loop3"].read_iops == 0.0
    # the top device is summarise()'s: the same figure from either
    _, top = sampler.summarise(samples, start_s=1.0)
    assert top is not None and top.read_iops == window["vda"].read_iops
    assert device_window([], start_s=1.0) == {}


def test_each_role_finds_its_own_top_device_and_the_data_devices_come_first() -> None:
    found = {"/d1": ["dm-0", "sda", "sdb"], "/d2": ["sdc"], "/log": ["loop3"], "/tmp": []}
    by_role = role_devices(
        {"data": ["/d1", "/d2"], "log": ["/log"], "temp": ["/tmp"], "fast": ["/d1"]},
        find=lambda p: found[str(p)],
    )
    assert by_role == {"data": ["dm-0", "sdc"], "log": ["loop3"], "temp": [], "fast": ["dm-0"]}
    # the data path's devices first (top device first), so a point's `device` stays data's
    assert sampled_devices(found["/d1"], by_role) == ["dm-0", "sda", "sdb", "sdc", "loop3"]
    roles = target_roles({"data": ["/d1", "/d2"], "fast": ["/d1"]}, by_role, mount=lambda p: None)
    assert roles["fast"]["shared_with"] == ["data"] and roles["log"]["shared_with"] == []
    assert roles["data"]["paths"] == ["/d1", "/d2"] and roles["log"]["paths"] == []


def test_a_vanished_path_is_a_role_on_no_device_not_a_crash() -> None:
    def gone(path: object) -> list[str]:
        raise FileNotFoundError(path)

    assert role_devices({"log": ["/nope"]}, find=gone) == {"log": []}


def test_role_figures_sum_a_roles_devices_and_say_why_one_is_missing() -> None:
    window = {
        "sda": DeviceStats(name="sda", read_iops=100.0, write_iops=10.0, read_mbps=1.0,
                           write_mbps=0.1, read_await_ms=2.0, write_await_ms=1.0, util_pct=40.0),
        "sdb": DeviceStats(name="sdb", read_iops=300.0, write_iops=0.0, read_mbps=3.0,
                           write_mbps=0.0, read_await_ms=1.0, write_await_ms=None, util_pct=60.0),
        "loop3": DeviceStats(name="loop3", read_iops=0.0, write_iops=50.0, read_mbps=0.0,
                             write_mbps=0.4, write_await_ms=0.5, util_pct=5.0),
    }  # fmt: skip
    figures = role_figures({"data": ["sda", "sdb"], "log": ["loop3"], "temp": []}, window)
    assert figures is not None
    data = figures["data"]
    assert data["read_iops"] == 400.0 and data["write_iops"] == 10.0
    assert data["read_await_ms"] == pytest.approx((2.0 * 100 + 1.0 * 300) / 400)  # per I/O
    assert data["write_await_ms"] == 1.0 and data["util_pct"] == 60.0
    assert figures["log"]["write_iops"] == 50.0 and role_iops(figures["log"]) == 50.0
    assert figures["temp"]["read_iops"] is None and "no block device" in figures["temp"]["missing"]
    assert role_iops(figures["temp"]) is None
    unsampled = role_figures({"log": ["sdz"]}, window)
    assert unsampled is not None and "not sampled" in unsampled["log"]["missing"]
    assert role_figures({"data": ["sda"]}, {}) is None  # nothing sampled: no roles at all


def test_the_terminal_line_names_only_roles_on_devices_of_their_own() -> None:
    window = {
        "vda": DeviceStats(name="vda", read_iops=900.0, write_iops=10.0, read_await_ms=4.0),
        "loop3": DeviceStats(name="loop3", read_iops=0.0, write_iops=812.0, write_await_ms=0.41),
    }
    figures = role_figures({"data": ["vda"], "temp": ["vda"], "log": ["loop3"]}, window)
    assert roles_line(figures) == "  log loop3 812 IOPS 0.41 ms w"
    assert roles_line(role_figures({"data": ["vda"], "fast": ["vda"]}, window)) == ""
    assert roles_line(None) == ""

"""The cost case's CPU factor with its interval and the servers at both its ends
(analysis/tco/uncertainty.py), through `dbstor tco --before-run --after-run`."""

import argparse
from pathlib import Path

from dbstor.analysis.interval import from_seconds
from dbstor.analysis.tco.uncertainty import cpu_multipliers, interval_words
from dbstor.commands import tco as tco_command
from dbstor.results.model import CpuStats, Load, Point, Run
from dbstor.results.store import save_run


def parse(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    tco_command.register(parser.add_subparsers())
    return parser.parse_args(["tco", *argv])


def point(cpu: float, wobble: float) -> Point:
    p = Point(load=Load("users", 8), duration_s=20, cpu=CpuStats(util_pct=cpu), tps=100.0)
    seconds = [cpu + wobble * (1 if i % 3 else -2) for i in range(20)]
    p.uncertainty = {"cpu_pct": from_seconds(seconds).to_dict()}
    return p


def save(folder: Path, p: Point) -> Path:
    save_run(folder, Run(folder.name, "t", {}, {}, {}, {}, {}, {}, "now", points=[p]))
    return folder


def cost(tmp_path: Path, before: Point, after: Point) -> dict:
    args = parse(
        "--servers", "10", "--cores-per-server", "12", "--ceiling", "80%", "--license", "none",
        "--before-run", str(save(tmp_path / "b", before)),
        "--after-run", str(save(tmp_path / "a", after)),
    )  # fmt: skip
    return tco_command.cost_case(args)


def test_a_tight_cpu_factor_gives_one_server_count_and_a_loose_one_a_range(tmp_path):
    tight = cost(tmp_path / "t", point(10.0, 0.05), point(38.0, 0.2))["servers"]
    assert tight["after"] == 5 and tight["cpu_factor"] == 3.8  # 10 x 38% / 80% = 4.75
    low, high = tight["cpu_factor_interval"]
    assert 3.7 < low < 3.8 < high < 3.9
    assert tight["after_interval"] == [5, 5]
    assert "5 servers at either end of its 95% interval" in interval_words(tight)
    loose = cost(tmp_path / "l", point(10.0, 2.0), point(40.0, 8.0))["servers"]
    assert loose["after_interval"][0] < loose["after_interval"][1]
    assert loose["after_interval"][0] <= 5 <= loose["after_interval"][1]  # 10 x 40% / 80%
    assert "servers within its 95% interval" in interval_words(loose)
    assert "CPU factor x4 (" in interval_words(loose)


def test_no_recorded_spread_or_cpu_by_hand_gives_no_interval_and_says_why(tmp_path):
    bare = point(10.0, 0.1)
    bare.uncertainty = None
    servers = cost(tmp_path, bare, point(40.0, 0.2))["servers"]
    assert "after_interval" not in servers and "no interval" in servers["cpu_interval_how"]
    assert interval_words(servers) == ""
    by_hand = tco_command.cost_case(
        parse(
            *[
                "--servers",
                "10",
                "--cores-per-server",
                "12",
                "--cpu-after",
                "40%",
                "--license",
                "none",
            ]
        )
    )["servers"]
    assert "after_interval" not in by_hand and "by hand" in by_hand["cpu_interval_how"]
    assert cpu_multipliers(None, None) is None

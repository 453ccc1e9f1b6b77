"""dbstor tco through the real CLI: flags, a TOML file with flags over it, CPU from two
runs, the HTML page, and bad input (one line, exit 2)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from dbstor.results.model import CpuStats, Load, Point, Run
from dbstor.results.store import save_run

# fmt: off
FLAGS = [
    "--servers", "10", "--sockets", "2", "--cores-per-server", "12",
    "--cpu-before", "10%", "--cpu-after", "40%", "--ceiling", "80%",
    "--license", "sqlserver-enterprise", "--license-price", "7000", "--support-rate", "25%",
    "--server-support", "1000", "--power", "500", "--space", "300", "--admin", "1200",
    "--legacy-storage-support", "50000", "--storage-price", "300000", "--migration", "20000",
    "--storage-support", "30000", "--discount-rate", "10%",
]
# fmt: on

TOML = """
[servers]
count = 10
sockets = 2
cores_per_server = 12

[cpu]
before = "5%"
after = "37.5%"
ceiling = "80%"

[licence]
model = "oracle-enterprise"
core_factor = 0.5

[storage]
price = 600000
support = 60000
legacy_support = 150000
migration = 50000

[analysis]
example_prices = true
"""


def test_flags_json(dbstor):
    proc = dbstor("tco", *FLAGS, "--json")
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert (result["servers"]["before"], result["servers"]["after"]) == (10, 5)
    assert result["licences"]["retired"] == 60
    assert [f["net"] for f in result["cash_flows"]] == [-320_000, 140_000, 140_000, 140_000]
    assert result["npv"] == pytest.approx(28_159.28, abs=0.01)
    assert result["roi_pct"] == pytest.approx(24.39, abs=0.01)
    assert result["payback_months"] == pytest.approx(27.43, abs=0.01)
    assert any(a.startswith("licence.price = 7,000.00 USD") for a in result["assumptions"])


def test_toml_with_flags_over_it_text_and_html(dbstor, tmp_path):
    (tmp_path / "consolidation.toml").write_text(TOML)
    page = tmp_path / "tco.html"
    proc = dbstor("tco", "consolidation.toml", "--years", "3", "--html", page)
    assert proc.returncode == 0, proc.stderr
    # TR-4415-like: 10 x 37.5% / 80% = 4.69 -> 5 servers; 12 cores x 0.5 = 6 processor
    # licences a server, 30 retired, USD 10,450 support each a year (22% of 47,500)
    assert "Servers: 10 -> 5 (5 retired" in proc.stdout
    assert "6 processor licences per server, 60 -> 30 (30 retired)" in proc.stdout
    assert "licence support for 30 retired processor licences" in proc.stdout
    assert "313,500" in proc.stdout and "ROI " in proc.stdout and "payback" in proc.stdout
    html = page.read_text()
    assert '<section class="dbstor-tco">' in html and "<svg" in html


def without(*flags: str) -> list[str]:
    """FLAGS less the given flags and their values."""
    out, skip = [], False
    for arg in FLAGS:
        if skip:
            skip = False
        elif arg in flags:
            skip = True
        else:
            out.append(arg)
    return out


def _run(folder: Path, cpu: dict[int, float]) -> None:
    points = [
        Point(load=Load("users", u), duration_s=10, cpu=CpuStats(util_pct=c))
        for u, c in cpu.items()
    ]
    save_run(folder, Run(folder.name, "t", {}, {}, {}, {}, {}, {}, "now", points=points))


def test_cpu_from_two_runs(dbstor, tmp_path):
    _run(tmp_path / "legacy", {8: 7.0, 16: 10.0})
    _run(tmp_path / "flash", {8: 22.0, 16: 40.0, 32: 75.0})
    proc = dbstor(
        "tco",
        *without("--cpu-before", "--cpu-after"),
        "--before-run",
        "legacy",
        "--after-run",
        "flash",
        "--json",
    )
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert (result["servers"]["cpu_before_pct"], result["servers"]["cpu_after_pct"]) == (10, 40)
    assert any("matched load point users 16" in a for a in result["assumptions"])
    proc = dbstor("tco", *FLAGS, "--after-run", "flash")
    dbstor.assert_user_error(proc, "--cpu-after or --after-run, not both")


@pytest.mark.parametrize(
    ("change", "needles"),
    [
        (["--cpu-after", "140%"], ["--cpu-after", "outside 0..100%"]),
        (["--ceiling", "250"], ["--ceiling", "outside 0..100%"]),
        (["--storage-price", "-1000"], ["--storage-price must not be negative"]),
        (["--license", "db2"], ["unknown licence model 'db2'", "sqlserver-enterprise"]),
        (["--after-run", "nowhere"], ["not both"]),
        (["missing.toml"], ["missing.toml", "no such file"]),
    ],
)
def test_bad_input_is_one_line_and_exit_2(dbstor, change, needles):
    dbstor.assert_user_error(dbstor("tco", *FLAGS, *change), *needles)


def test_missing_and_unknown_inputs(dbstor, tmp_path):
    dbstor.assert_user_error(dbstor("tco", "--cores-per-server", "12"), "--servers is required")
    (tmp_path / "typo.toml").write_text("[server]\npowr = 600\n")
    dbstor.assert_user_error(dbstor("tco", "typo.toml", *FLAGS), "unknown key server.powr")
    dbstor.assert_user_error(dbstor("tco", *without("--cpu-after")), "--cpu-after is required")


def test_tr_4403_inputs_give_its_10_to_5_at_80_pct(dbstor):
    """TR-4403's own inputs (10 servers of 2 x 6 cores, CPU 10% -> 40%): 10 -> 5 servers
    and half the licences at --ceiling 80%, the load each consolidated server ran."""
    seed = ["--servers", "10", "--cores-per-server", "12", "--cpu-before", "10%"]
    seed += ["--cpu-after", "40%", "--license", "sqlserver-enterprise"]
    proc = dbstor("tco", *seed, "--ceiling", "80%")
    assert proc.returncode == 0, proc.stderr
    assert "Servers: 10 -> 5 (5 retired; 5 needed at 80% CPU at most)" in proc.stdout
    assert "12 core licences per server, 120 -> 60 (60 retired)" in proc.stdout
    proc = dbstor("tco", *seed)  # the default 70% ceiling, and the seed's figure beside it
    assert "Servers: 10 -> 6" in proc.stdout
    assert "other ceilings: 60% 7, 70% 6, 80% 5, 90% 5, 100% 4" in proc.stdout
    dbstor.assert_user_error(
        dbstor("tco", *seed, "--servers", "1e400"), "--servers", "from 1 to 100,000"
    )


def test_no_storage_price_no_roi_or_payback_and_examples_labelled(dbstor, tmp_path):
    """--example-prices without a storage price: no 'payback 0.0 months', no 'ROI -', the
    input it needs named; the example prices are labelled in text, JSON and HTML."""
    args = [*without("--storage-price", "--license-price", "--support-rate"), "--example-prices"]
    page = tmp_path / "tco.html"
    proc = dbstor("tco", *args, "--html", page)
    assert proc.returncode == 0, proc.stderr
    assert not re.search(r"payback (\d|not within)", proc.stdout)
    assert "ROI -" not in proc.stdout
    assert "No ROI, NPV or payback: no storage price: give --storage-price" in proc.stdout
    assert proc.stdout.startswith("EXAMPLE PRICES, not quotes: licence_price, support_rate")
    html = page.read_text()
    assert "Example prices, not quotes:" in html and "payback 0.0" not in html
    assert '<th class="l">payback</th>' not in html and "not computed: no storage price" in html
    result = json.loads(dbstor("tco", *args, "--json").stdout)
    assert result["roi_pct"] is None and result["payback_months"] is None
    assert result["npv"] is None and "--storage-price" in result["needs"]
    assert result["example_prices"] == ["licence_price", "support_rate"]
    priced = json.loads(dbstor("tco", *FLAGS, "--json").stdout)  # a price given: all there
    assert priced["needs"] is None and priced["payback_months"] is not None


def test_cpu_from_runs_saturated_on_both_is_refused(dbstor, tmp_path):
    """Host CPU at 100% before and after is a ceiling, not the demand: no 10 -> 10 case."""
    _run(tmp_path / "legacy", {8: 100.0, 16: 100.0})
    _run(tmp_path / "flash", {8: 99.0, 16: 100.0})
    proc = dbstor(
        "tco", *without("--cpu-before", "--cpu-after"), "--before-run", "legacy",
        "--after-run", "flash",
    )  # fmt: skip
    dbstor.assert_user_error(
        proc,
        "--before-run",
        "the CPU of the whole host was saturated (100%)",
        "--cpu-before/--cpu-after",
    )

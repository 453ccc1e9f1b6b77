"""Consolidation cost case: licence counts, servers needed, NPV, ROI, payback, the whole
cash-flow table by hand, input checks, TOML, CPU from runs, and the HTML section."""

import argparse
from pathlib import Path

import pytest

from dbstor.analysis.tco.cashflow import compute, npv, payback_months, roi, servers_needed
from dbstor.analysis.tco.licences import licences_per_server
from dbstor.analysis.tco.model import resolve
from dbstor.analysis.tco.runs import cpu_from_runs
from dbstor.commands import tco as tco_command
from dbstor.errors import UserError
from dbstor.report.tools.tco import render_tco_section
from dbstor.results.model import CpuStats, Load, Point, Run
from dbstor.results.store import save_run


def parse(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    tco_command.register(parser.add_subparsers())
    return parser.parse_args(["tco", *argv])


# --- licences --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("sockets", "cores", "expected"),
    [
        (2, 12, 12),  # 2 x 6 cores: every core
        (2, 4, 8),  # 2 x 2 cores: at least 4 per processor
        (1, 3, 4),
        (1, 5, 6),  # 5 core licences are sold as three 2-core packs
        (3, 15, 16),
        (2, 10, 10),
    ],
)
def test_sqlserver_core_licences(sockets, cores, expected):
    assert licences_per_server("sqlserver-enterprise", sockets, cores) == expected
    assert licences_per_server("sqlserver-standard", sockets, cores) == expected


@pytest.mark.parametrize(
    ("cores", "factor", "expected"), [(12, 0.5, 6), (10, 0.75, 8), (1, 0.25, 1), (8, 1.0, 8)]
)
def test_oracle_processor_licences(cores, factor, expected):
    assert licences_per_server("oracle-enterprise", 2, cores, factor) == expected


def test_oracle_se2_counts_sockets_and_stops_at_two():
    assert licences_per_server("oracle-standard2", 2, 24) == 2
    with pytest.raises(UserError, match="at most 2 sockets"):
        licences_per_server("oracle-standard2", 4, 24)
    assert licences_per_server("none", 2, 24) == 0
    with pytest.raises(UserError, match="unknown licence model 'db2'"):
        licences_per_server("db2", 2, 24)


# --- formulas --------------------------------------------------------------------------


def test_npv_roi_payback_by_hand():
    # -100 + 60/1.1 + 60/1.21 = -100 + 54.5455 + 49.5868 = 4.1322
    assert npv([-100, 60, 60], 0.10) == pytest.approx(4.132231, abs=1e-6)
    assert npv([-100, 60, 60], 0.0) == 20
    assert roi(300, 200) == 0.5 and roi(100, 0) is None
    assert payback_months([-100, 240]) == pytest.approx(5.0)  # 20 a month
    assert payback_months([-100, 60, 60]) == pytest.approx(20.0)  # 12 + 40/60 x 12
    assert payback_months([0, 10]) == 0 and payback_months([50, -10]) == 0
    assert payback_months([-100, 10, 10]) is None


def test_servers_needed_by_hand():
    assert servers_needed(10, 40, 70) == (6, pytest.approx(5.714, abs=1e-3))
    assert servers_needed(10, 40, 80) == (5, 5.0)  # TR-4403/TR-4415: 10 -> 5
    assert servers_needed(10, 35, 70) == (5, 5.0)
    assert servers_needed(1, 5, 70)[0] == 1
    assert servers_needed(10, 90, 70)[0] == 13


# fmt: off
HAND = [
    "--servers", "10", "--sockets", "2", "--cores-per-server", "12",
    "--cpu-before", "10%", "--cpu-after", "40%", "--ceiling", "80%",
    "--license", "sqlserver-enterprise", "--license-price", "7000", "--support-rate", "25%",
    "--server-support", "1000", "--power", "500", "--space", "300", "--admin", "1200",
    "--legacy-storage-support", "50000", "--storage-price", "300000", "--migration", "20000",
    "--storage-support", "30000", "--discount-rate", "10%",
]
# fmt: on


def test_the_whole_case_by_hand():
    result = compute(resolve(None, parse(*HAND)))
    # 10 x 40% / 80% = 5 servers; 12 core licences each, 60 retired
    assert result["servers"]["after"] == 5 and result["servers"]["retired"] == 5
    assert result["servers"]["cpu_consolidated_pct"] == 80
    assert result["licences"]["retired"] == 60 and result["licences"]["before"] == 120
    # benefits a year: 60 x 7000 x 25% = 105,000 + 5 x 3,000 = 15,000 + 50,000 = 170,000
    # costs: year 0 300,000 + 20,000; then 30,000 a year
    nets = [f["net"] for f in result["cash_flows"]]
    assert nets == [-320_000, 140_000, 140_000, 140_000]
    # NPV at 10%: -320,000 + 140,000 x (1/1.1 + 1/1.21 + 1/1.331) = 28,159.28
    assert result["npv"] == pytest.approx(28_159.28, abs=0.01)
    # ROI: (510,000 - 410,000) / 410,000 = 24.39%
    assert result["roi_pct"] == pytest.approx(24.390, abs=1e-3)
    # payback: 320,000 / (140,000 / 12) = 27.43 months
    assert result["payback_months"] == pytest.approx(27.4286, abs=1e-4)
    assert result["cash_flows"][-1]["cumulative"] == 100_000


def test_avoided_licence_purchase_comes_at_year_0():
    result = compute(resolve(None, parse(*HAND, "--count-license-purchase")))
    assert result["cash_flows"][0]["net"] == -320_000 + 60 * 7000
    assert result["payback_months"] == 0


def test_no_consolidation_when_the_load_needs_more_servers():
    result = compute(resolve(None, parse(*HAND[:-2], "--cpu-after", "90%", "--ceiling", "70%")))
    assert result["servers"]["after"] == 10 and result["servers"]["retired"] == 0
    assert any("needs 13 servers" in n for n in result["notes"])


# --- inputs ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (["--cpu-after", "140%"], "--cpu-after: '140%' is outside 0..100%"),
        (["--ceiling", "101"], "--ceiling: '101' is outside 0..100%"),
        (["--power", "-5"], "--power must not be negative"),
        (["--license", "db2"], "unknown licence model 'db2'"),
        (["--servers", "2.5"], "--servers: '2.5' is not a whole number"),
        (["--cores-per-server", "13"], "not a multiple of --sockets 2"),
        (["--core-factor", "2"], "outside (0, 1]"),
    ],
)
def test_bad_inputs_are_one_line_user_errors(change, message):
    with pytest.raises(UserError) as err:
        resolve(None, parse(*HAND, *change))
    assert message in str(err.value) and "\n" not in str(err.value)


def test_prices_not_given_are_zero_or_the_documented_examples():
    args = ["--servers", "10", "--cores-per-server", "12", "--cpu-after", "40%", "--license"]
    inputs = resolve(None, parse(*args, "oracle-enterprise"))
    assert inputs.licence_price == 0 and inputs.sources["licence_price"] == "not given, taken as 0"
    inputs = resolve(None, parse(*args, "oracle-enterprise", "--example-prices"))
    assert inputs.licence_price == 47_500 and inputs.support_rate == 22
    assert "Oracle Technology Global Price List" in inputs.sources["licence_price"]
    assert inputs.sources["power"].startswith("example: 400 W")
    result = compute(inputs)
    assert any(
        a.startswith("licence.price = 47,500.00 USD (example:") for a in result["assumptions"]
    )


def test_toml_file_and_flags_over_it(tmp_path):
    path = tmp_path / "c.toml"
    path.write_text(
        "[servers]\ncount = 10\nsockets = 2\ncores_per_server = 12\n"
        '[cpu]\nbefore = "10%"\nafter = 40\nceiling = "80%"\n'
        '[licence]\nmodel = "sqlserver-enterprise"\nprice = 7000\nsupport_rate = "25%"\n'
        '[analysis]\nyears = 5\ndiscount_rate = "5%"\n'
    )
    inputs = resolve(path, parse("--years", "4"))
    assert (inputs.servers, inputs.cpu_after, inputs.years, inputs.discount_rate) == (10, 40, 4, 5)
    assert inputs.sources["servers"] == f"from {path}"
    path.write_text("[servers]\ncount = 10\ncolour = 3\n")
    with pytest.raises(UserError, match=r"unknown key servers\.colour"):
        resolve(path, parse())
    path.write_text("[storage]\nprice = -1\n")
    with pytest.raises(UserError, match=r"storage\.price must not be negative"):
        resolve(path, parse())
    with pytest.raises(UserError, match="no such file"):
        resolve(tmp_path / "none.toml", parse())


def _run(folder: Path, cpu: dict[int, float]) -> None:
    points = [
        Point(load=Load("users", u), duration_s=10, cpu=CpuStats(util_pct=c), tps=float(u))
        for u, c in cpu.items()
    ]
    save_run(folder, Run(folder.name, "t", {}, {}, {}, {}, {}, {}, "now", points=points))


def test_cpu_from_two_runs_at_the_matched_load(tmp_path):
    _run(tmp_path / "hdd", {8: 6.0, 16: 10.0, 32: 11.0})
    _run(tmp_path / "flash", {16: 38.0, 32: 41.0, 64: 70.0})
    before, after, how, _points = cpu_from_runs(tmp_path / "hdd", tmp_path / "flash")
    assert (before, after) == (11.0, 41.0) and "matched load point users 32" in how
    _run(tmp_path / "other", {5: 20.0, 7: 30.0})
    before, after, how, _points = cpu_from_runs(tmp_path / "hdd", tmp_path / "other")
    assert (before, after) == (11.0, 30.0) and "peak points" in how


def test_html_section_renders():
    section = render_tco_section(compute(resolve(None, parse(*HAND))))
    assert section.startswith('<section class="dbstor-tco">') and section.endswith("</section>")
    assert "<svg" in section and "27.4 months" in section and "24%" in section
    assert "licence support for 60 retired core licences" in section


@pytest.mark.parametrize(
    ("up_front", "yearly_cost", "yearly_benefit", "roi_pct", "npv_usd"),
    [
        (228_700, 510_100, 967_500, 65, 950_000),  # TR-4403 Table 7
        (1_155_000, 1_755_000, 4_066_000, 90, 4_800_000),  # TR-4415 Table 7
    ],
)
def test_the_reports_table_7_figures_fit_these_formulas(
    up_front, yearly_cost, yearly_benefit, roi_pct, npv_usd
):
    """TR-4403 and TR-4415 give ROI, NPV and a 6-month payback over 3 years but not their
    inputs. Solving the three formulas here for them (8% discount rate) gives one set of
    flows that reproduces all three figures: the definitions hold together."""
    args = parse(
        "--servers",
        "10",
        "--cores-per-server",
        "12",
        "--cpu-after",
        "40%",
        "--ceiling",
        "80%",
        "--license",
        "none",
        "--storage-price",
        str(up_front),
        "--storage-support",
        str(yearly_cost),
        "--legacy-storage-support",
        str(yearly_benefit),
    )
    result = compute(resolve(None, args))
    assert result["servers"]["after"] == 5
    assert result["roi_pct"] == pytest.approx(roi_pct, abs=0.05)
    assert result["npv"] == pytest.approx(npv_usd, rel=2e-4)
    assert result["payback_months"] == pytest.approx(6.0, abs=0.01)


def test_the_documented_tr_4403_like_case():
    """docs/tco.md quotes these figures for tests/fixtures/tco/tr-4403-like.toml."""
    fixture = Path(__file__).parents[2] / "fixtures" / "tco" / "tr-4403-like.toml"
    result = compute(resolve(fixture, parse()))
    assert (result["servers"]["after"], result["licences"]["retired"]) == (5, 60)
    assert round(result["roi_pct"]) == 42 and round(result["npv"]) == 138_437
    assert round(result["payback_months"], 1) == 23.4
    oracle = compute(
        resolve(
            fixture,
            parse("--license", "oracle-enterprise", "--cpu-before", "5%", "--cpu-after", "37.5%"),
        )
    )
    assert oracle["licences"]["retired"] == 30 and round(oracle["roi_pct"]) == 151
    assert round(oracle["npv"]) == 654_056 and round(oracle["payback_months"], 1) == 12.3


# --- TR-4403's own inputs ---------------------------------------------------------------

TR4403 = [
    "--servers", "10", "--sockets", "2", "--cores-per-server", "12",
    "--cpu-before", "10%", "--cpu-after", "40%", "--license", "sqlserver-enterprise",
]  # fmt: skip


def test_tr_4403_10_to_5_servers_and_half_the_licences_at_its_80_pct():
    """TR-4403: 10 servers of 2 x 6 cores at 10% CPU, over 4x (40%) on flash, consolidated
    to 5 ("reducing SQL Server 2014 license costs by 50%"): each of the 5 then runs two of
    the old servers' loads, 2 x 40% = 80%, which is the ceiling that reproduces it."""
    seed = compute(resolve(None, parse(*TR4403, "--ceiling", "80%")))
    s, lic = seed["servers"], seed["licences"]
    assert (s["before"], s["after"], s["retired"]) == (10, 5, 5)
    assert s["cpu_consolidated_pct"] == 80 and s["headroom_factor"] == 4
    assert (lic["before"], lic["after"], lic["retired"]) == (120, 60, 60)
    assert lic["after"] / lic["before"] == 0.5  # the report's 50% of the licence costs
    # the default 70% keeps a margin the seed's steady test did not need: 6 servers; the
    # result lists the seed's 5 at 80% beside it
    default = compute(resolve(None, parse(*TR4403)))
    assert default["servers"]["ceiling_pct"] == 70 and default["servers"]["after"] == 6
    assert default["servers"]["after_by_ceiling"] == {
        "60%": 7, "70%": 6, "80%": 5, "90%": 5, "100%": 4
    }  # fmt: skip


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (["--servers", "1e400"], "--servers: '1e400' is not a whole number from 1 to 100,000"),
        (["--servers", "100001"], "--servers 100,001 is more than 100,000"),
        (["--storage-price", "1e400"], "--storage-price '1e400' is more than 1,000,000,000,000"),
        (["--power", "nan"], "--power: 'nan' is not a number"),
        (["--years", "31"], "--years 31 is more than 30"),
    ],
)
def test_absurd_numbers_name_the_limit(change, message):
    with pytest.raises(UserError) as err:
        resolve(None, parse(*HAND, *change))
    assert message in str(err.value)

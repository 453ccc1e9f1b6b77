"""The consolidation verified (its load, its figures and sentence), the headroom line, the
licences saved over the case's years, and the cost section showing all three."""

from html import unescape

import pytest

from dbstor.analysis.tco.cashflow import licence_savings
from dbstor.analysis.tco.headroom import headroom
from dbstor.analysis.tco.verify import consolidated_load, verify_result
from dbstor.report.document.cost import cost_body
from dbstor.results.model import CpuStats, LatencyStats, Load, Point, Run, Trust


def _point(kind: str, value: float, tps: float, server: float, host: float = 90.0) -> Point:
    return Point(
        Load(kind, value),
        10.0,
        tps=tps,
        read_iops=tps * 3,
        read_lat_ms=LatencyStats(mean=2.0),
        cpu=CpuStats(util_pct=host, server_pct=server, own_pct=server + 5, other_pct=5.0),
    )


@pytest.mark.parametrize(
    ("value", "before", "after", "expected"),
    [(4, 10, 5, 8), (1, 10, 5, 2), (3, 3, 2, 5), (2, 10, 7, 3), (6, 10, 6, 10)],
)
def test_the_consolidated_load_is_the_before_load_times_before_over_after_rounded_up(
    value, before, after, expected
):
    assert consolidated_load(value, before, after) == expected


@pytest.mark.parametrize(("before", "after"), [(10, 10), (5, 10), (10, 0)])
def test_no_consolidated_load_without_fewer_servers(before, after):
    with pytest.raises(ValueError, match="no consolidation"):
        consolidated_load(4, before, after)


def test_the_verify_result_sets_the_servers_cpu_beside_the_before_run_and_the_expected_tps():
    before = _point("instances", 2, tps=1000.0, server=38.0)
    same = _point("instances", 2, tps=1100.0, server=40.0)
    verify = _point("instances", 4, tps=1940.0, server=74.0)
    result = verify_result(
        (10, 5), (before, "LEGACY", "r1"), (same, "FLASH", "r2"), (verify, "FLASH", "r3")
    )
    rows = result["points"]
    assert [r["role"] for r in rows] == ["before", "new storage, same load", "consolidated"]
    assert [r["cpu_pct"] for r in rows] == [38.0, 40.0, 74.0]  # the server's, not the host's 90
    assert rows[0]["cpu_whose"] == "the database server's own processes"
    assert result["tps_expected"] == 2000.0 and result["tps_vs_expected_pct"] == -3.0
    assert result["sentence"] == (
        "After consolidating 10 -> 5 servers (instances 2 -> 4 on each), CPU 38% -> 74%, "
        "TPS 1,940 against the 2,000 the consolidated servers must carry (3.0% below)."
    )
    assert result["notes"] == []


def test_a_verify_point_whose_cpu_cannot_be_trusted_is_not_compared_and_says_why():
    before = _point("users", 4, tps=1000.0, server=38.0)
    saturated = _point("users", 8, tps=2000.0, server=99.0)
    result = verify_result((10, 5), (before, "A", "r1"), (None, "B", ""), (saturated, "B", "r3"))
    assert result["points"][1]["missing"] == "no such point"
    assert "CPU not compared" in result["sentence"] and "(in line)" in result["sentence"]
    assert result["notes"] == [
        "consolidated (B): the CPU of the database server's own processes was saturated "
        "(99%): its CPU is not compared"
    ]


def test_a_drifting_point_keeps_its_tps_with_the_flag_in_words():
    before = _point("users", 4, tps=1000.0, server=38.0)
    drifting = _point("users", 8, tps=1500.0, server=60.0)
    drifting.trust = Trust(steady=False)
    result = verify_result((10, 5), (before, "A", "r1"), (None, "B", ""), (drifting, "B", "r3"))
    assert result["tps_vs_expected_pct"] == -25.0
    # not steady is a flag beside its figures (issue 33), not a reason to drop its CPU
    assert result["sentence"].endswith(
        "CPU 38% -> 60%, TPS 1,500 against the 2,000 the consolidated servers must carry "
        "(25% below; flagged: see the notes)."
    )
    assert result["notes"] == [
        "consolidated (B): flagged not steady: its CPU and TPS stand with the flag"
    ]


def test_a_failed_verify_point_says_it_did_not_finish():
    failed = _point("users", 8, tps=0.0, server=1.0)
    failed.status, failed.error = "failed", "the server stopped"
    result = verify_result(
        (10, 5), (_point("users", 4, 10.0, 5.0), "A", "r"), (None, "B", ""), (failed, "B", "r")
    )
    assert result["tps_vs_expected_pct"] is None
    assert result["sentence"].endswith("the consolidated point did not finish: the server stopped.")


def test_licences_saved_over_the_years_add_the_purchase_avoided_to_the_support():
    # TR-4403's case: 60 SQL Server core licences at 7,561.5 each, 25% support a year, 3 years
    saved = licence_savings(60, 7561.5, 7561.5 * 0.25, 3)
    assert saved["purchase_avoided"] == pytest.approx(453_690.0)
    assert saved["support"] == pytest.approx(340_267.5)
    assert saved["total"] == pytest.approx(793_957.5)


def _run(label: str, kind: str, knee: dict | None, peak: dict, points: list[Point]) -> Run:
    run = Run("r-" + label, "t", {}, {"label": label}, {"name": "postgres"}, {}, {}, {}, "now")
    run.knee, run.peak, run.points = knee, peak, points
    return run


def test_headroom_is_the_new_storages_peak_over_the_baselines_knee():
    peak_point = _point("users", 16, 4000.0, 50.0)
    base = _run("OLD", "users", {"load": 4, "tps": 1000.0, "within_slo": True}, {}, [])
    new = _run("NEW", "users", None, {"load": 16, "tps": 4000.0}, [peak_point])
    room = headroom(base, new, "OLD", "NEW")
    assert room["ratio"] == 4.0
    assert room["sentence"] == (
        "NEW's peak of 4,000 TPS is x4 OLD's knee (1,000 TPS): 300% more than the baseline "
        "carries within its limit: headroom left."
    )
    # the baseline's knee read from a drifting point: stated, with the flag beside it
    knee_points = [_point("users", 2, 900.0, 20.0), _point("users", 8, 1100.0, 40.0)]
    knee_points[1].trust = Trust(steady=False)
    drifting = _run("OLD", "users", {"load": 4, "tps": 1000.0, "within_slo": True}, {}, knee_points)
    assert headroom(drifting, new, "OLD", "NEW")["sentence"].endswith(
        "headroom left (flagged: OLD's point at users 8: not steady)."
    )
    peak_point.trust = Trust(steady=False)
    assert headroom(base, new, "OLD", "NEW")["sentence"].endswith(
        "(flagged: NEW's peak: not steady)."
    )
    peak_point.engine_io = {"device_reads_per_txn": 0.001}  # from memory: it cannot carry it
    assert "from memory" in headroom(base, new, "OLD", "NEW")["missing"]
    # every load within the limit: no knee was reached, and the sentence does not say one was
    beyond = _run("OLD", "users", {"load": 4, "tps": 1000.0, "beyond_last": True}, {}, [])
    peak_point.trust, peak_point.engine_io = Trust(), None
    assert (
        "x4 OLD's most within its limit (1,000 TPS)"
        in headroom(beyond, new, "OLD", "NEW")["sentence"]
    )
    no_knee = _run("OLD", "users", None, {}, [])
    assert headroom(no_knee, new, "OLD", "NEW") == {
        "missing": "OLD has no knee within its latency limit to measure from"
    }


def test_the_cost_section_shows_licences_saved_headroom_and_the_verified_consolidation():
    verify = verify_result(
        (10, 5),
        (_point("instances", 2, 1000.0, 38.0), "LEGACY", "r1"),
        (None, "FLASH", ""),
        (_point("instances", 4, 2010.0, 74.0), "FLASH", "r3"),
    )
    tco = {
        "currency": "USD",
        "years": 3,
        "servers": {"before": 10, "after": 5, "retired": 5, "cpu_before_pct": 38.0},
        "licences": {"before": 120, "after": 60, "retired": 60, "unit": "core licence"},
        "licence_savings": licence_savings(60, 7561.5, 1890.375, 3),
        "benefits": [],
    }
    room = {"sentence": "FLASH's peak of 4,000 TPS is x4 LEGACY's knee."}
    html = unescape(cost_body({"tco": tco, "consolidation": verify, "headroom": room}))
    assert "licences saved over 3 years" in html and "USD 793,958" in html
    assert "purchase of 60 core licences avoided USD 453,690" in html
    assert "counts the support only" in html  # the purchase is not in the cash flow here
    assert "FLASH's peak of 4,000 TPS is x4 LEGACY's knee." in html
    assert "Consolidation verified" in html and "CPU 38% -> 74%" in html
    assert "(0.5% above)" in html
    missing = cost_body({"tco": {"missing": "no CPU"}, "consolidation": {"missing": "it failed"},
                         "headroom": {"missing": "OLD has no knee"}})  # fmt: skip
    assert "Not computed: no CPU." in missing and "Not run: it failed." in missing
    assert "<b>Headroom</b>: not stated: OLD has no knee." in missing


def test_the_terminal_and_the_json_carry_the_licences_saved_over_the_years():
    import argparse

    from dbstor.analysis.tco.cashflow import compute
    from dbstor.analysis.tco.model import resolve
    from dbstor.commands import tco as tco_command

    parser = argparse.ArgumentParser()
    tco_command.register(parser.add_subparsers())
    args = parser.parse_args(["tco", "--servers", "10", "--cores-per-server", "12",
                              "--license", "sqlserver-enterprise", "--cpu-before", "20%",
                              "--cpu-after", "38%", "--ceiling", "80%", "--example-prices"])  # fmt: skip
    result = compute(resolve(None, args))
    assert result["licence_savings"]["retired"] == result["licences"]["retired"] == 60
    assert result["licence_savings"]["total"] == pytest.approx(793_957.5)
    text = tco_command.format_text(result)
    assert (
        "Licences saved over 3 years: 793,958 USD (purchase avoided 453,690 USD + support "
        "340,268 USD)" in text
    )


def _sure(point: Point, wobble: float) -> Point:
    """The point with its throughput's spread from 20 per-second figures."""
    from dbstor.analysis.interval import from_seconds

    tps = point.tps or 0.0
    seconds = [tps + wobble * (1 if i % 3 else -2) for i in range(20)]
    point.uncertainty = {"tps": from_seconds(seconds).to_dict()}
    return point


def test_the_verify_and_the_headroom_carry_their_interval_and_say_when_it_includes_no_change():
    before = _sure(_point("instances", 2, tps=1000.0, server=38.0), 5.0)
    tight = _sure(_point("instances", 4, tps=1940.0, server=74.0), 10.0)
    result = verify_result((10, 5), (before, "L", "r1"), (None, "F", ""), (tight, "F", "r3"))
    low, high = result["tps_vs_expected_interval_pct"]
    assert low < -3.0 < high < 0
    assert "(3.0% below, " in result["sentence"] and "own spread" not in result["sentence"]
    loose = _sure(_point("instances", 4, tps=1940.0, server=74.0), 300.0)
    result = verify_result((10, 5), (before, "L", "r1"), (None, "F", ""), (loose, "F", "r3"))
    assert result["sentence"].endswith("in line within the points' own spread).")
    knee = [_sure(_point("users", 4, 1000.0, 20.0), 5.0)]
    base = _run("OLD", "users", {"load": 4, "tps": 1000.0, "within_slo": True}, {}, knee)
    peak = _sure(_point("users", 16, 1050.0, 50.0), 200.0)
    new = _run("NEW", "users", None, {"load": 16, "tps": 1050.0}, [peak])
    room = headroom(base, new, "OLD", "NEW")
    assert room["interval"][0] < 1 < room["interval"][1]
    assert "its interval includes 1" in room["sentence"]

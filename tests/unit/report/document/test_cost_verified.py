"""The verified consolidation in the document: a summary finding linking the cost section,
and the cost section's own table and sentence."""

from html import unescape

from dbstor.analysis.tco.verify import verify_result
from dbstor.report.html import render_report
from dbstor.results.model import CpuStats, Load, Point


def _point(value: float, tps: float, server: float) -> Point:
    cpu = CpuStats(util_pct=90.0, server_pct=server, own_pct=server + 5, other_pct=5.0)
    return Point(Load("instances", value), 10.0, tps=tps, read_iops=tps * 3, cpu=cpu)


def test_the_summary_states_the_verified_consolidation_and_links_the_cost_section(fc):
    verify = verify_result(
        (10, 5),
        (_point(2, 1000.0, 38.0), "LEGACY", "r1"),
        (None, "FLASH", ""),
        (_point(4, 1940.0, 74.0), "FLASH", "r3"),
    )
    html = unescape(
        render_report([fc], analyses={"tco": {"missing": "x"}, "consolidation": verify})
    )
    summary = html.split('id="summary"')[1].split("</section>")[0]
    assert verify["sentence"] in summary and 'href="#cost"' in summary
    cost = html.split('id="cost"')[1].split("</section>")[0]
    assert "Consolidation verified" in cost and verify["sentence"] in cost

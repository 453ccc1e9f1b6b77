"""The document's "Workloads together" section and the terminal's mix table, from
comparison.json's "mix" (analysis/mix.py)."""

import io

from rich.console import Console

from dbstor.analysis.mix import mix_comparison
from dbstor.report.document.mix import mix_body
from dbstor.report.html import render_report
from dbstor.report.mix_console import print_mix
from dbstor.results.model import DeviceStats, LatencyStats, Load, Point, Run

MB = 1_000_000


def _point(tps, p99, own_mb, device_mbps, seconds=10.0):
    return Point(
        load=Load(kind="users", value=4),
        duration_s=seconds,
        tps=tps,
        read_iops=500.0,
        txn_lat_ms=LatencyStats(mean=p99 / 4, p50=p99 / 5, p95=p99 / 2, p99=p99),
        device=DeviceStats(name="loop9", read_mbps=device_mbps, write_mbps=0.0),
        own_io={"read_bytes": own_mb * MB, "write_bytes": 0, "writes_counted": "all writes"},
    )


def _run(run_id, workload, point, alone=None):
    together = None
    if alone:
        together = {
            "workloads": ["brokerage", "orders"],
            "runs": {},
            "target": "ARRAY <1>",
            "workload": workload,
            "alone": alone,
        }
    return Run(
        run_id=run_id, tool_version="t", study={"name": "s"}, target={"label": "ARRAY <1>"},
        engine={"name": "postgres"}, workload={"name": workload}, host={},
        slo={"metric": "txn_lat_p99_ms", "limit_ms": 5.0}, created_at="", points=[point],
        together=together,
    )  # fmt: skip


RUNS = [
    _run("b", "brokerage", _point(1000, 4.0, 300, 30.0)),
    _run("o", "orders", _point(800, 5.0, 300, 30.0)),
    _run("b-mix", "brokerage", _point(500, 9.2, 400, 100.0), "b"),
    _run("o-mix", "orders", _point(600, 6.0, 500, 100.0, 4.0), "o"),
]


def test_the_section_says_each_workload_together_beside_alone_and_its_share():
    html = mix_body(mix_comparison(RUNS))
    assert "brokerage + orders together on ARRAY &lt;1&gt;" in html  # user text escaped
    assert "brokerage transaction p99 x2.3 while orders ran (throughput x0.5)" in html
    assert "orders transaction p99 x1.2 while brokerage ran" in html
    assert "The device moved 953.7 MiB over the 10 s window (brokerage's, the widest)" in html
    assert "brokerage 40%, orders 50%, the rest 10%" in html
    assert "orders&#x27;s point lasted 4 s of brokerage&#x27;s 10 s" in html
    assert "<svg" in html and "brokerage 4 users: transaction p99" in html


def test_a_study_with_only_a_mix_to_compare_renders_it_in_its_own_section():
    comparison = {"mix": mix_comparison(RUNS)}
    page = render_report(RUNS, {r.run_id: [] for r in RUNS}, comparison, "s")
    assert 'id="mix"' in page and 'id="comparison"' not in page
    assert page.index('id="results"') < page.index('id="mix"') < page.index('id="appendix"')
    summary = page[page.index('id="summary"') : page.index('id="configuration"')]
    assert "brokerage transaction p99 x2.3 while orders ran (throughput x0.5) on ARRAY" in summary


def test_the_terminal_prints_the_same_figures():
    out = io.StringIO()
    print_mix(mix_comparison(RUNS), Console(file=out, width=100))
    text = out.getvalue()
    assert "brokerage transaction p99 x2.3 while orders ran" in text
    assert "40%" in text and "50%" in text and "orders's point lasted 4 s" in text


def test_shares_adding_up_past_the_whole_are_said_to_not_trimmed():
    groups = mix_comparison(RUNS)
    total = groups[0]["device"][0]
    total["shares"], total["sum"], total["rest"] = {"brokerage": 0.6, "orders": 0.46}, 1.06, 0.0
    html = mix_body(groups)
    assert "brokerage 60%, orders 46%, together 106%: the members&#x27; windows" in html
    assert "the rest" not in html.split("The device moved")[1]

"""Query runs (dss) in the report and in comparisons: TR-3476's figures per query, the
tables, cold and warm, and targets compared on total elapsed time with the baseline at 100.

The runs are built here with TR-3476's totals (FC 2131.1 s, iSCSI 2389.9 s over six
queries), split over the queries in fixed shares."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from typing import Any

import pytest

from dbstor.analysis.compare import compare_runs
from dbstor.analysis.dss_compare import compare_query_runs, is_query_run
from dbstor.analysis.interval import repeat_uncertainty
from dbstor.report.html import render_report
from dbstor.results.model import CpuStats, Load, Point, Run, run_from_dict

SVG_BLOCK = re.compile(r"<svg\b.*?</svg>", re.S)
SIX = [
    (6, "Profit Enhancement", "PE", "Forecasting Revenue Change"),
    (2, "Cost-Efficient Suppliers", "CE", "Minimum Cost Supplier"),
    (9, "Specified Product Profit", "SP", "Product Type Profit Measure"),
    (1, "Pricing Summary", "PS", "Pricing Summary Report"),
    (3, "Unshipped Order Summary", "UO", "Shipping Priority"),
    (12, "Late Received Orders", "LR", "Shipping Modes and Order Priority"),
]
SHARES = (0.20, 0.10, 0.25, 0.20, 0.15, 0.10)


def query(n: int, seconds: float, stream: int = 0, status: str = "ok", **extra: Any) -> dict:
    number, tr3476, code, title = next(q for q in SIX if q[0] == n)
    return {
        "stream": stream,
        "position": 1,
        "number": number,
        "name": f"Q{number}",
        "title": title,
        "tr3476": tr3476,
        "tr3476_code": code,
        "status": status,
        "error": None if status == "ok" else extra.pop("error", "boom"),
        "elapsed_s": seconds,
        "rows": 4 if status == "ok" else None,
        "read_mbps": extra.pop("read_mbps", 100.0),
        "read_iops": 800.0,
        "write_mbps": 0.0,
        "read_mb": 100.0 * seconds,
        "cpu_pct": extra.pop("cpu_pct", 50.0),
        "iowait_pct": 5.0,
        "cache": extra.pop("cache", "warm"),
        **extra,
    }


def point(streams: int, queries: list[dict], total: float, read_mbps: float = 120.0) -> Point:
    ok = [q for q in queries if q["status"] == "ok"]
    return Point(
        load=Load("streams", streams, streams),
        duration_s=total,
        tps=len(ok) / total,
        read_mbps=read_mbps,
        read_iops=900.0,
        cpu=CpuStats(util_pct=60.0),
        workload_metrics={
            "total_elapsed_s": total,
            "queries_per_hour": len(ok) * 3600 / total,
            "geomean_s": 10.0,
            "queries": len(queries),
            "queries_ok": len(ok),
            "queries_failed": sum(q["status"] == "failed" for q in queries),
            "queries_timeout": sum(q["status"] == "timeout" for q in queries),
        },
        queries=queries,
    )


def query_run(label: str, total: float, streams=(1,), cache: str = "warm", **kw: Any) -> Run:
    points = []
    for s in streams:
        if s == 1:
            qs = [
                query(n, total * share, cache=cache)
                for (n, *_), share in zip(SIX, SHARES, strict=True)
            ]
        else:
            qs = [
                query(n, total * share * 1.5, stream=k, cache=cache)
                for k in range(1, s + 1)
                for (n, *_), share in zip(SIX, SHARES, strict=True)
            ]
        points.append(point(s, qs, total if s == 1 else total * 1.6))
    return Run(
        run_id=f"{label.lower()}-dss",
        tool_version="0.1.0",
        study={"name": "TR-3476"},
        target={"label": label, "facts": {"protocol": label}},
        engine={"name": "duckdb", "title": "DuckDB", "version": "1.2", "managed": True},
        workload={
            "name": "dss",
            "kind": "queries",
            "title": "Decision support (TPC-H-like)",
            "scale": kw.get("scale", 1),
            "cache": cache,
            "series": {"kind": "streams", "values": list(streams)},
            "queries": [
                {"number": n, "name": f"Q{n}", "title": t, "tr3476": tr, "tr3476_code": c}
                for n, tr, c, t in SIX
            ],
            "load": [
                {
                    "instance": 0,
                    "rows": 8_661_245,
                    "seconds": 30.1,
                    "rows_per_s": 287_909,
                    "bytes": 362_000_000,
                    "mb_per_s": 12.0,
                }
            ],
            "database_bytes": 281_000_000,
        },
        host={"cpus": 2},
        slo={"metric": None, "limit_ms": None},
        created_at="2026-01-01T00:00:00+00:00",
        points=points,
        status="complete",
    )


def svgs(html: str) -> list[ET.Element]:
    return [ET.fromstring(block) for block in SVG_BLOCK.findall(html)]


# --- the comparison --------------------------------------------------------------------


def test_tr3476_totals_normalise_to_112():
    fc, iscsi = query_run("FC", 2131.1), query_run("ISCSI", 2389.9)
    comparison = compare_query_runs([fc, iscsi], "FC")
    assert comparison["kind"] == "dss" and comparison["baseline"] == "FC"
    assert comparison["comparable"] and comparison["warnings"] == []
    assert comparison["basis_streams"] == 1 and comparison["lower_is_better"]
    base, other = comparison["runs"]
    assert base["normalised"]["total_elapsed_s"] == pytest.approx(100.0)
    assert other["normalised"]["total_elapsed_s"] == pytest.approx(2389.9 / 2131.1 * 100)
    assert round(other["normalised"]["total_elapsed_s"]) == 112
    assert other["values"]["total_elapsed_s"] == 2389.9
    assert comparison["factors"][0]["text"].startswith("total elapsed 112 (12% longer)")
    q9 = next(q for q in comparison["queries"] if q["name"] == "Q9")
    assert q9["values"]["FC"] == pytest.approx(2131.1 * 0.25)
    assert q9["normalised"]["ISCSI"] == pytest.approx(2389.9 / 2131.1 * 100)
    assert [q["name"] for q in comparison["queries"]] == ["Q6", "Q2", "Q9", "Q1", "Q3", "Q12"]
    json.dumps(comparison, allow_nan=False)  # comparison.json takes it as is


def test_compare_runs_hands_query_runs_to_the_query_comparison():
    runs = [query_run("FC", 100.0), query_run("ISCSI", 93.0)]
    comparison = compare_runs(runs, "ISCSI")
    assert comparison["kind"] == "dss" and comparison["baseline"] == "ISCSI"
    fc = next(r for r in comparison["runs"] if r["label"] == "FC")
    assert fc["normalised"]["total_elapsed_s"] == pytest.approx(100 / 93 * 100)
    assert "shorter" not in comparison["factors"][0]["text"]


def test_compared_at_the_lowest_shared_streams_count_with_warnings():
    a = query_run("A", 100.0, streams=(1, 2))
    b = query_run("B", 80.0, streams=(2,), cache="cold", scale=10)
    comparison = compare_query_runs([a, b])
    assert comparison["basis_streams"] == 2
    assert [r["basis"] for r in comparison["runs"]] == ["throughput run, 2 streams"] * 2
    assert comparison["runs"][1]["normalised"]["total_elapsed_s"] == pytest.approx(80.0)
    text = " ".join(comparison["warnings"])
    assert "scale" in text and "cold or warm" in text
    assert [m["load"]["value"] for m in comparison["matched"]] == [2]
    # a query's figure in a throughput run is its mean over the streams
    q6 = next(q for q in comparison["queries"] if q["name"] == "Q6")
    assert q6["values"]["A"] == pytest.approx(100.0 * 0.20 * 1.5)


def test_runs_without_a_shared_point_are_not_comparable():
    comparison = compare_query_runs(
        [query_run("A", 10.0, streams=(1,)), query_run("B", 10.0, streams=(4,))]
    )
    assert comparison["comparable"] is False and comparison["basis_streams"] is None


def test_a_failed_query_has_no_ratio():
    fc, iscsi = query_run("FC", 100.0), query_run("ISCSI", 110.0)
    iscsi.points[0].queries[2] = query(9, 50.0, status="timeout", error="over the timeout")
    comparison = compare_query_runs([fc, iscsi])
    q9 = next(q for q in comparison["queries"] if q["name"] == "Q9")
    assert q9["values"]["ISCSI"] is None and q9["normalised"]["ISCSI"] is None


def test_query_runs_are_recognised():
    assert is_query_run(query_run("FC", 1.0))
    stored = run_from_dict(json.loads(json.dumps(query_run("FC", 1.0).to_dict())))
    assert is_query_run(stored) and stored.points[0].queries[0]["tr3476_code"] == "PE"


def test_oltp_runs_keep_their_comparison(fc, iscsi):
    assert not is_query_run(fc)
    assert "kind" not in compare_runs([fc, iscsi])


# --- the report ------------------------------------------------------------------------


def test_single_query_run_report_follows_tr3476_figures():
    run = query_run("FC", 2131.1, streams=(1, 2))
    html = render_report([run])
    for title in ("Elapsed time per query", "Disk read MB/s per query", "Host CPU per query"):
        assert title in html
    assert "Q6 PE" in html and "Q12 LR" in html  # bars labelled by query and TR-3476 code
    assert "Profit Enhancement" in html and "Forecasting Revenue Change" in html
    assert "power run (warm)" in html and "throughput run, 2 streams (warm)" in html
    assert "Warm: one unmeasured power run filled the caches" in html
    assert "2,131" in html  # the power run's total elapsed seconds
    assert "Most queries per hour" in html
    assert "Transactions against latency" not in html and "knee" not in html.lower()
    assert "Query runs (decision support)" in html
    assert "8,661,245" in html  # the load table
    for svg in svgs(html):
        assert svg.get("viewBox")
    elapsed = next(s for s in svgs(html) if "Elapsed time per query" in ET.tostring(s, "unicode"))
    assert len(elapsed.findall(".//{http://www.w3.org/2000/svg}rect")) == 12  # 6 queries x 2


def test_cold_failed_query_and_running_point_are_labelled():
    run = query_run("FC", 100.0, cache="cold")
    run.points[0].queries[1] = query(
        2, 3.0, status="failed", error="<script>x</script>", cache="cold"
    )
    run.points[0].trust.notes = ["cold: DuckDB restarted, 3 files (281 MB) dropped"]
    running = point(1, [query(6, 1.0, cache="cold")], 1.0)
    running.status = "running"
    run.points.append(running)
    run.status = "running"
    html = render_report([run])
    assert "Cold: before each point the engine restarted" in html
    assert "power run (cold)" in html and "cold: DuckDB restarted" in html
    assert "failed: &lt;script&gt;x&lt;/script&gt;" in html and "<script>" not in html
    assert "still running" in html


def test_memory_note_is_shown_for_warm_runs():
    run = query_run("FC", 10.0)
    run.points[0].trust.notes = ["memory served most reads: the device read 0.1 MB"]
    html = render_report([run])
    assert 'class="callout memory">Memory served most reads' in html


def test_study_report_compares_targets_on_total_elapsed():
    fc, iscsi = query_run("FC", 2131.1), query_run("ISCSI", 2389.9)
    comparison = compare_runs([fc, iscsi], "FC")
    html = render_report([fc, iscsi], comparison=comparison, title="TR-3476")
    assert "Comparison against FC (baseline = 100, lower is better)" in html
    assert "Elapsed time relative to FC = 100 (lower is better)" in html
    assert "ISCSI vs FC</b>: total elapsed 112 (12% longer)" in html
    assert "2,390 (112)" in html and "2,131 (100)" in html
    assert "Elapsed time per query: across targets" in html
    assert html.count("Relative to FC = 100") == 0  # not the OLTP comparison chart


def test_fio_and_query_runs_in_one_report(fc, samples):
    dss = query_run("FC", 50.0)
    html = render_report([fc, dss], samples)
    assert "IOPS against latency" in html  # fio's curve stays
    assert "Elapsed time per query" in html
    assert "The database on the storage" not in html  # a query run is not placed on the curve
    for svg in svgs(html):
        assert svg.get("viewBox")


def test_terminal_summary_and_comparison():
    from rich.console import Console

    from dbstor.report.queries.console import print_dss_comparison, print_dss_summary

    fc, iscsi = query_run("FC", 2131.1), query_run("ISCSI", 2389.9)
    iscsi.points[0].queries[0] = query(6, 9.0, status="timeout", error="over the query timeout")
    console = Console(record=True, width=120)
    print_dss_summary(iscsi, console)
    print_dss_comparison(compare_runs([fc, iscsi], "FC"), console)
    text = console.export_text()
    assert "power run (warm)" in text and "2,390" in text
    assert "Q6 timeout: over the query timeout" in text
    assert "Compared with FC (= 100, lower elapsed is better)" in text
    assert "2,390 (112)" in text and "ISCSI vs FC: total elapsed 112 (12% longer)" in text


def test_the_document_summarises_query_runs_with_their_totals():
    fc, iscsi = query_run("FC", 2131.1), query_run("ISCSI", 2389.9)
    html = render_report([fc, iscsi], comparison=compare_query_runs([fc, iscsi], "FC"))
    summary = html[html.index('id="summary"') : html.index('id="configuration"')]
    assert "total elapsed 112 (12% longer)" in summary  # the comparison leads
    assert "FC ran its 6 queries in 2,131 s in all" in summary
    assert "ISCSI ran its 6 queries in 2,390 s in all" in summary
    links = re.findall(r'href="#([\w-]+)"', summary)
    assert set(links) <= set(re.findall(r'id="([\w-]+)"', html))


def test_a_query_shorter_than_two_clock_ticks_has_no_cpu_figure():
    """A 5 ms query read 0% CPU (one idle tick) beside a 10.5 ms one at 100%: neither is
    a measurement; the table and the chart show none, longer queries keep theirs."""
    from dbstor.analysis.dss_compare import per_query, query_figure

    short = query(1, 0.0054, cpu_pct=0.0)
    tick = query(2, 0.0105, cpu_pct=100.0)
    long = query(3, 0.5, cpu_pct=42.0)
    assert [query_figure(q, "cpu_pct") for q in (short, tick, long)] == [None, None, 42.0]
    assert query_figure(short, "elapsed_s") == 0.0054  # only CPU is counted in ticks
    run = query_run("FC", 100.0)
    run.points[0].queries = [short, tick, long]
    assert per_query(run.points[0], "cpu_pct") == {"Q3": 42.0}
    table = render_report([run]).split('id="appendix"')[0]
    assert ">0%<" not in table and ">100%<" not in table and ">42%<" in table


def test_a_short_query_run_s_limit_speaks_of_queries_not_load_points():
    """'Each load point ran at most 0.053 s: enough to rank the targets' for one DuckDB
    power run: it has no load points held for a time, and no targets to rank."""
    html = render_report([query_run("FC", 0.053)])
    conclusion = html.split('id="conclusion"')[1].split('id="appendix"')[0]
    assert "The queries took at most 0.053 s a run" in conclusion
    assert "Each load point ran" not in conclusion and "rank the targets" not in conclusion


def test_a_query_run_s_method_says_it_is_timed_and_how_it_warmed_up():
    """'each point 0.053 s, warm-up 0 s' under a card saying one unmeasured power run
    filled the caches."""
    run = query_run("FC", 0.053)
    run.workload["warmup"] = {"queries": 6, "not_ok": 0, "seconds": 0.023}
    html = render_report([run])
    assert '<th scope="row">each point</th><td>timed, not held: 0.053 s</td>' in html
    assert '<th scope="row">warm-up</th><td>one unmeasured power run (0.023 s)</td>' in html
    cold = query_run("FC", 0.053, cache="cold")
    assert "<td>none: the engine restarted and its files dropped from the page cache</td>" in (
        render_report([cold])
    )


def _with_repeats(run: Run, totals: list[float]) -> Run:
    """The run's power run as if measured len(totals) times (combine_repeats' figures)."""
    from dbstor.runs.repeats import repeat_figures

    repeats = []
    for total in totals:
        one = point(1, run.points[0].queries, total)
        repeats.append(one)
    run.points[0].uncertainty = repeat_uncertainty(repeat_figures(repeats))
    return run


def test_query_factors_carry_the_repeats_interval_and_say_when_it_includes_no_change():
    fc = _with_repeats(query_run("FC", 2131.1), [2100.0, 2131.1, 2160.0])
    iscsi = _with_repeats(query_run("ISCSI", 2389.9), [2350.0, 2389.9, 2430.0])
    comparison = compare_query_runs([fc, iscsi], "FC")
    low, high = comparison["runs"][1]["intervals"]["total_elapsed_s"]
    assert 100 < low < 112 < high
    text = comparison["factors"][0]["text"]
    assert text.startswith("total elapsed 112 (12% longer; ")
    assert "queries/h x0.89 (" in text
    noisy = _with_repeats(query_run("ISCSI", 2389.9), [1900.0, 2389.9, 2900.0])
    text = compare_query_runs([fc, noisy], "FC")["factors"][0]["text"]
    assert text.startswith("total elapsed 112 (no difference beyond the repeats' own spread; ")
    plain = compare_query_runs([query_run("FC", 2131.1), query_run("ISCSI", 2389.9)], "FC")
    assert plain["factors"][0]["text"].endswith("repeats give one)")


def test_a_held_query_run_s_document_says_how_its_points_ran():
    """Points held until steady in rounds: the method says so per point (steady, not steady,
    too few rounds to judge), the how-to explains the rounds, a cold run's callout says
    each round was made cold."""
    run = query_run("FC", 0.053, streams=(1, 2, 4), cache="cold")
    verdicts = ((True, 4, 3.2), (False, 5, 9.8), (None, 2, 9.1))
    for p, (steady, rounds, ran) in zip(run.points, verdicts, strict=True):
        p.trust.steady, p.trust.rounds, p.trust.ran_s, p.trust.max_s = steady, rounds, ran, 10.0
    html = re.sub(r"\s+", " ", render_report([run]))
    assert "timed, its queries run in rounds until steady; the last round measured" in html
    assert (
        "at most 10 s; 1 of 3 steady (ran 3 s); not steady within it: 2 streams (ran 10 s); "
        "too short to judge: 4 streams (2 rounds, ran 9 s)"
    ) in html
    assert "<b>Held until steady</b>: a query point runs its whole query set in rounds" in html
    assert "before each point and each of its rounds the engine restarted" in html
    unheld = re.sub(r"\s+", " ", render_report([query_run("FC", 0.053, cache="cold")]))
    assert "<b>Held until steady</b>" not in unheld and "each of its rounds" not in unheld


def test_a_query_factor_on_a_point_that_never_got_steady_stands_with_the_flag_beside_it():
    fc, iscsi = query_run("FC", 2131.1), query_run("ISCSI", 2389.9)
    iscsi.points[0].trust.steady = False  # held until steady and never got there
    text = compare_query_runs([fc, iscsi], "FC")["factors"][0]["text"]
    assert text.startswith("total elapsed 112 (12% longer)")
    assert text.endswith("(flagged: ISCSI's power run: not steady)")
    fc.points[0].trust.steady = None  # not judged (one round): no flag
    iscsi.points[0].trust.steady = True
    assert "flagged" not in compare_query_runs([fc, iscsi], "FC")["factors"][0]["text"]

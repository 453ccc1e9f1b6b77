"""The HTML report of database runs, and of the default study (fio and a database on one
target): the overlay, the memory callout, transaction types, engine facts, None tolerance."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from dbstor.report.database.memory import memory_sentence
from dbstor.report.database.overlay import overlay_caption, overlays
from dbstor.report.html import render_report
from dbstor.report.kit.figures import run_names
from dbstor.results.model import LatencyStats, Run
from dbstor.results.store import read_samples

GOLDEN = Path(__file__).resolve().parents[3] / "golden"

SVG_BLOCK = re.compile(r"<svg\b.*?</svg>", re.S)
NS = "{http://www.w3.org/2000/svg}"


def svgs(html: str) -> list[ET.Element]:
    return [ET.fromstring(block) for block in SVG_BLOCK.findall(html)]


def svg_titled(html: str, start: str) -> ET.Element:
    for svg in svgs(html):
        first = next(svg.iter(f"{NS}text"))
        if (first.text or "").startswith(start):
            return svg
    raise AssertionError(f"no chart titled {start!r}")


def words(svg: ET.Element) -> list[str]:
    return [t.text or "" for t in svg.iter(f"{NS}text")]


def caption(runs: list[Run]) -> str:
    names = dict(zip([r.run_id for r in runs], run_names(runs), strict=True))
    (overlay,) = overlays(runs)
    return overlay_caption(overlay, names)


# --- the default study: the database on the storage's curve ---------------------------


def steady(run: Run) -> Run:
    """The run with every point steady (the golden io-oltp's QD8, its knee, is flagged)."""
    for point in run.points:
        point.trust.steady = True
    return run


def test_overlay_comes_first_with_a_caption_from_the_data(default_pair):
    runs, samples = default_pair
    steady(runs[0])
    html = render_report(runs, samples)
    assert "<h3>The database on the storage's curve</h3>" in html
    top = html.index('<div class="overlay">')  # first of the results, after summary and method
    assert html.index('id="summary"') < html.index("How to read this report") < top
    assert html.index('id="results"') < top < html.index("<h3>IOPS against latency</h3>")
    assert "<b>The database on the storage's curve</b>: the line is" in html  # how-to
    assert (
        "At 8 users the database drove 1,050 IOPS (almost all writes), 2% of the storage&#x27;s "
        "peak of 56,388 IOPS: it runs far below the storage&#x27;s knee (54,770 IOPS at QD8)."
    ) in html
    assert (
        "At 1 user (569 IOPS) the device saw no reads, so it has no read await and is not on "
        "the chart."
    ) in html
    assert (
        "Its reads came from memory: 0.0009 device reads per transaction (hit ratio 99.996%). "
        "The storage&#x27;s read latency barely touched its transactions."
    ) in html


def test_overlay_chart_draws_the_curve_the_points_and_the_knee(default_pair):
    runs, samples = default_pair
    unsteady = words(svg_titled(render_report(runs, samples), "dbstor-data: the storage"))
    assert not [w for w in unsteady if "knee" in w]  # QD8 not steady: the text refuses it
    chart = svg_titled(
        render_report([steady(runs[0]), runs[1]], samples), "dbstor-data: the storage"
    )
    labels = words(chart)
    assert {"QD1", "QD64", "2 users", "4 users", "8 users"} <= set(labels)
    # the highest IOPS within the SLO, measured at QD8; no longer interpolated at QD14 on a
    # segment where the curve ran backwards (53,965 IOPS, beaten by QD8's 54,770)
    assert "storage knee 54,770 IOPS (p99 read ≤ 1 ms)" in labels
    assert "total IOPS at the device (reads + writes), log scale" in labels
    assert {"100", "1K", "10K", "100K"} <= set(labels)
    legend = " ".join(labels)
    assert "storage, fio io-oltp: mean read latency" in legend
    assert "database, SQLite brokerage: device mean read await" in legend
    squares = [r for r in chart.iter(f"{NS}rect") if r.find(f"{NS}title") is not None]
    assert len(squares) == 3  # one marker per database point with reads: none at 0 ms
    assert "1 user" not in labels  # no reads at 1 user: no read await to place it by
    orange = [p for p in chart.iter(f"{NS}path") if p.get("stroke") == "#D55E00"]
    assert orange == []  # operating points, not a line


def test_overlay_only_when_fio_and_database_share_a_target(default_pair, fc, sqlite_run):
    runs, _ = default_pair
    assert len(overlays(runs)) == 1
    runs[1].target["label"] = "elsewhere"
    assert overlays(runs) == []
    html = render_report(runs)
    assert 'class="overlay"' not in html and "storage's curve" not in html
    assert overlays([fc, sqlite_run]) == [] and overlays([sqlite_run]) == []
    assert 'class="overlay"' not in render_report([fc, sqlite_run])


@pytest.mark.parametrize(
    ("writes", "relation"),
    [
        (30_000, "it runs below the storage's knee"),
        (50_000, "it runs close to the storage's knee"),
        (70_000, "it runs past the storage's knee (54,770 IOPS at QD8): expect"),
    ],
)
def test_overlay_caption_says_where_the_database_runs(default_pair, writes, relation):
    runs, _ = default_pair
    steady(runs[0])
    busiest = runs[1].points[3]
    busiest.write_iops = float(writes)
    text = caption(runs)
    assert relation in text
    share = f"{100 * (writes + 2) / 56388:.0f}%"
    assert f"{share} of the storage's peak of 56,388 IOPS" in text


def test_overlay_caption_when_the_database_outran_fio(default_pair):
    runs, _ = default_pair
    runs[1].points[0].write_iops = 92_000.0
    text = caption(runs)
    assert "At 1 user the database drove 92,000 IOPS (almost all writes), 163% of" in text
    assert "more than fio ever drove: the device's figures likely include other I/O" in text


def test_overlay_caption_when_the_device_read_nothing_or_has_no_figures(default_pair):
    runs, _ = default_pair
    db = runs[1]
    for point in db.points:
        point.read_iops, point.read_lat_ms = 0.0, None
    assert (
        "The device saw no reads at any load point, so the database's points have no read "
        "await and are not on the chart"
    ) in caption(runs)
    for point in db.points:
        point.read_iops = point.write_iops = None
        point.device = None
    assert "has no device statistics, so it cannot be placed" in caption(runs)
    assert "<svg" in render_report(runs)  # the storage's curve still draws
    db.points = []
    db.status = "running"
    assert caption(runs) == "The database run has no finished load point yet."


def test_overlay_leaves_an_external_server_out(default_pair):
    runs, _ = default_pair
    runs[1].engine["managed"] = False
    assert overlays(runs) == []
    external = Run(**{**vars(runs[1]), "run_id": "ext"})
    runs[1].engine = {**runs[1].engine, "managed": True}
    assert "is left off this chart" in caption([*runs, external])


def test_fio_curve_keeps_the_database_out(default_pair):
    runs, samples = default_pair
    chart = svg_titled(render_report(runs, samples), "IOPS against p99 read latency")
    labels = words(chart)
    assert "dbstor-data io-oltp" in " ".join(labels)
    assert "8 users" not in labels  # the database is on the overlay, not on fio's p99 curve
    tps = svg_titled(render_report(runs, samples), "Transactions per second against")
    assert "8 users" in words(tps)


# --- the memory callout -----------------------------------------------------------------


def test_memory_is_a_finding_and_a_callout_in_its_part(sqlite_run):
    html = render_report([sqlite_run])
    finding = html.index("the storage&#x27;s speed could not be measured, because the reads")
    assert html.index('id="summary"') < finding < html.index('id="configuration"')
    callout = html.index('class="callout memory"')
    assert html.index('id="run-1"') < callout
    assert (
        '<b class="lead">Reads came from memory, not the storage</b>: at 8 users, the highest '
        "transaction rate, 0.00044 device reads per transaction (hit ratio 99.96%). These "
        "transaction rates show the host&#x27;s CPU and memory, not the storage&#x27;s speed"
    ) in html
    assert '<code class="opt">--memory-limit</code>' in html
    assert html.count('class="callout memory"') == 1  # in the run's own part
    assert 'class="flag flag-from-memory" title=' in html


def test_no_memory_callout_when_the_storage_was_read(postgres_run, fc):
    assert memory_sentence(postgres_run) is None and memory_sentence(fc) is None
    html = render_report([postgres_run])
    assert 'class="callout memory"' not in html and 'flag-from-memory" title=' not in html


def test_memory_sentence_names_the_points_and_falls_back_on_the_hit_ratio(postgres_run):
    postgres_run.points[0].read_iops = 20.0  # 0.011 reads per transaction at 1 instance
    postgres_run.points[0].engine_io["device_reads_per_txn"] = 0.011
    text = memory_sentence(postgres_run)
    assert text.startswith("Reads came from memory, not the storage, at 1 instance × 4 users")
    assert "Those points' transaction rates" in text
    postgres_run.engine["managed"] = False
    for point in postgres_run.points:
        point.engine_io = None
        point.read_iops = None
        point.cache_hit_ratio = 0.995
    text = memory_sentence(postgres_run)
    assert "at 8 instances × 4 users each, the highest transaction rate, the engine found " in text
    assert "99.50% of its reads in its cache." in text


def test_memory_sentence_when_the_engine_and_the_device_disagree(default_pair):
    runs, _ = default_pair
    db = runs[1]  # as measured on a shared disk: the engine read from memory, the device not
    for point in db.points:
        point.trust.notes = []
        point.read_iops = 6.3 * point.tps
        point.engine_io["device_reads_per_txn"] = 6.3
    text = memory_sentence(db)
    assert text.startswith(
        "Reads came from memory, not the storage: at 8 users, the highest transaction rate, "
        "the engine read 0.00098 pages per transaction from storage (hit ratio 99.996%); the "
        "device still saw 6.3 reads per transaction, from other I/O on the device or reads the "
        "engine does not count."
    )
    assert "Its reads came from memory: the engine read 0.00098 pages" in caption(runs)


# --- a database run's section -------------------------------------------------------------


def test_database_section_charts_and_tables(sqlite_run):
    rows = read_samples(GOLDEN / "sqlite-brokerage")
    html = render_report([sqlite_run], {sqlite_run.run_id: rows})
    for title in (
        "Transactions per second and transaction p99 latency",
        "What the device under the target saw",
        "Transaction latency by type at 8 users",
        "Per-second TPS, IOPS and CPU",
        "IOPS against mean device read latency as load rises",
    ):
        svg_titled(html, title)
    tps = svg_titled(html, "Transactions per second and transaction p99")
    assert {"1 user", "2 users", "8 users", "load point: virtual users"} <= set(words(tps))
    assert not any(w.startswith("QD") for w in words(tps))
    assert "SQLite 3.40.1 · managed by dbstor · Brokerage (TPC-E-like OLTP), scale 1,000" in html
    # 8 users is flagged "from memory": the cards refuse peak and knee as the summary does,
    # and state no figure from the refused point
    assert "Knee: not stated (8 users flagged from memory); the points&#x27; figures" in html
    assert "Peak: not stated (8 users flagged from memory); the points&#x27; figures" in html
    assert "5,918 TPS, 2,646 device IOPS" not in html


def test_points_table_of_a_database_run(sqlite_run):
    html = render_report([sqlite_run])
    table = html[
        html.index('<h3 id="points-1">Load points</h3>') : html.index("<h3>Transaction types")
    ]
    assert "5,918" in table and "13.8" in table and "2.6 / 2,643" in table
    assert '<td class="num within" title="SLO 1 ms mean device read: within">0.35</td>' in table
    assert "99.96%" in table and "88%" in table
    assert "reads came from memory: 0.000 device reads per transaction" in table


def test_transaction_types_at_the_highest_tps(sqlite_run):
    html = render_report([sqlite_run])
    assert "Transaction types at 8 users, the highest TPS (5,918)" in html
    block = html[html.index("Transaction types at 8 users") : html.index("p99 latency by")]
    rows = re.findall(r'<th scope="row">([A-Za-z-]+)</th>', block)
    assert rows[:3] == ["Trade-Status", "Market-Watch", "Security-Detail"] and len(rows) == 10
    assert '<td class="num">10.1%</td>' in block and "33,734" in block  # Trade-Order, count
    assert "p99 latency by transaction type and load point" in html


def test_engine_io_errors_load_engine_and_objects(sqlite_run, postgres_run):
    html = render_report([sqlite_run])
    assert '<h3 id="engine-io-1">Engine I/O per transaction</h3>' in html and "0.00044" in html
    assert "Trade-Result: database is locked (busy for 30 s)" in html
    assert '<td class="num">3</td><td class="num">41</td>' in html  # errors, retries
    assert "1,862,450" in html and "45,020" in html and "434.5 MiB" in html  # load report
    assert "2 MiB (dbstor&#x27;s default for this engine)" in html
    assert "none: the host&#x27;s page cache can hold the database" in html
    assert "14 objects, 434.1 MiB in all; the 10 largest are shown" in html
    assert "customer_account" in html and "last_trade" not in html  # the smallest is cut
    assert "keeps no per-object I/O counters" in html
    pg = render_report([postgres_run])
    assert "128 MiB (--buffer)" in pg and "1 GiB (--memory-limit)" in pg
    assert "22,100,000" in pg and "168.6 GiB" in pg  # per-object reads and bytes read
    assert "not kept by PostgreSQL per object, so not shown: read stall, write stall" in pg
    appendix = pg[pg.index('id="appendix"') :]
    assert "54329" in appendix and "54329" not in pg[: pg.index('id="appendix"')]  # a port
    assert "/sys/fs/cgroup" in appendix and "/sys/fs/cgroup" not in pg[: pg.index('id="appendix"')]
    assert '<th scope="row">setting shared_buffers_bytes</th><td>128 MiB</td>' in pg
    assert "each instance&#x27;s memory was capped at 1 GiB" in pg
    assert "No errors and no retries" not in pg


def test_instances_series(postgres_run):
    html = render_report([postgres_run])
    tps = svg_titled(html, "Transactions per second and transaction p99")
    assert "8 inst × 4 users" in words(tps)
    assert "load point: database instances × virtual users on each" in words(tps)
    assert "Knee: 5,332 TPS, 18,738 device IOPS at 4.62 instances" in html
    assert '<td class="num over" title="SLO 1 ms mean device read: over">1.92</td>' in html
    assert "1–8 instances × 4 users each" in html


def test_database_runs_compared_show_tps(sqlite_run, postgres_run):
    from dbstor.analysis.compare import compare_runs

    comparison = compare_runs([sqlite_run, postgres_run])
    assert comparison["runs"][1]["values"]["tps"] is not None
    html = render_report([sqlite_run, postgres_run], comparison=comparison)
    assert "<th>TPS</th>" in html and "5,332" in html
    # SQLite's reads came from memory: no factor rests on it, and the report says why
    assert "transactions x0.9" not in html and "(90.1)" not in html
    assert "not computed: lab-ssd&#x27;s point at 8 users: its reads came from memory" in html
    assert "users, array-lun: instances): no load is the same on both" in html


# --- None tolerance -------------------------------------------------------------------------


def test_failed_point_no_device_external_engine(default_pair):
    runs, _ = default_pair
    db = runs[1]
    db.engine = {"name": "postgres", "managed": False, "dsn": "postgresql://bench:***@db/x"}
    db.engine_stats = None
    db.workload = {"name": "brokerage"}
    db.notes = ["external server: device statistics are this host's"]
    for point in db.points:
        point.device = point.read_iops = point.write_iops = None
        point.read_lat_ms = point.write_lat_ms = point.engine_io = point.cpu = None
        point.txn_types = None
        point.trust.notes = []
    db.points[0].cache_hit_ratio = None
    db.points[0].txn_lat_ms = LatencyStats()
    db.points[3].status, db.points[3].error = "failed", "server closed the connection <now>"
    db.status = "failed"
    for html in (render_report(runs), render_report([db], samples={db.run_id: []})):
        assert "failed: server closed the connection &lt;now&gt;" in html
        assert "external server: dbstor did not start it" in html
        body, appendix = html.split('id="appendix"')
        assert "bench:***@db" in appendix and "bench:***@db" not in body
        assert "The engine reported no per-object figures." in html
        assert "No load report" in html and "8 users failed" in html
        for svg in svgs(html):
            assert svg.get("viewBox")
    assert 'class="overlay"' not in render_report(runs)  # external: nothing to place


def test_bare_database_run_renders():
    run = Run("bare", "0", {}, {}, {"name": "sqlite"}, {}, {}, {}, "", status="running")
    html = render_report([run])
    assert "peak: none" in html.lower() and "No load point finished" in html


def test_reports_stay_self_contained(default_pair, sqlite_run, postgres_run):
    runs, samples = default_pair
    html = render_report([*runs, sqlite_run, postgres_run], samples)
    urls = set(re.findall(r"https?://[^\s\"'<>]+", html))
    assert urls <= {"http://www.w3.org/2000/svg"}
    assert "<script" not in html
    for svg in svgs(html):
        assert svg.get("viewBox")


def test_a_statistic_no_type_has_is_one_line_not_a_column_of_dashes(sqlite_run: Run):
    """Short points leave every type below the 1,000 transactions a p99 needs: the types
    table drops the p99 and p99.9 columns and the p99 matrix becomes one line saying so."""
    from dbstor.report.database.tables import txn_p99_matrix, txn_types_table

    for point in sqlite_run.points:
        for stats in (point.txn_types or {}).values():
            stats.p99 = stats.p999 = None
    peak = max((p for p in sqlite_run.points if p.tps), key=lambda p: p.tps)
    table = txn_types_table(sqlite_run, peak)
    assert "p99|" not in table and ">p99<" not in table and ">p95<" in table
    most = max(s.count for s in peak.txn_types.values())
    assert f"Not measured: p99, p99.9 by type (at most {most:,} transactions of a type" in table
    matrix = txn_p99_matrix(sqlite_run)
    assert "<table" not in matrix and matrix.startswith('<p class="meta">Not measured: p99 by')
    from dbstor.report.database.figures import txn_types_chart

    axis = words(ET.fromstring(txn_types_chart(sqlite_run, peak)))
    assert "mean transaction latency (ms)" in axis  # the axis names only what is drawn
    assert "mean and p99 transaction latency (ms)" not in axis

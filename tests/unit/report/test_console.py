"""The terminal summary."""

from __future__ import annotations

import re

from rich.console import Console

from dbstor.report.console import print_comparison, print_run_summary
from dbstor.results.model import Run


def output(func, *args) -> str:
    console = Console(record=True, width=200, color_system=None)
    func(*args, console)
    return console.export_text()


def test_run_summary_lists_points_peak_and_knee(fc: Run):
    text = output(print_run_summary, fc)
    for load in ("QD1", "QD2", "QD4", "QD8", "QD16", "QD32", "QD64"):
        assert load in text
    assert "54,100" in text and "0.76" in text and "71%" in text and "1.04" in text
    assert "not steady" in text and "saturated" in text and "44,100–46,050 over 3" in text
    assert "peak: 54,100 IOPS at QD 64 (p99 read 1.90 ms)" in text
    # QD32, beside the knee, is flagged not steady: the terminal refuses it as the report does
    assert "knee: not stated (QD32 flagged not steady)" in text and "47,702" not in text
    for point in fc.points:
        point.trust.steady = True
    text = output(print_run_summary, fc)
    assert "knee: 47,702 IOPS at QD 23.8 (p99 read 1.00 ms, SLO 1 ms)" in text


def test_run_summary_of_an_interrupted_run(tmpfs: Run):
    text = output(print_run_summary, tmpfs)
    assert "failed: fio exited with status 1" in text
    assert "run interrupted: 2 of 3 load points finished" in text
    assert "note: direct I/O not supported on tmpfs" in text
    assert "so the knee was not reached" in text
    assert '<script>alert("x")</script>' in text  # shown literally, not taken as markup


def test_knee_line_when_no_point_is_within(iscsi: Run):
    iscsi.slo["limit_ms"] = 0.2
    assert "knee: no point within the SLO" in output(print_run_summary, iscsi)


def test_comparison(comparison):
    comparison["comparable"] = False
    comparison["warnings"] = ["ISCSI ran on device sdc, FC on dm-3"]
    comparison["per_disk"] = [
        {
            "label": "FLASH",
            "drives": 6,
            "baseline_drives": 75,
            "drive_reduction": 12.5,
            "performance_factor": 1.15,
            "per_disk_efficiency": 14.4,
        }
    ]
    text = output(print_comparison, comparison)
    assert "Compared with FC (= 100)" in text
    assert "26,400 (55.3)" in text and "3.58 ms (358)" in text and "48% (87.1)" in text
    assert "ISCSI vs FC: read latency" not in text  # not comparable: the reason, no verdict
    assert "warning: ISCSI ran on device sdc" in text
    assert "not comparable" in text and "x14.4" in text
    comparison["comparable"] = True
    text = output(print_comparison, comparison)
    assert "ISCSI vs FC: read latency +258%, IOPS x0.55, CPU x0.87" in text


def narrow(func, *args) -> str:
    console = Console(record=True, width=80, color_system=None)
    func(*args, console)
    return console.export_text()


def test_database_run_summary_fits_80_columns(sqlite_run: Run):
    text = narrow(print_run_summary, sqlite_run)
    assert max(len(line.rstrip()) for line in text.splitlines()) <= 80
    assert "lab-ssd · brokerage on SQLite · complete" in text
    for header in ("TPS", "txn p99", "device", "dev read", "CPU", "hit", "dev rd"):
        assert header in text
    assert "QD" not in text
    row = next(line for line in text.splitlines() if line.strip().startswith("8 users"))
    for cell in ("5,918", "13.8", "2,646", "0.35", "88%", "99.96%", "0.00044", "*"):
        assert cell in row
    assert "* 8 users: from memory, 3 errors, 41 retries, first: Trade-Result: database" in text
    assert "Reads came from memory, not the storage: at 8 users, the highest transaction" in text
    assert "0.00044 device reads per transaction (hit ratio 99.96%)" in text
    # 8 users is flagged from memory: refused on the terminal as in the report
    assert "peak: not stated (8 users flagged from memory)" in " ".join(text.split())


def test_the_cpu_column_has_the_runs_own_beside_the_hosts(sqlite_run: Run):
    """Where the run's own processes' CPU was counted, the terminal shows it beside the
    host's ('100/24%' under 'CPU host/own'): a busy host's 100% is not the database's."""
    from dataclasses import replace

    for point in sqlite_run.points:
        if point.cpu:
            point.cpu = replace(point.cpu, util_pct=99.8, own_pct=24.4)
    text = narrow(print_run_summary, sqlite_run)
    assert max(len(line.rstrip()) for line in text.splitlines()) <= 80
    assert "host/own" in text
    row = next(line for line in text.splitlines() if line.strip().startswith("8 users"))
    assert "100/24%" in row and "88%" not in row


def test_a_shared_device_says_how_much_was_not_the_runs(sqlite_run: Run):
    """A point flagged shared_device: the terminal says how much of the device's reads
    were other processes' and the run's own reads per transaction beside the device's."""
    point = sqlite_run.points[-1]
    point.shared_device, point.foreign_io_share = True, 0.72
    point.own_io = {"device": "vda", "reads_per_txn": 6.29}
    point.engine_io = {**(point.engine_io or {}), "host_device_reads_per_txn": 80.2}
    text = " ".join(narrow(print_run_summary, sqlite_run).split())
    assert "The device was shared: at 8 users, 72% of the reads on vda" in text
    assert "the run's own 6.29 reads per transaction, the device's 80.2" in text


def test_memory_sentence_is_yellow(sqlite_run: Run):
    console = Console(record=True, width=80, color_system="standard", force_terminal=True)
    print_run_summary(sqlite_run, console)
    ansi = console.export_text(styles=True)
    start = ansi.index("Reads came from memory")
    assert "\x1b[1;33m" in ansi[start - 12 : start]  # bold yellow


def test_instances_run_summary(postgres_run: Run):
    text = narrow(print_run_summary, postgres_run)
    assert max(len(line.rstrip()) for line in text.splitlines()) <= 80
    assert "inst×" in text and "users" in text and "8 × 4" in text and "19,700" in text
    assert "Reads came from memory" not in text
    assert "knee: 5,332 TPS, 18,738 device IOPS at 4.62 instances" in text


def test_database_summary_tolerates_gaps(sqlite_run: Run):
    sqlite_run.engine = {"name": "postgres", "managed": False}
    for point in sqlite_run.points:
        point.device = point.read_iops = point.write_iops = point.cpu = None
        point.read_lat_ms = point.txn_lat_ms = point.engine_io = None
        point.cache_hit_ratio = None
        point.trust.notes = []
    sqlite_run.points[2].status, sqlite_run.points[2].error = "failed", "server gone"
    text = narrow(print_run_summary, sqlite_run)
    assert "4 users: failed: server gone" in text
    assert "Reads came from memory" not in text
    assert "no device statistics" in text


def test_default_study_runs(default_pair):
    runs, _ = default_pair
    fio_text, db_text = (narrow(print_run_summary, run) for run in runs)
    assert "QD64" in fio_text and "Reads came from memory" not in fio_text
    row = next(line for line in db_text.splitlines() if line.strip().startswith("1 user"))
    assert "569" in row and "–" in row  # no device reads: no read await


def test_a_comparison_at_highest_loads_with_the_servers_own_cpu(comparison):
    """The terminal's comparison names the basis as the comparison does (a knee never
    reached: 'highest') and whose CPU it is, within 80 columns."""
    for run in comparison["runs"]:
        run["basis"] = "highest load"
    comparison["metric_names"] = {"cpu_pct": "server's own CPU (%)"}
    text = narrow(print_comparison, comparison)
    assert "highest" in text and "knee" not in text.split("Compared with")[1].split("└")[0]
    assert "server" in text and "CPU %" in text and "host CPU" not in text


def test_a_study_whose_runs_share_no_workload_says_they_were_not_compared(default_pair):
    """The terminal says what the document says (no table of figures that are not like
    for like, no 'no verdict'), in the document's words."""
    from dbstor.analysis.study_compare import study_comparison
    from dbstor.report.html import render_report

    runs, _ = default_pair
    comparison = study_comparison(runs, None)
    assert comparison is not None and comparison["shares_no_workload"] is True
    text = " ".join(narrow(print_comparison, comparison).split())
    said = (
        "The 2 runs were not compared with each other: each ran its own workload (io-oltp, "
        "brokerage), and runs of different workloads are not compared."
    )
    assert text == said
    html = render_report(runs, comparison=comparison)
    comparison_section = html[html.index('id="comparison"') :].split("</section>")[0]
    assert said in comparison_section and "<table" not in comparison_section
    assert "not comparable as they stand" not in html


def test_every_comparison_table_fits_80_columns_with_whole_headings(comparison):
    """At 80 columns no line is longer and no heading is cut ('CPU %: the engine…'): a CPU
    of mixed kinds is 'CPU %' with its kinds said under the table."""
    comparison["metric_names"] = {
        "iops": "device IOPS",
        "read_lat_ms": "p99 device read latency (ms)",
        "cpu_pct": "CPU (%): the engine's own (client) processes and the whole host",
        "response_ms": "mean response time (ms)",
    }
    for run, workload in zip(comparison["runs"], ("io-oltp", "brokerage"), strict=True):
        run["workload"] = workload
        run["label"] = "production-array-lun-0042-flash-tier"  # a long name folds
        run["values"].update(response_ms=7.54, tps=12345.6)
        run["normalised"].update(response_ms=100.0, tps=123.4)
    comparison["metric_names"]["tps"] = "TPS"
    comparison["per_disk"] = [
        {"label": "ISCSI", "drives": 6, "baseline_drives": 75, "drive_reduction": 12.5,
         "performance_factor": 1.15, "per_disk_efficiency": 14.4}
    ]  # fmt: skip
    text = narrow(print_comparison, comparison)
    lines = text.splitlines()
    assert all(len(line) <= 80 for line in lines) and "…" not in text, text
    start = next(i for i, line in enumerate(lines) if "─" in line)
    headings = " ".join(lines[1:start])
    for word in ("run,", "workload", "dev", "IOPS", "TPS", "p99", "read", "CPU", "%", "mean",
                 "resp", "ms"):  # fmt: skip
        assert re.search(rf"(?<!\S){re.escape(word)}(?!\S)", headings), (word, text)
    rows = [line for line in lines if re.search(r"\sknee\s", line)]
    # every column is there, the last one too (rich crops a table too wide for the terminal)
    assert len(rows) == 2 and all(line.rstrip().endswith("7.54 (100)") for line in rows), text
    assert "io-oltp" in text and "brokerage" in text  # each workload under its run's name
    assert "CPU %: the engine's own (client) processes and the whole host" in text
    disks = text[text.index("Per-disk efficiency") :]
    for heading in ("baseline", "drives", "reduction", "performance", "per disk"):
        assert heading in disks, text


def test_an_instances_run_with_its_own_cpu_fits_80_columns(postgres_run: Run):
    """An instances run's load column ('inst×users') beside the host/own CPU column cut the
    hit ratio to 'rat…' and the flag column off (the shrunk TR-4403 example)."""
    from dataclasses import replace

    for point in postgres_run.points:
        if point.cpu:
            point.cpu = replace(point.cpu, util_pct=100.0, own_pct=11.2)
        point.trust.steady = False  # every row flagged: the flag column must show
    text = narrow(print_run_summary, postgres_run)
    table = text.split("\n* ")[0]
    assert "…" not in table and all(len(line) <= 80 for line in table.splitlines()), table
    assert "ratio" in table and "host/own" in table
    rows = [line for line in table.splitlines() if re.match(r"\s*\d+ × \d+\s", line)]
    assert rows and all(line.rstrip().endswith("*") for line in rows), table

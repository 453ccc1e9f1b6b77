"""The report as a document: its sections in the seeds' order with stable ids, present
when they have data and absent when not; machine details only in the appendix; no dict
dumps; summary findings that link to tables that exist."""

from __future__ import annotations

import copy
import re
from html import unescape
from pathlib import Path
from typing import Any

import pytest
from document_walk import golden_runs

from dbstor.report.document.frame import SECTION_IDS
from dbstor.report.html import render_report
from dbstor.results.model import Run

GOLDEN = Path(__file__).resolve().parents[3] / "golden"
SECTION = re.compile(r'<section class="(?:doc|comparison[^"]*)" id="([a-z]+)"')


def section_ids(html: str) -> list[str]:
    return SECTION.findall(html)


def body_and_appendix(html: str) -> tuple[str, str]:
    cut = html.index('<section class="doc" id="appendix">')
    return html[:cut], html[cut:]


def machine_strings(run: Run) -> set[str]:
    """Every absolute path, process id and port a run recorded about this machine."""
    found: set[str] = set()

    def walk(value: Any, key: str = "") -> None:
        if isinstance(value, dict):
            for k, v in value.items():
                walk(v, str(k))
        elif isinstance(value, list):
            for v in value:
                walk(v, key)
        elif isinstance(value, str) and value.startswith("/") and len(value) > 1:
            found.add(value)
        elif key in ("pid", "port") and isinstance(value, int):
            found.add(str(value))

    for part in (run.target, run.engine, run.workload, run.study):
        walk(part)
    return found


def test_sections_in_the_seeds_order_each_once(fc: Run, iscsi: Run, samples, comparison):
    ids = section_ids(render_report([fc, iscsi], samples, comparison))
    assert ids == [i for i in SECTION_IDS if i in ids]  # in order
    assert len(ids) == len(set(ids))
    assert ids == ["summary", "configuration", "layout", "method", "results", "comparison",
                   "conclusion", "appendix"]  # fmt: skip


def test_sections_without_data_are_left_out(fc: Run):
    html = render_report([fc])
    ids = section_ids(html)
    assert "comparison" not in ids
    for absent in ("efficiency", "capacity", "placement", "cost"):
        assert absent not in ids and f'id="{absent}"' not in html
    assert html.index('id="summary"') < html.index("How to read this report")  # opens with it


@pytest.mark.parametrize("runs", golden_runs(), ids=lambda runs: runs[0].run_id)
def test_machine_details_only_in_the_appendix(runs: list[Run]):
    html = render_report(runs)
    body, appendix = body_and_appendix(html)
    strings = set().union(*(machine_strings(r) for r in runs))
    assert strings, "the golden runs record paths"
    for text in strings:
        assert text not in unescape(body), f"{text!r} outside the appendix"
    for text in (s for s in strings if s.startswith("/")):
        assert text in unescape(appendix)
    assert "/sys/fs/cgroup" not in body
    for run in runs:
        port = (run.engine or {}).get("port")
        if port:  # a port is a name, not a quantity
            assert f"<th>engine · port</th><td>{port}</td>" in appendix


@pytest.mark.parametrize("runs", golden_runs(), ids=lambda runs: runs[0].run_id)
def test_nothing_is_printed_as_a_python_dict(runs: list[Run]):
    html = unescape(render_report(runs))
    assert "{'" not in html and "': " not in html and '{"' not in html
    assert "kind: incompressible;" not in html and "series: (" not in html


@pytest.mark.parametrize("runs", golden_runs(), ids=lambda runs: runs[0].run_id)
def test_summary_links_point_at_tables_that_exist(runs: list[Run]):
    html = render_report(runs)
    summary = html[html.index('id="summary"') : html.index('id="configuration"')]
    links = re.findall(r'href="#([\w-]+)"', summary)
    ids = set(re.findall(r'id="([\w-]+)"', html))
    assert links, "a summary without findings"
    assert set(links) <= ids
    assert 2 <= len(re.findall("<li>", summary)) <= 7


def test_a_from_memory_run_states_no_peak_and_says_why(sqlite_run: Run):
    summary = render_report([sqlite_run]).split('id="configuration"')[0]
    assert "could not be measured, because the reads came from memory" in unescape(summary)
    assert "peaked at" not in summary and "TPS" not in summary.split('id="summary"')[1]


def test_a_knee_from_unsteady_points_is_not_stated(fc: Run):
    for point in fc.points:
        point.trust.steady = point.load.value not in (16, 32)
    summary = render_report([fc]).split('id="configuration"')[0]
    assert "the knee could not be stated (QD16, QD32 flagged not steady)" in summary
    assert "sustains" not in summary
    conclusion = render_report([fc]).split('id="conclusion"')[1].split('id="appendix"')[0]
    assert "no size can be drawn from its knee (QD16, QD32 flagged not steady)" in conclusion
    assert "Size FC on its knee" not in conclusion


def test_the_knee_is_a_finding_with_its_number(fc: Run):
    summary = render_report([fc]).split('id="configuration"')[0]
    assert "the knee could not be stated (QD32 flagged not steady)" in summary  # as recorded
    for point in fc.points:
        point.trust.steady = True
    summary = unescape(render_report([fc]).split('id="configuration"')[0])
    assert "sustains 47,702 IOPS within the SLO (p99 read ≤ 1 ms)" in summary
    conclusion = unescape(render_report([fc]).split('id="conclusion"')[1])
    assert (
        "Size FC on its knee, 47,702 IOPS within SLO 1 ms p99 read, not on its peak" in conclusion
    )


def test_comparison_factors_lead_the_summary(fc: Run, iscsi: Run, samples, comparison):
    html = render_report([fc, iscsi], samples, comparison)
    summary = html.split('id="configuration"')[0]
    first = re.search(r"<li>(.*?)</li>", summary).group(1)
    assert 'href="#comparison"' in first


def test_configuration_puts_targets_side_by_side(fc: Run, iscsi: Run):
    html = render_report([fc, iscsi])
    config = html[html.index('id="configuration"') : html.index('id="layout"')]
    assert '<th scope="col">FC</th><th scope="col">ISCSI</th>' in config.replace("\n", "")
    for row in ("array", "protocol", "drive count", "device", "engine", "dbstor"):
        assert f'<th scope="row">{row}</th>' in config


def test_file_system_and_mount_options_from_the_run(fc: Run, iscsi: Run):
    fc.target["mount"] = {"fs": "xfs", "options": "rw,noatime", "point": "/mnt/fc"}
    html = render_report([fc, iscsi])
    config = html[html.index('id="configuration"') : html.index('id="layout"')]
    assert '<th scope="row">file system</th><td>xfs</td><td>–</td>' in config
    assert '<th scope="row">mount options</th><td>rw,noatime</td><td>–</td>' in config
    layout = html[html.index('id="layout"') : html.index('id="method"')]
    assert "<td>xfs</td>" in layout and "/mnt/fc" not in layout


def test_layout_names_what_each_size_counts(sqlite_run: Run):
    html = unescape(render_report([sqlite_run]))
    layout = html[html.index('id="layout"') : html.index('id="method"')]
    assert "dbstor-sqlite-0.db" in layout and "/mnt/lab-ssd" not in layout
    assert "14 tables and indexes, 434.1 MiB on disk at the end of the run" in layout
    assert "434.5 MiB of row data loaded (before indexes and page overhead)" in layout
    part = html[html.index('id="results"') :]
    assert "held 434.1 MiB on disk at the end of the run (434.5 MiB of row data loaded)" in part


def test_method_says_what_ran_and_the_notes(tmpfs: Run):
    run = copy.deepcopy(tmpfs)
    run.notes = ["laid out 1 GiB of test files in /dev/shm/dbstor in 2 s"]
    html = render_report([run])
    method = html[html.index('id="method"') : html.index('id="results"')]
    for row in ("workload", "load series", "each point", "warm-up", "SLO", "repeats"):
        assert f'<th scope="row">{row}</th>' in method
    assert "laid out 1 GiB of test files in dbstor in 2 s" in method  # the path cut
    assert html.index('id="summary"') < html.index("laid out 1 GiB")


def test_cost_reads_the_case_s_own_needs_and_example_fields(fc: Run):
    from dbstor.report.document.cost import cost_body

    case = {
        "kind": "tco", "currency": "USD", "years": 3, "discount_rate_pct": 8,
        "servers": {"before": 10, "after": 6, "retired": 4, "needed_exact": 5.7,
                    "ceiling_pct": 70, "cpu_before_pct": 10, "cpu_after_pct": 40},
        "licences": {}, "benefits": [{"item": "support", "year0": 0, "yearly": 1000.0}],
        "costs": [{"item": "new storage purchase", "year0": 0, "yearly": 0}],
        "roi_pct": None, "npv": None, "payback_months": None,
        "needs": "no storage price: give --storage-price for ROI, NPV and payback",
        "example_prices": ["server_support"], "assumptions": [],
        "notes": ["no storage price: give --storage-price for ROI, NPV and payback",
                  "example prices, not quotes, for: server_support", "CPU from the runs"],
    }  # fmt: skip
    html = cost_body({"tco": case})
    assert "Example prices" in html and "server_support" in html
    assert "USD 1,000 (example prices)" in html
    assert "ROI</th>" not in html and "months" not in html and "need the price" in html
    assert "CPU from the runs" in html and html.count("no storage price: give") == 0
    assert cost_body({"tco": {"missing": "CPU after is saturated (100%)"}}) == (
        "<p>Not computed: CPU after is saturated (100%).</p>"
    )
    assert cost_body({}) == ""


def test_layout_has_a_row_per_role(postgres_run: Run):
    postgres_run.target["paths"] = {"data": ["/mnt/a/pg-0"], "log": ["/mnt/log/pg-0"]}
    html = unescape(render_report([postgres_run]))
    layout = html[html.index('id="layout"') : html.index('id="method"')]
    rows = re.findall(r"<tr><th scope=\"row\">[^<]+</th><td>(\w+)</td>", layout)
    assert rows == ["data", "log"]
    log_row = layout[layout.index("<td>log</td>") :]
    assert "the transaction log" in log_row and "trade" not in log_row.split("</tr>")[0]
    assert "/mnt/log" not in layout


def test_layout_puts_placed_objects_on_their_roles_row(postgres_run: Run):
    """A run with `place`: the fast row lists what was placed there, the data row the rest
    (h6080's before/after: 'before' keeps its fast role on the data path and says so)."""
    objects = postgres_run.engine_stats["objects"]
    biggest = max(objects, key=lambda o: o.get("size_bytes") or 0)["name"]
    postgres_run.engine["placement"] = [
        {"object": biggest, "kind": "table", "role": "fast", "placed": True, "size_bytes": 1}
    ]
    postgres_run.target["paths"] = {"data": ["/mnt/hdd/pg-0/data"], "fast": ["/mnt/hdd/pg-0"]}
    html = unescape(render_report([postgres_run]))
    layout = html[html.index('id="layout"') : html.index('id="method"')]
    data_row, fast_row = (
        layout.split(f"<td>{r}</td>")[1].split("</tr>")[0] for r in ("data", "fast")
    )
    assert f"{biggest} (" in fast_row and f"{biggest} (" not in data_row
    placed = "1 of the tables and indexes, placed by the study on its fast path"
    assert f"{placed}, the same path as data" in fast_row
    postgres_run.target["paths"]["fast"] = ["/mnt/flash/moved"]
    html = unescape(render_report([postgres_run]))
    assert "by the study on its fast path</td>" in html and "the same path as data" not in html


@pytest.mark.parametrize(
    "analyses",
    [
        {"efficiency": "garbage", "capacity": [1, 2], "placement": None, "tco": 7},
        {"efficiency": {"t": {"total_ratio": "high", "array": "x"}}},
        {"capacity": {"t": {"deductions": [None, {"step": 1}], "usable_tb": None}}},
        {"placement": {"t": {"result": {}}}, "tco": {"servers": {}, "costs": "x"}},
        {
            "tco": {
                "servers": {"before": 2},
                "costs": [{"item": "new storage purchase", "year0": 5}],
            }
        },
    ],
)
def test_analyses_it_cannot_read_are_said_not_fatal(fc: Run, analyses: dict):
    html = render_report([fc], analyses=analyses)
    assert 'id="appendix"' in html and "Traceback" not in html
    if "efficiency" in analyses and isinstance(analyses["efficiency"], str):
        assert "holds no table of targets here" in html


def test_the_conclusion_names_what_may_have_served_the_reads(iscsi: Run, tmpfs: Run):
    conclusion = unescape(render_report([iscsi]).split('id="conclusion"')[1])
    assert "an array cache of 64 GiB could hold the whole 1 GiB test file" in conclusion
    conclusion = unescape(render_report([tmpfs]).split('id="conclusion"')[1])
    assert "the I/O was buffered: the page cache may have served it" in conclusion


def test_the_conclusion_sizes_a_database_where_the_storage_sets_the_pace(postgres_run: Run):
    conclusion = unescape(render_report([postgres_run]).split('id="conclusion"')[1])
    assert "Size array-lun on 5,332 TPS at 4.62 instances, where the mean device read" in conclusion


def test_a_figure_from_mostly_foreign_io_is_not_stated(fc: Run):
    """A summary sentence never rests on a point where most of the device's I/O was other
    processes': the knee's and the peak's points, each said with its flag."""
    for point in fc.points:
        point.trust.steady = True
        if point.load.value in (32, 64):
            point.shared_device, point.foreign_io_share = True, 0.64
    summary = unescape(render_report([fc]).split('id="configuration"')[0])
    assert "the knee could not be stated (QD32 flagged mostly other processes' I/O)" in summary
    assert "sustains" not in summary
    fc.points[-1].trust.steady = False  # two flags on one point are said together
    summary = unescape(render_report([fc]).split('id="configuration"')[0])
    assert "(QD64 flagged not steady and mostly other processes' I/O)" in summary
    fc.points[-1].trust.steady = True
    for point in fc.points:  # shared, but mostly its own I/O: the figure stands
        point.foreign_io_share = 0.3 if point.shared_device else None
    assert "sustains 47,702 IOPS" in unescape(render_report([fc]).split('id="configuration"')[0])


def test_sizes_of_several_instances_agree(postgres_run: Run):
    """The objects listed are the first instance's; the row data is every instance's: the
    layout and the sentence say each database's sizes, not one's on disk beside all's rows."""
    from dbstor.report.database.section import sizing_sentence

    html = unescape(render_report([postgres_run]))
    layout = html[html.index('id="layout"') : html.index('id="method"')]
    assert "on disk at the end of the run in each of its 8 databases (one per instance)" in layout
    assert "5 GiB of row data loaded into each (40 GiB in all;" in layout
    sentence = sizing_sentence(postgres_run) or ""
    assert sentence.startswith("Each of the 8 databases held ")
    assert "5 GiB of row data was loaded into each" in sentence


def test_targets_on_one_device_are_a_limit_of_the_conclusion(fc: Run, iscsi: Run):
    """Two labels, one device of one host (a shrunk seed): the conclusion says that their
    differences are not the storage's; on different devices it says nothing of the kind."""
    fc.target["device"] = iscsi.target["device"] = "vda"
    fc.host["hostname"] = iscsi.host["hostname"] = "vm"
    conclusion = unescape(render_report([fc, iscsi]).split('id="conclusion"')[1])
    labels = f"{fc.target['label']} and {iscsi.target['label']}"
    assert f"{labels} are folders on the same device (vda) of one host" in conclusion
    smb = copy.deepcopy(iscsi)
    smb.target["label"], smb.run_id = "SMB", "smb-run"
    conclusion = unescape(render_report([fc, iscsi, smb]).split('id="conclusion"')[1])
    assert f"{fc.target['label']}, {iscsi.target['label']} and SMB are folders" in conclusion
    iscsi.target["device"] = "sdb"
    assert "the same device" not in render_report([fc, iscsi]).split('id="conclusion"')[1]

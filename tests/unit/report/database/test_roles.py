"""Each role's own device in the report (report/database/roles.py): the Layout's device
per role, the run's per-role table, and where the I/O went across a before/after pair."""

from __future__ import annotations

import copy
import re
from html import unescape

from dbstor.report.database.roles import has_roles_apart, moved_io_body, role_device, roles_table
from dbstor.report.html import render_report
from dbstor.report.kit.fmt import fmt_ms
from dbstor.results.model import Run


def _figures(devices: list[str], reads: float, writes: float, await_ms: float, shared=()):
    return {
        "devices": devices,
        "shared_with": list(shared),
        "read_iops": reads,
        "write_iops": writes,
        "read_mbps": reads * 0.008,
        "write_mbps": writes * 0.008,
        "read_await_ms": await_ms,
        "write_await_ms": 0.2,
        "util_pct": 10.0,
    }


def placed(run: Run, fast_device: str, fast_reads: float) -> Run:
    """The run as a placement's run: its fast role on `fast_device` (the data's: before)."""
    run = copy.deepcopy(run)
    data = run.target["device"].split(",")[0]
    same = fast_device == data
    run.target["roles"] = {
        "data": {"paths": ["/mnt/hdd"], "devices": [data], "shared_with": ["fast"] if same else []},
        "fast": {"paths": ["/mnt/flash"], "devices": [fast_device], "shared_with": ["data"] if same else [], "mount": {"fs": "xfs"}},
    }  # fmt: skip
    run.target["paths"] = {"data": ["/mnt/hdd/pg-0"], "fast": ["/mnt/flash"]}
    for point in run.points:
        whole = point.device.read_iops if point.device else 100.0
        point.roles = {
            "data": _figures([data], whole - fast_reads, 50.0, 4.0, ["fast"] if same else []),
            "fast": _figures([fast_device], whole if same else fast_reads, 50.0 if same else 5.0,
                             4.0 if same else 0.3, ["data"] if same else []),
        }  # fmt: skip
    return run


def test_the_layout_names_each_roles_own_device_never_the_slow_one_for_fast(postgres_run: Run):
    after = placed(postgres_run, "nvme0n1", 300.0)
    data = after.target["device"].split(",")[0]
    assert role_device(after, "fast") == "nvme0n1" and role_device(after, "data") == data
    html = unescape(render_report([after]))
    layout = html[html.index('id="layout"') : html.index('id="method"')]
    fast_row = layout.split("<td>fast</td>")[1].split("</tr>")[0]
    assert fast_row.startswith("<td>nvme0n1</td><td>xfs</td>")
    assert data not in fast_row


def test_an_older_run_never_names_the_data_device_for_another_roles_own_path(postgres_run: Run):
    postgres_run.target["paths"] = {"data": ["/mnt/a/pg-0"], "log": ["/mnt/log/pg-0"]}
    assert "roles" not in postgres_run.target
    assert role_device(postgres_run, "log") == "not recorded"
    html = unescape(render_report([postgres_run]))
    layout = html[html.index('id="layout"') : html.index('id="method"')]
    assert re.search(r"<td>log</td><td>not recorded</td><td>–</td>", layout)


def test_the_run_shows_each_roles_device_at_every_point(postgres_run: Run):
    assert roles_table(postgres_run) == "" and not has_roles_apart(postgres_run)
    after = placed(postgres_run, "nvme0n1", 300.0)
    table = unescape(roles_table(after))
    assert "Each role's device" in table
    assert table.count("<td>nvme0n1</td>") == len([p for p in after.points if p.ok])
    point = after.points[0]
    whole = point.roles["data"]["read_iops"] + 50 + 300 + 5
    share = f"{100 * 305 / whole:.0f}%"
    first = table.split("</tr>")[2]  # the header row, the first point's data row, its fast row
    assert "<td>fast</td><td>nvme0n1</td>" in first and share in first


def test_where_the_io_went_sets_the_after_run_beside_the_before_run(postgres_run: Run):
    before = placed(postgres_run, postgres_run.target["device"].split(",")[0], 0.0)
    after = placed(postgres_run, "nvme0n1", 300.0)
    assert moved_io_body([before], ["before"]) == ""  # one device: nothing moved anywhere
    body = unescape(moved_io_body([before, after], ["before", "after"]))
    assert "Where the I/O went" in body
    # before: the fast role is data's device, counted once ("with fast"), all of the I/O
    assert "before · " in body and "<td>data (with fast)</td>" in body
    assert body.count("<td>fast</td><td>nvme0n1</td>") == len([p for p in after.points if p.ok])
    assert f'<td class="num">{fmt_ms(0.3, unit=False)}</td>' in body  # the moved I/O's latency
    html = unescape(render_report([before, after]))
    assert "Where the I/O went" in html[html.index('id="results"') :]

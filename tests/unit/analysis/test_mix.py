"""analysis/mix.py: a [mix]'s workloads together set beside each alone, point by point,
and each one's share of what the device moved over the widest window."""

import pytest

from dbstor.analysis.mix import device_totals, latency_ms, mix_comparison
from dbstor.results.model import DeviceStats, LatencyStats, Load, Point, Run

MB = 1_000_000


def _point(tps, p99, own_mb, device_mbps, seconds=10.0, read_iops=500.0, queries=None):
    return Point(
        load=Load(kind="streams" if queries is not None else "users", value=4),
        duration_s=seconds,
        tps=tps,
        read_iops=read_iops,
        txn_lat_ms=LatencyStats(mean=p99 / 4, p50=p99 / 5, p95=p99 / 2, p99=p99),
        device=DeviceStats(name="loop9", read_mbps=device_mbps, write_mbps=0.0),
        own_io={"read_bytes": own_mb * MB, "write_bytes": 0, "writes_counted": "all writes"},
        queries=queries,
    )


def _run(run_id, workload, points, together=None, engine="postgres"):
    return Run(
        run_id=run_id, tool_version="t", study={}, target={"label": "A"},
        engine={"name": engine}, workload={"name": workload}, host={}, slo={},
        created_at="", points=points, together=together,
    )  # fmt: skip


def _together(workload, alone):
    return {
        "workloads": ["brokerage", "dss"],
        "runs": {"brokerage": "b-mix", "dss": "d-mix"},
        "target": "A",
        "workload": workload,
        "alone": alone,
    }


def test_each_workload_is_set_beside_itself_alone_with_its_share_of_the_device():
    runs = [
        _run("b", "brokerage", [_point(1000, 4.0, 300, 30.0)]),
        _run("d", "dss", [_point(2.0, 800.0, 900, 90.0, queries=[])], engine="duckdb"),
        # together: brokerage 10 s, dss 5 s; the device moved 100 MB/s over brokerage's 10 s
        _run("b-mix", "brokerage", [_point(500, 9.2, 200, 100.0)], _together("brokerage", "b")),
        _run(
            "d-mix",
            "dss",
            [_point(1.0, 1000.0, 700, 150.0, 5.0, queries=[])],
            _together("dss", "d"),
            engine="duckdb",
        ),
    ]
    (group,) = mix_comparison(runs)
    brokerage, dss = group["members"]
    point = brokerage["points"][0]
    assert point["latency_of"] == "transaction p99"
    assert point["latency_factor"] == pytest.approx(9.2 / 4.0)
    assert point["throughput_factor"] == pytest.approx(0.5)
    assert dss["points"][0]["latency_of"] == "query p99"
    (total,) = group["device"]
    assert total["window_of"] == "brokerage" and total["device_bytes"] == pytest.approx(1000 * MB)
    assert total["shares"] == {"brokerage": pytest.approx(0.2), "dss": pytest.approx(0.7)}
    assert total["rest"] == pytest.approx(0.1)
    assert point["device"]["share"] == pytest.approx(0.2)
    assert group["overlap"] is None  # 5 s of 10 s: they overlapped for half


def test_a_short_query_point_is_said_to_have_overlapped_only_briefly():
    runs = [
        _run("b", "brokerage", [_point(1000, 4.0, 300, 30.0)]),
        _run("d", "dss", [_point(2.0, 800.0, 9, 90.0, 0.2, queries=[])]),
        _run("b-mix", "brokerage", [_point(500, 9.2, 200, 100.0)], _together("brokerage", "b")),
        _run("d-mix", "dss", [_point(1, 9, 7, 9, 0.3, queries=[])], _together("dss", "d")),
    ]
    (group,) = mix_comparison(runs)
    assert group["overlap"].startswith("dss's point lasted 0.3 s of brokerage's 10 s")


def test_a_factor_does_not_rest_on_a_point_served_from_memory():
    memory = _point(1000, 4.0, 300, 30.0, read_iops=0.0)  # no device reads per transaction
    runs = [
        _run("b", "brokerage", [memory]),
        _run("b-mix", "brokerage", [_point(500, 9.2, 200, 100.0)], _together("brokerage", "b")),
    ]
    (point,) = mix_comparison(runs)[0]["members"][0]["points"]
    assert point["throughput_factor"] is None and point["latency_factor"] is None
    assert point["why_null"] == "alone: its reads came from memory, not the storage"
    assert point["alone"]["throughput"] == 1000  # the figures stay, only the factor goes


def test_latency_is_compared_at_the_highest_percentile_both_points_state():
    alone = _point(100, 4.0, 1, 1.0)
    together = _point(100, 8.0, 1, 1.0)
    together.txn_lat_ms = LatencyStats(mean=2.0, p50=1.5, p95=6.0, p99=None)
    assert latency_ms(alone, together) == (2.0, 6.0, "transaction p95")
    together.txn_lat_ms = LatencyStats(count=0)
    assert latency_ms(alone, together) == (None, None, "")
    (member,) = mix_comparison(
        [
            _run("b", "brokerage", [alone]),
            _run("b-mix", "brokerage", [together], _together("brokerage", "b")),
        ]
    )[0]["members"]
    (point,) = member["points"]
    assert point["latency_factor"] is None and point["why_null"] is None
    assert point["latency_why_null"].startswith("no latency both points could state")


def test_no_share_is_told_when_the_device_barely_moved_or_own_io_is_unknown():
    quiet = {"own_bytes": 10, "window_s": 5.0, "window_device_bytes": 1000.0, "share": None}
    unknown = {"own_bytes": None, "window_s": 5.0, "window_device_bytes": 5e8, "share": None}
    busy = {"own_bytes": 10**8, "window_s": 6.0, "window_device_bytes": 6e8, "share": None}
    (low,) = device_totals([{"workload": "a", "points": [{"device": quiet}]}])
    assert low["shares"] == {"a": None} and "under 1 MiB" in low["why_null"]
    members = [
        {"workload": "a", "points": [{"device": unknown}]},
        {"workload": "b", "points": [{"device": busy}]},
    ]
    (total,) = device_totals(members)
    assert total["shares"]["b"] == pytest.approx(1 / 6) and total["shares"]["a"] is None
    assert total["rest"] is None  # not told while a member's own I/O is unknown
    assert unknown["why_null"] == "the workload's own I/O could not be counted"


def test_runs_without_a_mix_give_none():
    assert mix_comparison([_run("b", "brokerage", [_point(1000, 4.0, 300, 30.0)])]) is None


def test_a_mix_member_is_not_the_same_measurement_as_the_workload_alone():
    from dbstor.catalog.entries import comparison_key

    alone = _run("b", "brokerage", [_point(1000, 4.0, 300, 30.0)])
    again = _run("b2", "brokerage", [_point(900, 4.0, 300, 30.0)])
    mixed = _run("b-mix", "brokerage", [_point(500, 9.2, 200, 100.0)], _together("brokerage", "b"))
    assert comparison_key(alone) == comparison_key(again) != comparison_key(mixed)
    assert comparison_key(mixed).endswith("| together with dss")


def test_the_headline_is_the_point_whose_latency_rose_the_most_with_its_load():
    from dbstor.analysis.mix import headline

    member = {
        "workload": "dss",
        "points": [
            {"load": {"kind": "streams", "value": 1}, "latency_of": "query p50",
             "latency_factor": 1.1, "throughput_factor": 0.9},
            {"load": {"kind": "streams", "value": 2}, "latency_of": "query p50",
             "latency_factor": 2.71, "throughput_factor": 0.485},
            {"load": {"kind": "streams", "value": 4}, "latency_of": "query p50",
             "latency_factor": None, "throughput_factor": None},
        ],
    }  # fmt: skip
    words = headline(member, ["brokerage", "io-log"])
    assert (
        words == "dss query p50 x2.7 at 2 streams while brokerage and io-log ran (throughput x0.48)"
    )
    member["points"] = member["points"][:1]
    assert (
        headline(member, ["brokerage"])
        == "dss query p50 x1.1 while brokerage ran (throughput x0.9)"
    )


def test_a_window_shorter_than_a_device_sample_still_counts_its_own_io_on_its_device():
    from dbstor.analysis.mix import own_bytes

    short = _point(5.0, 20.0, 0, 0.0, seconds=0.08)
    short.device = None  # no device sample fell in its window
    short.own_io = {
        "device": None, "read_bytes": None, "write_bytes": None,
        "devices": {"loop9": {"reads": 12, "writes": 1, "read_bytes": 3 * MB, "write_bytes": MB}},
    }  # fmt: skip
    assert own_bytes(short)["own_bytes"] == 4 * MB
    short.own_io["devices"]["loop8"] = {"read_bytes": MB, "write_bytes": 0}
    assert own_bytes(short)["own_bytes"] is None  # which of two is the target's: not guessed

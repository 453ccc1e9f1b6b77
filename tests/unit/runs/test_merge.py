"""The merges are exact: merging the outcomes of parts (fio jobs, users, client processes,
instances, hosts) equals measuring the whole; outcomes survive the trip through plain
JSON unchanged, so a point measured on another host merges the same way."""

from __future__ import annotations

import copy
import json
from collections import Counter
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from dbstor.analysis.histogram import LatencyHistogram
from dbstor.drivers.fio_output import parse_fio_json
from dbstor.drivers.tally import DriveResult, Tally, bin_ns, merge, merge_results
from dbstor.engines.base import EngineCounters
from dbstor.results.model import CpuStats, DeviceStats
from dbstor.runs.database.point import TxnOutcome
from dbstor.runs.io.point import IoOutcome
from dbstor.runs.merge import (
    merge_counters,
    merge_histograms,
    merge_io_outcomes,
    merge_samples,
    merge_txn_outcomes,
    whole_txn_outcome,
)
from dbstor.runs.queries.point import QueryOutcome

FIO = Path(__file__).parents[2] / "fixtures" / "fio"
MIX = ("new_order", "payment", "delivery")

latencies = st.lists(st.integers(min_value=1, max_value=10**10), min_size=1, max_size=300)
parts_of = st.integers(min_value=1, max_value=6)


def histogram_of(values: list[int]) -> LatencyHistogram:
    histogram = LatencyHistogram()
    for ns in values:
        histogram.bins[bin_ns(ns)] += 1
        histogram.total_ns += ns
        histogram.max_ns = max(histogram.max_ns, ns)
    return histogram


@settings(max_examples=60, deadline=None)
@given(latencies, parts_of)
def test_histograms_of_parts_merge_into_the_histogram_of_all(values, parts):
    whole = histogram_of(values)
    merged = merge_histograms(histogram_of(values[i::parts]) for i in range(parts))
    assert merged.bins == whole.bins and merged.max_ns == whole.max_ns
    assert merged.total_ns == sum(values)
    for q in (50, 95, 99, 99.9):
        assert merged.percentile_ns(q) == whole.percentile_ns(q)


transactions = st.lists(
    st.tuples(
        st.sampled_from(MIX),
        st.integers(min_value=1_000, max_value=5 * 10**9),
        st.integers(min_value=0, max_value=9),
        st.booleans(),
    ),
    min_size=1,
    max_size=200,
)


def tallies_of(rows: list[tuple[str, int, int, bool]], users: int) -> list[Tally]:
    tallies = [Tally() for _ in range(users)]
    for n, (txn, ns, second, rolled_back) in enumerate(rows):
        tally = tallies[n % users]
        tally.record(txn, ns, second)
        if rolled_back:
            tally.rollbacks[txn] += 1
        if ns % 7 == 0:
            tally.errors += 1
            tally.retries += 2
    return tallies


def comparable(result: DriveResult) -> dict:
    data = result.to_dict()
    data.pop("processes")
    return data


@settings(max_examples=60, deadline=None)
@given(transactions, st.integers(min_value=1, max_value=8), parts_of)
def test_results_of_groups_of_users_merge_into_the_result_of_all(rows, users, groups):
    tallies = tallies_of(rows, users)
    whole = merge(tallies, MIX, 10.0, open_loop=False)
    parts = [merge(tallies[g::groups], MIX, 10.0, open_loop=False) for g in range(groups)]
    merged = merge_results([p for p in parts if p.per_type])
    assert comparable(merged) == comparable(whole)
    assert merged.latency.stats() == whole.latency.stats()


def test_fio_jobs_merge_like_hosts():
    """Two hosts running one job each merge into what one fio run with both jobs gives."""
    one = json.loads((FIO / "randrw-8k-qd4-1job.json").read_text())
    second = copy.deepcopy(one)
    both = copy.deepcopy(one)
    both["jobs"] = one["jobs"] + second["jobs"]
    hosts = [
        outcome(parse_fio_json(json.dumps(d)), host) for d, host in ((one, "h1"), (second, "h2"))
    ]
    merged = merge_io_outcomes(hosts)
    whole = parse_fio_json(json.dumps(both))
    assert merged["fio"].to_dict() == whole.to_dict()
    assert merged["read_iops_per_second"] == [200.0, 200.0]
    assert [h["host"] for h in merged["hosts"]] == ["h1", "h2"]
    assert {row["host"] for row in merged["samples"]} == {"h1", "h2"}


def outcome(run, host: str) -> IoOutcome:
    return IoOutcome(
        fio=run,
        read_iops_per_second=[100.0, 100.0],
        write_iops_per_second=[10.0, 10.0],
        samples=[{"t_s": 1.0, "dev_read_iops": 5.0}],
        cpu=CpuStats(util_pct=50.0),
        device=DeviceStats(name="vda", read_iops=5.0),
        job_text="[global]\n",
        output_text="{}",
        ioengine="io_uring",
        started_at=1.5,
        wall_s=3.0,
        host=host,
    )


def test_counters_add_and_a_missing_counter_stays_missing():
    total = merge_counters(
        [EngineCounters(logical_reads=10, physical_reads=2), EngineCounters(logical_reads=5)]
    )
    assert total.logical_reads == 15 and total.physical_reads is None


def test_samples_of_hosts_keep_their_host():
    rows = merge_samples({"h1": [{"t_s": 1.0}], "h2": [{"t_s": 1.0}, {"t_s": 2.0}]})
    assert [(r["host"], r["t_s"]) for r in rows] == [("h1", 1.0), ("h2", 1.0), ("h2", 2.0)]


def through_json(data: dict) -> dict:
    return json.loads(json.dumps(data))


def test_io_outcome_survives_plain_json():
    run = parse_fio_json((FIO / "randrw-8k-qd4-2job.json").read_text())
    original = outcome(run, "h1")
    again = IoOutcome.from_dict(through_json(original.to_dict()))
    assert again == original


def test_database_outcome_survives_plain_json_and_merges():
    tallies = tallies_of([("payment", 2_000_000, 0, False), ("new_order", 9_000_000, 1, True)], 2)
    drive = merge(tallies, MIX, 2.0, open_loop=True)
    assert drive.per_second_mean_ms() == [2.0, 9.0]  # each second's mean latency, in ms
    drive.arrivals, drive.unfinished = 5, histogram_of([3_000_000])
    drive.backlog = 1
    original = TxnOutcome(
        drive=drive,
        counters=EngineCounters(logical_reads=100, physical_reads=7),
        samples=[{"t_s": 1.0}],
        cpu=CpuStats(util_pct=10.0),
        device=None,
        alive=True,
        started_at=2.0,
        wall_s=3.0,
        host="h1",
    )
    again = TxnOutcome.from_dict(through_json(original.to_dict()))
    assert again == original
    merged = merge_txn_outcomes([again, again])
    assert merged["drive"].commits == 2 * drive.commits
    assert merged["drive"].arrivals == 10 and merged["drive"].backlog == 2
    assert merged["counters"].physical_reads == 14
    assert merged["drive"].rollbacks == dict(Counter({"new_order": 2}))
    assert merged["drive"].per_second_mean_ms() == [2.0, 9.0]


def test_hosts_database_outcomes_make_one_whole():
    """The cluster's database merge: the counters of the host that read a shared server,
    CPU the mean, one machine's device once, own windows added, the first start."""
    tallies = tallies_of([("payment", 2_000_000, 0, False)], 2)
    device = DeviceStats(name="vda", read_iops=50.0, read_await_ms=0.5)
    own = {"source": "cgroup", "writes_counted": True, "roles": {"data": {
        "devices": {"vda": [1, 2, 3, 4]}, "processes": 2, "cpu_ns": 10,
        "proc_read_bytes": 5, "proc_write_bytes": 6}}}  # fmt: skip
    parts = {
        host: TxnOutcome(
            drive=merge(tallies, MIX, 2.0, open_loop=False),
            counters=EngineCounters(physical_reads=reads),
            samples=[],
            cpu=CpuStats(util_pct=util),
            device=device,
            own=copy.deepcopy(own),
            alive=True,
            started_at=start,
            wall_s=3.0,
            host=host,
            boot_id="one-machine",
        )
        for host, reads, util, start in (("h1", 7, 10.0, 5.0), ("h2", 9, 30.0, 4.0))
    }
    whole = whole_txn_outcome(parts, "h2", 4.0)
    assert whole.counters.physical_reads == 9, "a shared server's counters read once"
    assert whole_txn_outcome(parts, None, 4.0).counters.physical_reads == 16
    assert whole.cpu.util_pct == 20.0 and whole.started_at == 4.0 and whole.host == "h1,h2"
    assert whole.device.read_iops == 50.0, "one machine's device counted once"
    assert whole.own["roles"]["data"]["devices"]["vda"] == [2, 4, 6, 8]
    assert whole.own["roles"]["data"]["cpu_ns"] == 20
    assert whole.drive.commits == 2 * parts["h1"].drive.commits


def test_query_outcome_survives_plain_json():
    original = QueryOutcome(
        records=[{"name": "Q1", "stream": 0, "position": 0, "status": "ok", "elapsed_s": 1.0}],
        stream_s={0: 1.0},
        wall_s=1.2,
        fatal=None,
        counters=EngineCounters(storage_read_bytes=4096),
        samples=[],
        cpu=CpuStats(),
        device=DeviceStats(name="vda"),
        started_at=3.0,
        cold_note="cold: restarted",
        host="h1",
    )
    assert QueryOutcome.from_dict(through_json(original.to_dict())) == original


def test_hosts_per_second_histograms_are_summed_bin_by_bin():
    from dbstor.runs.merge import add_histograms

    one = [{100: 3, 200: 1}, {100: 2}]
    two = [{100: 1}, {300: 4}, {100: 5}]
    # over the seconds every host logged, as the per-second IOPS beside them (add_series)
    assert add_histograms([one, two]) == [{100: 4, 200: 1}, {100: 2, 300: 4}]
    assert add_histograms([one, []]) == []  # a host without them: none rather than a part

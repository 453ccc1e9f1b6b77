"""A point measured on several hosts merges into exactly what one histogram of all its I/Os
would say: counts and rates summed, percentiles from the summed bins."""

from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dbstor.analysis.histogram import LatencyHistogram
from dbstor.cluster.session import ClusterPoint
from dbstor.drivers.fio_output import DirectionTotals, FioRun
from dbstor.results.model import CpuStats, DeviceStats
from dbstor.runs.io.point import IoOutcome
from dbstor.runs.merge import whole_io_outcome

latencies = st.lists(st.integers(min_value=1_000, max_value=50_000_000), min_size=1, max_size=300)


def host_outcome(host: str, reads: list[int], cpu: float, dev_iops: float, await_ms: float):
    histogram = LatencyHistogram(
        bins=Counter(reads), total_ns=float(sum(reads)), max_ns=float(max(reads))
    )
    fio = FioRun(
        version="fio-3.33",
        read=DirectionTotals(ios=len(reads), iops=len(reads) / 2.0, histogram=histogram),
        write=DirectionTotals(),
        runtime_s=2.0,
        jobs=1,
        errors=[],
        client_cpu_pct=1.0,
    )
    return IoOutcome(
        fio=fio,
        read_iops_per_second=[len(reads) / 2.0] * 2,
        write_iops_per_second=[0.0, 0.0],
        samples=[{"t_s": 1.0}, {"t_s": 2.0}],
        cpu=CpuStats(util_pct=cpu),
        device=DeviceStats(name="sda", read_iops=dev_iops, read_await_ms=await_ms),
        job_text="[point]",
        output_text="{}",
        ioengine="psync",
        started_at=100.0,
        wall_s=2.0,
        host=host,
        boot_id=f"boot-{host}",  # each host its own machine
    )


@settings(max_examples=60, deadline=None)
@given(
    parts=st.lists(latencies, min_size=1, max_size=5),
    cpus=st.lists(st.floats(0, 100), min_size=5, max_size=5),
    awaits=st.lists(st.floats(0.01, 20), min_size=5, max_size=5),
)
def test_the_merge_of_hosts_equals_the_histogram_of_all_ios(parts, cpus, awaits):
    hosts = [f"h{i + 1}" for i in range(len(parts))]
    outcomes = [
        host_outcome(h, reads, cpus[i], 100.0 * (i + 1), awaits[i])
        for i, (h, reads) in enumerate(zip(hosts, parts, strict=True))
    ]
    point = ClusterPoint({}, {h: 100.0 for h in hosts}, 0.0, 0.05)
    whole = whole_io_outcome(outcomes, min(point.starts.values()))
    everything = [latency for reads in parts for latency in reads]
    alone = LatencyHistogram(
        bins=Counter(everything), total_ns=float(sum(everything)), max_ns=float(max(everything))
    )
    merged = whole.fio.read.histogram
    assert merged.bins == alone.bins
    for q in (50, 90, 99, 99.9, 100):
        assert merged.percentile_ns(q) == alone.percentile_ns(q)
    assert merged.stats() == alone.stats()
    assert whole.fio.read.ios == len(everything)
    assert whole.fio.read.iops == pytest.approx(len(everything) / 2.0)
    assert whole.read_iops_per_second == pytest.approx([len(everything) / 2.0] * 2)
    assert [row["host"] for row in whole.samples] == [h for h in hosts for _ in range(2)]
    assert whole.device.read_iops == pytest.approx(sum(100.0 * (i + 1) for i in range(len(hosts))))
    weights = [100.0 * (i + 1) for i in range(len(hosts))]
    expected_await = sum(a * w for a, w in zip(awaits, weights, strict=False)) / sum(weights)
    assert whole.device.read_await_ms == pytest.approx(expected_await)
    assert whole.cpu.util_pct == pytest.approx(sum(cpus[: len(hosts)]) / len(hosts))
    assert whole.host == ",".join(hosts)


def test_hosts_on_one_machine_count_its_device_once():
    """Three cluster "hosts" on one machine (one boot id) all see its one disk: the disk's
    I/O is counted once, not three times."""
    outcomes = [host_outcome(f"h{i}", [5_000] * 10, 50.0, 300.0, 0.2) for i in range(3)]
    for outcome in outcomes:
        outcome.boot_id = "one-machine"
    whole = whole_io_outcome(outcomes, 100.0)
    assert whole.device.read_iops == pytest.approx(300.0)
    assert whole.fio.read.ios == 30, "each host's own I/O still counts"


def test_a_hosts_await_under_the_counters_resolution_leaves_the_whole_null_and_says_whose():
    outcomes = [host_outcome(f"h{i}", [5_000] * 10, 50.0, 100.0, 0.2) for i in range(2)]
    outcomes[1].device.read_await_ms = None
    outcomes[1].device.read_await_reason = "device reads await under 0.005 ms: ..."
    whole = whole_io_outcome(outcomes, 100.0)
    assert whole.device.read_await_ms is None, "h0's 0.2 ms alone would overstate the mean"
    assert whole.device.read_await_reason == "h1: device reads await under 0.005 ms: ..."
    assert whole.device.read_iops == pytest.approx(200.0)


def test_per_second_iops_merge_over_the_seconds_every_host_measured():
    """A host whose fio ended just before logging its last second did not do 0 IOPS then:
    the merged series keeps the seconds every host logged, so no fall is made up."""
    from dbstor.runs.merge import add_histograms, add_series

    assert add_series([[400.0, 410.0, 405.0], [380.0, 390.0]]) == [780.0, 800.0]
    assert add_series([[1.0, 2.0], [3.0, 4.0]]) == [4.0, 6.0]
    assert add_histograms([[{1: 2}, {1: 3}, {2: 9}], [{1: 1}, {3: 4}]]) == [{1: 3}, {1: 3, 3: 4}]

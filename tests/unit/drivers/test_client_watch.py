"""The client tree's memory watch: a peak over the whole point, forked processes counted."""

import mmap
import multiprocessing
import time

from dbstor.drivers.client_watch import ClientWatch, merge_memory, per_user_bytes

MIB = 1 << 20


def _hold(megabytes, seconds, ready):
    block = bytearray(megabytes * MIB)  # touched: zero-filled pages become resident
    for i in range(0, len(block), 4096):
        block[i] = 1
    ready.set()
    time.sleep(seconds)


def test_a_childs_memory_counts_at_its_peak_even_after_it_ended():
    context = multiprocessing.get_context("fork")
    children = []
    watch = ClientWatch(lambda: [c.pid for c in children if c.pid], interval_s=0.1)
    watch.start()
    ready = context.Event()
    child = context.Process(target=_hold, args=(64, 1.0, ready))
    children.append(child)
    child.start()
    assert ready.wait(30)
    child.join(30)
    watch.finish()  # the child is gone: only the peak remembers it
    figures = watch.figures(users=4, start=0.0, end=time.monotonic())
    grown = figures["peak_bytes"] - figures["base_bytes"]
    assert grown >= 60 * MIB
    assert per_user_bytes(figures) == grown / 4
    assert figures["run_queue_mean"] is not None and figures["run_queue_max"] >= 1
    assert "Pss" in figures["basis"]


def test_hosts_add_up_and_nothing_measured_is_none():
    one = {"base_bytes": 10, "peak_bytes": 30, "users": 2, "basis": "b",
           "run_queue_mean": 2.0, "run_queue_max": 3}  # fmt: skip
    two = {"base_bytes": 5, "peak_bytes": 25, "users": 3, "basis": "b",
           "run_queue_mean": 4.0, "run_queue_max": 9}  # fmt: skip
    merged = merge_memory([one, None, two])
    assert merged["users"] == 5 and per_user_bytes(merged) == (55 - 15) / 5
    assert merged["run_queue_mean"] == 3.0 and merged["run_queue_max"] == 9
    assert merge_memory([None]) is None and per_user_bytes(None) is None


def test_the_memory_travels_with_the_result_and_hosts_merge():
    from dbstor.analysis.histogram import LatencyHistogram
    from dbstor.drivers.tally import DriveResult, merge_results

    def result(memory):
        return DriveResult(
            per_type={}, overall=LatencyHistogram(), commits=0, measured_s=1.0,
            per_second=[], errors=0, retries=0, messages=[], fatal=None, client_memory=memory,
        )  # fmt: skip

    memory = {"base_bytes": 100, "peak_bytes": 900, "users": 8, "basis": "b",
              "run_queue_mean": 3.0, "run_queue_max": 5}  # fmt: skip
    again = DriveResult.from_dict(result(memory).to_dict())
    assert again.client_memory == memory
    old = result(None).to_dict()
    del old["client_memory"]  # an outcome from before the watch
    assert DriveResult.from_dict(old).client_memory is None
    merged = merge_results([result(memory), result(dict(memory, users=2))])
    assert merged.client_memory["users"] == 10 and merged.client_memory["peak_bytes"] == 1800


def test_pss_is_read_only_when_the_tree_grew_and_at_the_end():
    watch = ClientWatch()
    reads = []
    real = watch._tree
    watch._tree = lambda: reads.append(1) or real()  # count the page-table walks
    for _ in range(5):
        watch.sample()  # nothing grew: the cheap resident size only
    assert reads == []
    small = mmap.mmap(-1, 512 << 10)  # fresh pages, less than PSS_AFTER_BYTES: counted
    for i in range(0, len(small), 4096):  # from the resident growth
        small[i] = 1
    watch.sample()
    assert reads == [] and watch.peak - watch.base >= 400 << 10
    block = mmap.mmap(-1, 16 * MIB)
    for i in range(0, len(block), 4096):
        block[i] = 1
    watch.sample()
    assert len(reads) == 1 and watch.peak - watch.base >= 12 * MIB
    watch.sample(final=True)
    assert len(reads) == 2

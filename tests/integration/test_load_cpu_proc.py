"""The load generator's own CPU that a point reports (`client.cpu_s`: the threads that run
the users, over the measured window) against what the kernel counted: the process's CPU
(getrusage, the figure /proc/PID/stat shows in clock ticks, here to the microsecond, with
the threads that already ended) less the main thread's own (it waits and ticks; its CPU
clock), read at the window's two marks; within 5%, for users on the one loop thread
(PostgreSQL) and users on threads of their own (SQLite). Threads end on their own at the
window's end, sometimes before the main thread marks it: the process's count keeps what
they used, where /proc/self/task no longer lists them."""

from __future__ import annotations

import resource
import shutil
import tempfile
import time
from pathlib import Path

import pytest
from needs import usable

from dbstor.drivers.users import Instance, VirtualUsers
from dbstor.engines.base import EngineSettings
from dbstor.workloads.orders.workload import OrdersWorkload

pytestmark = pytest.mark.integration


def others_cpu_s() -> float:
    """The CPU every thread of this process but the calling one has used so far."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime - time.thread_time()


@pytest.mark.parametrize("engine_name", ["postgres", "sqlite"])
def test_the_reported_load_cpu_is_what_the_kernel_counted_for_the_load_threads(engine_name):
    cls = usable(engine_name)
    base = Path(tempfile.mkdtemp(prefix="dbstor-loadcpu-"))
    base.chmod(0o711)  # the server's account must reach its directories
    (base / "d").mkdir()
    engine = cls(EngineSettings(paths={"data": [base / "d"]}, buffer_bytes=32 << 20, users=4))
    try:
        engine.start()
        workload = OrdersWorkload(1, seed=3)
        workload.create(engine, lambda m: None)
        marks: dict[str, float] = {}  # marked from the main thread, which is not the load
        driver = VirtualUsers([Instance(engine, workload)], 4, seed=5)
        result = driver.run(1.0, 4.0, on_mark=lambda m: marks.setdefault(m, others_cpu_s()))
        assert result.fatal is None and result.commits > 0, result.messages
        kernel = marks["end"] - marks["measure_start"]
        assert kernel > 0.05, marks  # the load did run on these threads
        assert result.client_cpu_s == pytest.approx(kernel, rel=0.05), (result.client_cpu_s, kernel)
    finally:
        engine.stop()
        shutil.rmtree(base, ignore_errors=True)

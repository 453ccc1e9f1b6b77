"""The load threads' CPU clock: what joined threads used, whether they still run or not."""

import threading
import time

from dbstor.drivers.load_cpu import LoadCpu, counted


def burn(seconds: float) -> None:
    until = time.thread_time() + seconds
    while time.thread_time() < until:
        pass


def test_a_thread_that_left_still_counts_and_one_that_never_joined_does_not():
    cpu = LoadCpu()
    before = cpu.seconds()
    joined = threading.Thread(target=counted(cpu, burn), args=(0.1,))
    stranger = threading.Thread(target=burn, args=(0.3,))
    for thread in (joined, stranger):
        thread.start()
    for thread in (joined, stranger):
        thread.join()
    used = cpu.seconds() - before
    assert 0.1 <= used < 0.25


def test_a_running_thread_is_read_as_it_goes():
    cpu, go_on, halfway = LoadCpu(), threading.Event(), threading.Event()

    def work() -> None:
        burn(0.1)
        halfway.set()
        go_on.wait()

    thread = threading.Thread(target=counted(cpu, work))
    thread.start()
    halfway.wait()
    midway = cpu.seconds()
    go_on.set()
    thread.join()
    assert midway >= 0.1
    assert cpu.seconds() >= midway

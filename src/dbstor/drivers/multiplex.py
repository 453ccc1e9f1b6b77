"""Many virtual users on one client thread: each keeps one transaction in flight.

A user whose session can send a transaction and read its reply apart (Session.can_submit:
one request, one reply, such as one stored-procedure CALL) need not block a thread of its
own. One thread sends every such user's next transaction, waits on all their sockets at
once and, as replies complete, records them and sends the next. Each transaction still
waits for its reply before its user sends another, so the load is the same closed loop as
with a thread per user; but the client no longer pays for a thread waking per reply and
for handing Python's lock from thread to thread, which at a few thousand transactions a
second is most of its CPU. Retries, errors and a fatal error are handled as a user thread
handles them (users.py).
"""

from __future__ import annotations

import select
import threading
from collections.abc import Sequence
from typing import Any, Protocol

from dbstor.drivers.tally import Tally
from dbstor.drivers.window import Window
from dbstor.engines.base import Engine, ErrorKind

POLL_S = 0.2  # how often the loop looks at the stop flag while nothing arrives


class LoopDriver(Protocol):
    """What the loop needs of the driver (users.py's VirtualUsers)."""

    @property
    def window(self) -> Window: ...
    @property
    def stop(self) -> threading.Event: ...
    def fail(self, exc: BaseException, engine: Engine | None = None) -> None: ...
    def clock(self) -> float: ...


class LoopUser(Protocol):
    """What the loop needs of one user (users.py's user thread, its session opened)."""

    @property
    def session(self) -> Any: ...
    @property
    def engine(self) -> Engine: ...
    @property
    def tally(self) -> Tally: ...
    @property
    def max_attempts(self) -> int: ...
    @property
    def finished(self) -> threading.Event: ...
    def pick(self) -> str: ...


class _InFlight:
    """One user's transaction on the wire: what it is, since when, which attempt. One per
    user, reused, so that its socket stays registered in the epoll set all along."""

    def __init__(self, user: LoopUser):
        self.user, self.txn, self.attempt, self.started = user, "", 0, 0.0
        self.fd: int | None = None


class _Sockets:
    """The in-flight users' sockets in an epoll set (dbstor runs on Linux)."""

    def __init__(self) -> None:
        self.epoll = select.epoll()
        self.flights: dict[int, _InFlight] = {}

    def register(self, fd: int, flight: _InFlight) -> None:
        self.epoll.register(fd, select.EPOLLIN)
        self.flights[fd] = flight

    def unregister(self, fd: int) -> None:
        self.epoll.unregister(fd)
        del self.flights[fd]

    def ready(self, timeout_s: float) -> list[_InFlight]:
        """The flights whose sockets can be read, waiting up to timeout_s for one."""
        return [self.flights[fd] for fd, _ in self.epoll.poll(timeout_s)]

    def close(self) -> None:
        self.epoll.close()


def run_multiplexed(driver: LoopDriver, users: Sequence[LoopUser]) -> None:
    """Drive these users' sessions from this thread until the window ends or the driver
    stops; every user's finished flag is set on the way out."""
    sockets = _Sockets()
    try:
        _loop(driver, users, sockets)
    except BaseException as exc:  # a bug here must stop the point, not hang the users
        driver.fail(exc)
    finally:
        sockets.close()
        for user in users:
            user.finished.set()


def _loop(driver: LoopDriver, users: Sequence[LoopUser], sockets: _Sockets) -> None:
    window, busy = driver.window, 0
    for user in users:
        flight = _InFlight(user)
        busy += _send(driver, sockets, flight, user.pick(), 0)
    while busy and not driver.stop.is_set():
        for flight in sockets.ready(POLL_S):
            outcome = _receive(driver, flight)
            if outcome is None:
                continue  # the reply is not complete yet
            busy -= 1
            sent = 0
            if outcome == "retry":
                sent = _send(driver, sockets, flight, flight.txn, flight.attempt + 1)
            elif outcome != "fatal" and driver.clock() < window.end:
                sent = _send(driver, sockets, flight, flight.user.pick(), 0)
            if not sent and flight.fd is not None:  # this user is done
                sockets.unregister(flight.fd)
                flight.fd = None
            busy += sent


def _send(
    driver: LoopDriver,
    sockets: _Sockets,
    flight: _InFlight,
    txn: str,
    attempt: int,
) -> int:
    """Submit the user's next transaction: 1 when it is on the wire, else 0."""
    while not driver.stop.is_set():
        flight.txn, flight.attempt, flight.started = txn, attempt, driver.clock()
        try:
            fd = flight.user.session.submit(txn)
        except Exception as exc:
            if _failed(driver, flight, exc) == "retry":
                attempt += 1
                continue
            return 0
        if fd != flight.fd:  # the first time (a session keeps its socket)
            if flight.fd is not None:
                sockets.unregister(flight.fd)
            sockets.register(fd, flight)
            flight.fd = fd
        return 1
    return 0


def _receive(driver: LoopDriver, flight: _InFlight) -> Any:
    """None while the reply is incomplete; else "done", "retry" or "fatal"."""
    user = flight.user
    try:
        done = user.session.collect()
    except Exception as exc:
        return _failed(driver, flight, exc)
    if done is None:
        return None
    finished = driver.clock()
    if done:
        user.tally.acknowledged[flight.txn] += 1
    measure_start = driver.window.measure_start
    if flight.started >= measure_start:
        ns = (finished - flight.started) * 1e9
        user.tally.record(flight.txn, ns, int(finished - measure_start), rolled_back=done is False)
    return "done"


def _failed(driver: LoopDriver, flight: _InFlight, exc: Exception) -> str:
    """Classify a failed transaction as a user thread would: "retry", "fatal" or "done"."""
    user = flight.user
    kind = user.engine.classify(exc)
    if kind == ErrorKind.FATAL:
        driver.fail(exc, user.engine)
        return "fatal"
    if kind == ErrorKind.RETRY and flight.attempt + 1 < user.max_attempts:
        user.tally.retries += 1
        return "retry"
    user.tally.errors += 1
    user.tally.note(exc)
    return "done"

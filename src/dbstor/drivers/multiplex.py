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
    user, reused, so that its socket stays registered in the epoll set all along. The
    session's submit and collect and the tally's record are kept bound: a loop user's
    session and tally do not change while the loop drives it (users.py)."""

    def __init__(self, user: LoopUser):
        self.user, self.txn, self.attempt, self.started = user, "", 0, 0.0
        self.fd: int | None = None
        self.pick, self.submit, self.collect = user.pick, user.session.submit, user.session.collect
        self.record, self.acknowledged = user.tally.record, user.tally.acknowledged
        self.commit = user.tally.committer()  # compiled count, bound to this tally


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
    """Per wake: read every reply that is in, count it, and only then send the next
    transactions of those users; sleep in epoll again only when every ready socket is
    done. Reading first keeps the loop thread on its core: a send wakes a server process,
    which may take the core from it before the other replies are read."""
    window, clock, stop, busy = driver.window, driver.clock, driver.stop, 0
    for user in users:
        if stop.is_set():
            break
        busy += _send(driver, sockets, _InFlight(user), user.pick(), 0)
    poll, flights = sockets.epoll.poll, sockets.flights  # the wait and its lookup, inline
    while busy and not stop.is_set():
        replied: list[tuple[_InFlight, str]] = []
        for fd, _ in poll(POLL_S):
            flight = flights[fd]
            try:
                done = flight.collect()
            except Exception as exc:
                replied.append((flight, _failed(driver, flight, exc)))
                continue
            if done is None:
                continue  # the reply is not complete yet
            replied.append((flight, "done"))
            finished = clock()
            txn, started = flight.txn, flight.started
            if done:
                flight.acknowledged[txn] += 1
            if started >= window.measure_start:
                second = int(finished - window.measure_start)
                if done is False:
                    flight.record(txn, (finished - started) * 1e9, second, rolled_back=True)
                else:
                    flight.commit(txn, (finished - started) * 1e9, second)
        if not replied:
            continue
        busy -= len(replied)
        going = clock() < window.end and not stop.is_set()
        for flight, outcome in replied:
            if outcome == "retry":
                sent = _send(driver, sockets, flight, flight.txn, flight.attempt + 1)
            elif outcome != "fatal" and going:
                sent = _send(driver, sockets, flight, flight.pick(), 0)
            else:
                sent = 0
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
    while True:
        flight.txn, flight.attempt, flight.started = txn, attempt, driver.clock()
        try:
            fd = flight.submit(txn)
        except Exception as exc:
            if _failed(driver, flight, exc) == "retry" and not driver.stop.is_set():
                attempt += 1
                continue
            return 0
        if fd != flight.fd:  # the first time (a session keeps its socket)
            if flight.fd is not None:
                sockets.unregister(flight.fd)
            sockets.register(fd, flight)
            flight.fd = fd
        return 1


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

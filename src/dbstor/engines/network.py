"""How long dbstor waits on an external server's network before it calls the server gone.

A server whose packets vanish (a pulled cable, a route dropped on the way: no reset, no
ICMP error) would leave a connection waiting for ever: a blocked read sees nothing, and
TCP retransmits unacknowledged data for about fifteen minutes before it gives up. Every
TCP connection dbstor opens to an external server therefore carries kernel-level bounds:

- keepalive probes after KEEPALIVE_IDLE_S of silence, every KEEPALIVE_INTERVAL_S, so an
  idle connection that waits for a reply notices the silence;
- TCP_USER_TIMEOUT of SILENCE_S: data sent and not acknowledged for that long, or
  keepalive probes unanswered for that long, end the connection with "timed out".

A live server's kernel acknowledges data and probes even while the query behind them runs
for an hour, so these bounds end only a connection whose server or network stopped
answering, never a long statement (which a read timeout in the driver would). The user's
own settings (DSN parameters) win over these. See docs/engines.md.
"""

from __future__ import annotations

import errno
import os
import socket
import threading
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

T = TypeVar("T")

KEEPALIVE_IDLE_S = 10
KEEPALIVE_INTERVAL_S = 5
KEEPALIVE_COUNT = 4
SILENCE_S = 30  # TCP_USER_TIMEOUT: how long a connection may hear nothing back


def libpq_bounds(given: Mapping[str, Any]) -> dict[str, Any]:
    """libpq's connection parameters for the bounds, those the user did not set."""
    bounds = {
        "keepalives": 1,
        "keepalives_idle": KEEPALIVE_IDLE_S,
        "keepalives_interval": KEEPALIVE_INTERVAL_S,
        "keepalives_count": KEEPALIVE_COUNT,
        "tcp_user_timeout": SILENCE_S * 1000,  # milliseconds
    }
    return {k: v for k, v in bounds.items() if given.get(k) in (None, "")}


def bound_descriptor(fd: int) -> None:
    """Put the bounds on a TCP connection a driver opened itself (libmariadb's, whose
    socket dbstor cannot hand it): the options are set on a duplicate of its descriptor,
    which share one socket; a Unix socket is left as it is."""
    sock = socket.socket(fileno=os.dup(fd))
    try:
        if sock.family in (socket.AF_INET, socket.AF_INET6):
            _apply_bounds(sock)
    finally:
        sock.close()


def _apply_bounds(sock: socket.socket) -> None:
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)
    for option, value in (
        ("TCP_KEEPIDLE", KEEPALIVE_IDLE_S),
        ("TCP_KEEPINTVL", KEEPALIVE_INTERVAL_S),
        ("TCP_KEEPCNT", KEEPALIVE_COUNT),
        ("TCP_USER_TIMEOUT", SILENCE_S * 1000),
    ):
        if hasattr(socket, option):  # Linux has all four
            sock.setsockopt(socket.IPPROTO_TCP, getattr(socket, option), value)


def address(host: str | None, port: int | str | None) -> str:
    """'host:port' ('[::1]:5432' for IPv6); a socket path as it is."""
    host = host or "localhost"
    if host.startswith("/"):
        return host
    shown = f"[{host}]" if ":" in host else host
    return f"{shown}:{port}" if port not in (None, "") else shown


def timed_out(exc: BaseException) -> bool:
    """Whether an error (or one it was raised from) says the connection timed out."""
    seen: BaseException | None = exc
    for _ in range(5):
        if seen is None:
            break
        if isinstance(seen, TimeoutError) or getattr(seen, "errno", None) == errno.ETIMEDOUT:
            return True
        if "timed out" in str(seen).lower() or "timeout expired" in str(seen).lower():
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def lost_line(title: str, where: str, exc: BaseException) -> str:
    """The start of a point's error when the connection to an external server broke."""
    if timed_out(exc):
        return f"{title} at {where} stopped answering"
    return f"the connection to {title} at {where} broke"


# A connect whose server accepted the TCP connection and never answers (a listener that is
# not the database, a hung server) is not caught by any of the bounds above: the kernel
# acknowledges everything. Every connect to an external server therefore runs under a wall
# clock: its connect timeout, plus this grace for the driver to say so in its own words.
ANSWER_GRACE_S = 3.0


class NoAnswer(TimeoutError):
    """An external server accepted the connection and did not answer within the bound."""


def answer_within(bound_s: float, call: Callable[[], T], parameter: str) -> T:
    """call() (a driver's connect), ended as NoAnswer when it has not returned within
    bound_s + ANSWER_GRACE_S; the message names the bound and the DSN parameter that
    changes it. The abandoned call's thread is a daemon: dbstor never waits for it."""
    outcome: list[Any] = []

    def attempt() -> None:
        try:
            outcome.append((True, call()))
        except BaseException as exc:  # handed to the caller's thread
            outcome.append((False, exc))

    thread = threading.Thread(target=attempt, name="dbstor-connect", daemon=True)
    thread.start()
    thread.join(bound_s + ANSWER_GRACE_S)
    if not outcome:
        raise NoAnswer(
            f"the server accepted the connection but did not answer within {bound_s:g} s "
            f"(is it the database's address? is the server hung? {parameter}=SECONDS in the "
            "DSN changes the bound)"
        )
    ok, value = outcome[0]
    if not ok:
        raise value
    return value


def timed_out_note(text: str, bound_s: float, parameter: str) -> str:
    """The driver's own timeout message with the bound it used and the parameter."""
    if "time" in text.lower() and f"{bound_s:g} s" not in text:
        return f"{text} (gave up after {bound_s:g} s, {parameter})"
    return text

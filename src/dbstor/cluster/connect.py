"""Joining a Ray cluster as its driver: check the address first, keep Ray quiet, stay on the
address the head is reached by (so a loopback cluster stays on loopback)."""

from __future__ import annotations

import ipaddress
import os
import signal
import socket
import sys
import threading
from types import ModuleType
from typing import Any

from dbstor.errors import UserError

RAY_MISSING = (
    "--cluster needs Ray on this host and every host: pip install 'dbstor[cluster]' "
    "(or pip install ray), then run again"
)
REACH_TIMEOUT_S = 5.0


def require_ray() -> ModuleType:
    """Import Ray, or one clear line on how to install it."""
    try:
        import ray
    except ImportError:
        raise UserError(RAY_MISSING) from None
    return ray


def split_address(address: str) -> tuple[str, int]:
    """'HEAD:6379' -> ('HEAD', 6379); anything else is one clear error."""
    host, sep, port = address.rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise UserError(
            f"--cluster {address!r} is not HOST:PORT: give the Ray head's address, "
            "e.g. --cluster 10.0.0.5:6379"
        )
    return host.strip("[]"), int(port)


# A Ray head's port (its GCS) is a gRPC server: HTTP/2, which answers a client's connection
# preface with a SETTINGS frame at once. Anything else on the port (a web server, a database,
# a port that accepts and says nothing) would leave ray.init() retrying for minutes.
H2_PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + bytes([0, 0, 0, 4, 0, 0, 0, 0, 0])
H2_SETTINGS = 4  # the frame type of the server's first frame


def _first_frame(conn: socket.socket) -> bytes:
    """Up to the 9 bytes of a frame header the server sends back ('' if it closed)."""
    got = b""
    while len(got) < 9:
        chunk = conn.recv(9 - len(got))
        if not chunk:
            break
        got += chunk
    return got


def not_ray_reason(conn: socket.socket, timeout_s: float = REACH_TIMEOUT_S) -> str | None:
    """Why the server on this connection is not a Ray head (None when it answers HTTP/2 as
    Ray's GCS does)."""
    conn.settimeout(timeout_s)
    try:
        conn.sendall(H2_PREFACE)
        head = _first_frame(conn)
    except TimeoutError:
        return f"it accepted the connection but said nothing within {timeout_s:g} s"
    except OSError as exc:
        return f"it dropped the connection ({exc.strerror or exc})"
    if head.startswith(b"HTTP/"):
        return "it answered as a web server (HTTP/1)"
    if len(head) < 9:
        return "it closed the connection without answering"
    if head[3] != H2_SETTINGS:
        return "its answer is not Ray's (gRPC over HTTP/2)"
    return None


def local_address_toward(address: str) -> str:
    """The local IP this host uses to reach the head; unreachable, or a port on which
    something other than a Ray head answers -> one clear error, within REACH_TIMEOUT_S."""
    host, port = split_address(address)
    try:
        with socket.create_connection((host, port), timeout=REACH_TIMEOUT_S) as conn:
            own = str(conn.getsockname()[0])
            why = not_ray_reason(conn)
    except OSError as exc:
        raise UserError(
            f"cannot reach the Ray cluster at {address} ({exc.strerror or exc}): start it "
            "with 'ray start --head --port=PORT' there, or fix the address (--cluster, or a "
            "study's [cluster] address)"
        ) from None
    if why is not None:
        raise UserError(
            f"{address} is not a Ray head: {why}; give the port 'ray start --head --port=PORT' "
            "listens on (--cluster, or a study's [cluster] address)"
        )
    return own


def public_address_warning(address: str) -> str | None:
    """A warning when the head's address is a public one (neither loopback nor a private,
    link-local or shared range): whoever reaches a Ray port can run code on every host."""
    host, port = split_address(address)
    try:
        found = {info[4][0] for info in socket.getaddrinfo(host, port, proto=socket.IPPROTO_TCP)}
    except OSError:
        return None  # local_address_toward says what is wrong with it
    public = sorted(ip for ip in found if ipaddress.ip_address(ip.split("%")[0]).is_global)
    if not public:
        return None
    return (
        f"the Ray cluster at {address} is on a public address ({', '.join(public)}): whoever "
        "reaches its ports can run any code on every host; run Ray on loopback or a private "
        "network behind a firewall (docs/cluster.md, Security)"
    )


def connect(address: str) -> ModuleType:
    """Join the cluster at address as its driver and return the ray module."""
    ray = require_ray()
    if ray.is_initialized():
        return ray
    warning = public_address_warning(address)
    if warning:
        print(f"dbstor: warning: {warning}", file=sys.stderr)
    own_ip = local_address_toward(address)
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    kept = own_signal_handlers()
    try:
        ray.init(
            address=address,
            _node_ip_address=own_ip,
            logging_level="ERROR",
            log_to_driver=False,
            namespace="dbstor",
        )
    except (ConnectionError, RuntimeError, ValueError) as exc:
        raise UserError(
            f"cannot join the Ray cluster at {address}: {str(exc).splitlines()[0]}; "
            "check that it is a Ray head ('ray status --address ADDR' there)"
        ) from None
    finally:
        restore_signal_handlers(kept)
    return ray


STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


def own_signal_handlers() -> dict[int, Any]:
    """dbstor's handlers of the stop signals (cli.py: each ends the run like Ctrl-C)."""
    if threading.current_thread() is not threading.main_thread():
        return {}
    return {sig: signal.getsignal(sig) for sig in STOP_SIGNALS}


def restore_signal_handlers(kept: dict[int, Any]) -> None:
    """Put them back: ray.init() installs its own SIGTERM handler, which would end the run
    with status 1 and a stack dump instead of stopping every host and keeping the points."""
    for sig, handler in kept.items():
        if handler is not None:
            signal.signal(sig, handler)

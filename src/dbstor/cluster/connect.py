"""Joining a Ray cluster as its driver: check the address first, keep Ray quiet, stay on the
address the head is reached by (so a loopback cluster stays on loopback)."""

from __future__ import annotations

import os
import socket
from types import ModuleType

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


def local_address_toward(address: str) -> str:
    """The local IP this host uses to reach the head; unreachable -> one clear error."""
    host, port = split_address(address)
    try:
        with socket.create_connection((host, port), timeout=REACH_TIMEOUT_S) as conn:
            return str(conn.getsockname()[0])
    except OSError as exc:
        raise UserError(
            f"cannot reach the Ray cluster at {address} ({exc.strerror or exc}): start it "
            "with 'ray start --head --port=PORT' there, or fix the address (--cluster, or a "
            "study's [cluster] address)"
        ) from None


def connect(address: str) -> ModuleType:
    """Join the cluster at address as its driver and return the ray module."""
    ray = require_ray()
    if ray.is_initialized():
        return ray
    own_ip = local_address_toward(address)
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
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
    return ray

"""An external PostgreSQL server's DSN: its parameters, its passwords (to scrub them from
messages), where it points (host:port for a point's error) and the connection bounds
dbstor adds to it (engines/network.py) where the user set none of their own."""

from __future__ import annotations

import contextlib
import os
import re
from typing import Any

from dbstor.engines.base import mask_dsn
from dbstor.engines.network import address, libpq_bounds
from dbstor.errors import UserError

WHOLE_NUMBERS = {  # libpq's numeric parameters -> their unit
    "port": "",
    "connect_timeout": " of seconds",
    "keepalives": " (0 or 1)",
    "keepalives_idle": " of seconds",
    "keepalives_interval": " of seconds",
    "keepalives_count": "",
    "tcp_user_timeout": " of milliseconds",
}
EXAMPLES = {"port": 5432, "keepalives": 1, "keepalives_count": 4, "tcp_user_timeout": 30000}
SSLMODES = ("disable", "allow", "prefer", "require", "verify-ca", "verify-full")


def dsn_params(dsn: str) -> dict[str, Any]:
    """The DSN's parameters, URI or key=value (UserError when it does not parse)."""
    from psycopg import Error
    from psycopg.conninfo import conninfo_to_dict

    try:
        given = dict(conninfo_to_dict(dsn))
    except (Error, ValueError):
        raise UserError(
            "the PostgreSQL DSN does not parse: write postgresql://user:PASSWORD@host:port/dbname"
            " or key=value pairs"
        ) from None
    for name, value in given.items():  # libpq checks these only when it connects
        parts = str(value).split(",")  # a port per host
        if name in WHOLE_NUMBERS and not all(re.fullmatch(r"\s*-?\d*\s*", v) for v in parts):
            raise UserError(
                f"bad PostgreSQL DSN {mask_dsn(dsn)}: {name} must be a whole number"
                f"{WHOLE_NUMBERS[name]}, e.g. {name}={EXAMPLES.get(name, 10)}"
            )
    if given.get("sslmode") not in (None, *SSLMODES):
        raise UserError(
            f"bad PostgreSQL DSN {mask_dsn(dsn)}: sslmode must be one of {', '.join(SSLMODES)}"
        )
    return given


def dsn_secrets(dsn: str) -> list[str]:
    """Passwords written in a DSN (URI or key=value), to scrub them from messages."""
    found = re.findall(r"://[^:/@\s]+:([^@\s]+)@", dsn)
    found += [m.strip("'") for m in re.findall(r"password\s*=\s*('[^']*'|\S+)", dsn, re.I)]
    with contextlib.suppress(Exception):
        from psycopg.conninfo import conninfo_to_dict

        found.append(str(conninfo_to_dict(dsn).get("password") or ""))
    return sorted({s for s in found if s}, key=len, reverse=True)


def dsn_address(dsn: str) -> str:
    """host:port the DSN points at (libpq's environment and defaults filling gaps)."""
    given = dsn_params(dsn)
    host = str(given.get("host") or os.environ.get("PGHOST") or "localhost")
    port = str(given.get("port") or os.environ.get("PGPORT") or 5432)
    return address(host, port)


def connect_bound(dsn: str, timeout: float) -> float:
    """The seconds libpq waits to connect: the DSN's connect_timeout, PGCONNECT_TIMEOUT,
    else dbstor's `timeout` (libpq reads below 2 as 2; 0 or less as no bound, which dbstor
    bounds at its own)."""
    given = dsn_params(dsn).get("connect_timeout") or os.environ.get("PGCONNECT_TIMEOUT")
    try:
        seconds = float(given) if given not in (None, "") else float(timeout)
    except ValueError:
        return float(timeout)
    return max(2.0, seconds) if seconds > 0 else float(timeout)


def connect_bounds(dsn: str, timeout: float) -> dict[str, Any]:
    """psycopg.connect() keyword arguments bounding every network wait: the keepalive and
    TCP user timeout parameters and connect_timeout (`timeout` seconds), each only where the
    DSN (or PGCONNECT_TIMEOUT) does not set it, since keyword arguments would override it."""
    given = dsn_params(dsn)
    bounds = libpq_bounds(given)
    if given.get("connect_timeout") in (None, "") and not os.environ.get("PGCONNECT_TIMEOUT"):
        bounds["connect_timeout"] = timeout
    return bounds

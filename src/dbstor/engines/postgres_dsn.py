"""An external PostgreSQL server's DSN: its parameters, its passwords (to scrub them from
messages), where it points (host:port for a point's error) and the connection bounds
dbstor adds to it (engines/network.py) where the user set none of their own."""

from __future__ import annotations

import contextlib
import os
import re
from typing import Any

from dbstor.engines.network import address, libpq_bounds
from dbstor.errors import UserError


def dsn_params(dsn: str) -> dict[str, Any]:
    """The DSN's parameters, URI or key=value (UserError when it does not parse)."""
    from psycopg import Error
    from psycopg.conninfo import conninfo_to_dict

    try:
        return dict(conninfo_to_dict(dsn))
    except (Error, ValueError):
        raise UserError(
            "the PostgreSQL DSN does not parse: write postgresql://user:PASSWORD@host:port/dbname"
            " or key=value pairs"
        ) from None


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


def connect_bounds(dsn: str, timeout: float) -> dict[str, Any]:
    """psycopg.connect() keyword arguments bounding every network wait: the keepalive and
    TCP user timeout parameters and connect_timeout (`timeout` seconds), each only where the
    DSN (or PGCONNECT_TIMEOUT) does not set it, since keyword arguments would override it."""
    given = dsn_params(dsn)
    bounds = libpq_bounds(given)
    if given.get("connect_timeout") in (None, "") and not os.environ.get("PGCONNECT_TIMEOUT"):
        bounds["connect_timeout"] = timeout
    return bounds

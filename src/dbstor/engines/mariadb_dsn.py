"""An external MariaDB or MySQL server's DSN, mysql://user:PASSWORD@host:port/, as
mysqlclient's connect() arguments. Query parameters: unix_socket=PATH, and connect_timeout,
read_timeout and write_timeout in seconds (libmariadb's own, rounded up to whole seconds by
mariadb_connect.py; a user's connect_timeout wins over dbstor's)."""

from __future__ import annotations

import urllib.parse
from typing import Any

from dbstor.engines.base import mask_dsn
from dbstor.engines.messages import hide
from dbstor.errors import UserError

TIMEOUTS = ("connect_timeout", "read_timeout", "write_timeout")
MAX_TIMEOUT_S = 31_536_000  # a year: anything longer is a typing slip


def parse_dsn(dsn: str) -> dict[str, Any]:
    """mysqlclient connect() arguments from mysql://user:PASSWORD@host:port/[?unix_socket=...]."""
    try:
        url = urllib.parse.urlsplit(dsn)
        port = url.port or 3306
    except ValueError as exc:
        raise UserError(f"bad MySQL DSN {mask_dsn(dsn)}: {hide(str(exc), [dsn])}") from None
    if url.scheme not in ("mysql", "mariadb", "mysql+pymysql", "mysql+mysqldb"):
        raise UserError(f"bad MySQL DSN {mask_dsn(dsn)}: write mysql://user:PASSWORD@host:port/")
    args: dict[str, Any] = {
        "host": url.hostname or "localhost",
        "port": port,
        "user": urllib.parse.unquote(url.username or ""),
        "password": urllib.parse.unquote(url.password or ""),
    }
    query = urllib.parse.parse_qs(url.query)
    if query.get("unix_socket"):
        args["unix_socket"] = query["unix_socket"][0]
    for name in TIMEOUTS:  # libmariadb's own, in seconds: the user's win over dbstor's
        if query.get(name):
            args[name] = _seconds(name, query[name][0], dsn)
    return args


def _seconds(name: str, text: str, dsn: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 < value <= MAX_TIMEOUT_S:
        raise UserError(
            f"bad MySQL DSN {mask_dsn(dsn)}: {name} must be seconds between 1 and "
            f"{MAX_TIMEOUT_S}, e.g. ?{name}=30"
        )
    return value

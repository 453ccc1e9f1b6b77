"""An external SQL Server's DSN, mssql://user@host:port/database, as pymssql's connect()
arguments. The password comes from DBSTOR_MSSQL_PASSWORD (or, as for the other external
engines, from the DSN itself, best kept in DBSTOR_DSN); it never reaches a process's
arguments, results or messages. Query parameters: login_timeout and timeout in seconds
(pymssql's own: connecting, and each statement's reply; a user's win over dbstor's)."""

from __future__ import annotations

import os
import urllib.parse
from typing import Any

from dbstor.engines.base import mask_dsn
from dbstor.engines.messages import hide
from dbstor.engines.network import address
from dbstor.errors import UserError

PASSWORD_ENV = "DBSTOR_MSSQL_PASSWORD"
SCHEMES = ("mssql", "sqlserver", "mssql+pymssql")
TIMEOUTS = ("login_timeout", "timeout")
MAX_TIMEOUT_S = 31_536_000
EXAMPLE = "mssql://user@host:1433/database (password in DBSTOR_MSSQL_PASSWORD)"


def parse_dsn(dsn: str, env: dict[str, str] | None = None) -> dict[str, Any]:
    """pymssql connect() arguments (server, port, user, password, database and the
    timeouts given); UserError naming the problem, never the password."""
    env = dict(os.environ) if env is None else env
    try:
        url = urllib.parse.urlsplit(dsn)
        port = url.port or 1433
    except ValueError as exc:
        raise UserError(f"bad SQL Server DSN {mask_dsn(dsn)}: {hide(str(exc), [dsn])}") from None
    if url.scheme not in SCHEMES or not url.hostname:
        raise UserError(f"bad SQL Server DSN {mask_dsn(dsn)}: write {EXAMPLE}")
    if not url.username:
        raise UserError(f"bad SQL Server DSN {mask_dsn(dsn)}: it names no login; write {EXAMPLE}")
    database = urllib.parse.unquote(url.path.lstrip("/")) or "master"
    args: dict[str, Any] = {
        "server": url.hostname,
        "port": port,
        "user": urllib.parse.unquote(url.username),
        "password": urllib.parse.unquote(url.password or "") or env.get(PASSWORD_ENV, ""),
        "database": database,
    }
    query = urllib.parse.parse_qs(url.query)
    unknown = sorted(set(query) - set(TIMEOUTS))
    if unknown:
        raise UserError(
            f"bad SQL Server DSN {mask_dsn(dsn)}: unknown parameter {unknown[0]!r}; "
            f"known: {', '.join(TIMEOUTS)}"
        )
    for name in TIMEOUTS:
        if query.get(name):
            args[name] = _seconds(name, query[name][0], dsn)
    return args


def _seconds(name: str, text: str, dsn: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = -1
    if not 0 < value <= MAX_TIMEOUT_S:
        raise UserError(
            f"bad SQL Server DSN {mask_dsn(dsn)}: {name} must be whole seconds between 1 and "
            f"{MAX_TIMEOUT_S}, e.g. ?{name}=30"
        )
    return value


def dsn_address(dsn: str) -> str:
    """host:port the DSN points at, never a password."""
    args = parse_dsn(dsn, {})
    return address(args["server"], args["port"])


def secrets(args: dict[str, Any]) -> list[str]:
    """What to scrub from a message: the password as given and as URL-quoted."""
    password = str(args.get("password") or "")
    return [password, urllib.parse.quote(password)] if password else []

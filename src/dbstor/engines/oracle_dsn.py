"""An external Oracle Database's DSN, oracle://user[:PASSWORD]@host:port/service_name, as
python-oracledb's connect() arguments (thin mode: no Instant Client).

The password comes from the DSN (which comes from DBSTOR_DSN, so it never sits in a
process's arguments) or, when the DSN has none, from DBSTOR_ORACLE_PASSWORD. Query
parameters: connect_timeout (seconds, oracledb's tcp_connect_timeout; the user's wins over
dbstor's), expire_time (minutes between keepalive probes, oracledb's own) and awr (on:
an AWR snapshot at each measured window's edge; off by default, it needs the Diagnostics
Pack licence)."""

from __future__ import annotations

import os
import re
import urllib.parse
from collections.abc import Mapping
from typing import Any

from dbstor.engines.base import mask_dsn
from dbstor.engines.messages import hide
from dbstor.errors import UserError

SCHEMES = ("oracle", "oracle+oracledb")
PASSWORD_ENV = "DBSTOR_ORACLE_PASSWORD"
DEFAULT_PORT = 1521
EXAMPLE = "oracle://user@host:1521/service_name (the password in DBSTOR_ORACLE_PASSWORD)"
KNOWN = ("connect_timeout", "expire_time", "awr")
_SERVICE = re.compile(r"[A-Za-z0-9_.$#-]+")


def parse_dsn(dsn: str, env: Mapping[str, str] | None = None) -> dict[str, Any]:
    """oracledb.connect() keyword arguments (user, password, host, port, service_name and
    the timeouts the DSN sets); UserError naming what is wrong, the password never shown."""
    env = os.environ if env is None else env
    try:
        url = urllib.parse.urlsplit(dsn)
        port = url.port or DEFAULT_PORT
    except ValueError as exc:
        raise UserError(f"bad Oracle DSN {mask_dsn(dsn)}: {hide(str(exc), [dsn])}") from None
    if url.scheme.lower() not in SCHEMES or not url.hostname:
        raise UserError(f"bad Oracle DSN {mask_dsn(dsn)}: write {EXAMPLE}")
    service = url.path.strip("/")
    if not _SERVICE.fullmatch(service):
        raise UserError(
            f"bad Oracle DSN {mask_dsn(dsn)}: name the service after the port, "
            "e.g. oracle://user@host:1521/FREEPDB1"
        )
    user = urllib.parse.unquote(url.username or "")
    if not user:
        raise UserError(f"bad Oracle DSN {mask_dsn(dsn)}: name the user, e.g. {EXAMPLE}")
    password = urllib.parse.unquote(url.password or "") or env.get(PASSWORD_ENV, "")
    if not password:
        raise UserError(
            f"no password for Oracle user {user}: set {PASSWORD_ENV} (or write it in "
            "DBSTOR_DSN, never on the command line)"
        )
    args: dict[str, Any] = {
        "user": user,
        "password": password,
        "host": url.hostname,
        "port": port,
        "service_name": service,
    }
    query = urllib.parse.parse_qs(url.query)
    unknown = sorted(set(query) - set(KNOWN))
    if unknown:
        raise UserError(
            f"bad Oracle DSN {mask_dsn(dsn)}: unknown parameter {unknown[0]}; "
            f"known: {', '.join(KNOWN)}"
        )
    if query.get("connect_timeout"):
        args["tcp_connect_timeout"] = _number(dsn, "connect_timeout", query, "seconds", 30)
    if query.get("expire_time"):
        args["expire_time"] = int(_number(dsn, "expire_time", query, "minutes", 1))
    awr_asked(dsn)  # a bad value is refused with the rest of the DSN
    return args


def awr_asked(dsn: str) -> bool:
    """Whether the DSN asks for AWR snapshots at each window's edge (?awr=on). Off by
    default: AWR needs the Diagnostics Pack licence."""
    try:
        value = urllib.parse.parse_qs(urllib.parse.urlsplit(dsn).query).get("awr", ["off"])[0]
    except ValueError:
        return False  # parse_dsn says what is wrong with the DSN
    if value.lower() not in ("on", "off"):
        raise UserError(
            f"bad Oracle DSN {mask_dsn(dsn)}: awr must be on or off (on takes an AWR "
            "snapshot at each point's edges; it needs the Diagnostics Pack licence)"
        )
    return value.lower() == "on"


def _number(dsn: str, name: str, query: dict[str, list[str]], unit: str, example: int) -> float:
    try:
        value = float(query[name][0])
    except ValueError:
        value = -1.0
    if not 0 < value <= 86_400:
        raise UserError(
            f"bad Oracle DSN {mask_dsn(dsn)}: {name} must be a number of {unit} between "
            f"1 and 86400, e.g. ?{name}={example}"
        )
    return value


def dsn_secrets(dsn: str, env: Mapping[str, str] | None = None) -> list[str]:
    """The passwords a message must never show: the DSN's (as written and decoded) and
    DBSTOR_ORACLE_PASSWORD's."""
    env = os.environ if env is None else env
    found = re.findall(r"://[^:/@\s]+:([^@\s]+)@", dsn)
    found += [urllib.parse.unquote(s) for s in found]
    found.append(env.get(PASSWORD_ENV, ""))
    return sorted({s for s in found if s}, key=len, reverse=True)

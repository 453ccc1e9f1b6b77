"""Secrets hidden in a DSN, or in any message that may quote one: the password and the
value of every parameter but where the server is and who connects."""

from __future__ import annotations

import re

_DSN_PASSWORD = re.compile(r"(://[^:/@\s]+:)[^@\s]*(@)")
_KV_PASSWORD = re.compile(r"(password\s*=\s*)('[^']*'|\S+)", re.IGNORECASE)


# Every query parameter's value of a URL DSN (a misspelt ?pasword= is a password too), and
# in a key=value DSN every value but where the server is and who connects.
_URL_QUERY = re.compile(r"(\w+://[^\s?#]*\?)([^\s#]*)")
_KV_DSN = re.compile(r"\b(?:host|hostaddr|dbname)\s*=")
_KV_VALUE = re.compile(
    r"\b(?!(?:host|hostaddr|port|dbname|user)\s*=)(\w+\s*=\s*)('[^']*'|[^\s'][^\s]*)"
)


def mask_dsn(text: str) -> str:
    """Hide every secret a DSN may hold in it or in any message that may quote one: the
    password, and the value of every parameter, known or not."""
    text = _URL_QUERY.sub(_masked_query, _DSN_PASSWORD.sub(r"\1***\2", text))
    if _KV_DSN.search(text):
        text = _KV_VALUE.sub(r"\1***", text)
    return _KV_PASSWORD.sub(r"\1***", text)


def _masked_query(match: re.Match[str]) -> str:
    """?a=1&b=2 as ?a=***&b=***; a ':' ending the query is the message's, not the value's."""
    query, colon = match.group(2), ""
    if query.endswith(":"):
        query, colon = query[:-1], ":"
    parts = [
        f"{name}={'***' if value else ''}" if sep else name
        for name, sep, value in (part.partition("=") for part in query.split("&"))
    ]
    return match.group(1) + "&".join(parts) + colon

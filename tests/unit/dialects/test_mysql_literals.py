"""MySQL's and MariaDB's SQL literals written by the compiled core (hotpath.sql_literals,
used by dialects/mysql/calls.py's Sender) are mysqlclient's own, byte for byte: its
converters (MySQLdb._mysql.escape with MySQLdb.converters.conversions) are the reference."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal

from dbstor.hotpath import sql_literals
from MySQLdb import _mysql
from MySQLdb.converters import conversions


def reference(value: object) -> bytes:
    text = _mysql.escape(value, conversions)
    return text if isinstance(text, bytes) else text.encode()


def test_literals_are_mysqlclient_s_own():
    values = [
        5,
        -7,
        2**70,
        0,
        None,
        datetime(2030, 1, 2, 3, 4, 5),
        datetime(2030, 1, 2, 3, 4, 5, 12),
        Decimal("12.30"),
        Decimal("-0.05"),
        True,
        1.5,
    ]
    seen: list[object] = []
    assert sql_literals(values, lambda v: seen.append(v) or reference(v)) == tuple(
        reference(v) for v in values
    )
    assert seen == [True, 1.5]  # what the core does not write itself goes to the driver


def test_text_and_zoned_times_go_to_the_connection_s_literal():
    """Text needs the connection's character set and sql_mode (mysql_real_escape_string):
    the core never quotes it itself."""
    zoned = datetime(2030, 1, 2, 3, 4, 5, tzinfo=UTC)
    asked: list[object] = []
    out = sql_literals(["O'Brien", zoned, 3], lambda v: asked.append(v) or b"X")
    assert out == (b"X", b"X", b"3") and asked == ["O'Brien", zoned]

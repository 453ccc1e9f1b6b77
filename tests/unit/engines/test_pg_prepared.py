"""PostgreSQL's hot path parameters in text format (engines/pg_prepared.encode)."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal

from dbstor.engines.pg_prepared import encode


def test_each_parameter_type_in_postgresql_text():
    moment = datetime(2026, 11, 29, 10, 30, 5)
    assert encode(42) == b"42" and encode(-7) == b"-7"
    assert encode(True) == b"1"  # a bool is an int to numeric and int parameters
    assert encode("SMITH") == b"SMITH" and encode("naïve") == "naïve".encode()
    assert encode(None) is None
    assert encode([3, 1, 2]) == b"{3,1,2}"
    assert encode(Decimal("43.21")) == b"43.21" and encode(Decimal("1E+1")) == b"10"
    assert encode(moment) == b"2026-11-29 10:30:05"


def test_a_new_datetime_is_encoded_anew():
    """The last datetime's text is kept by identity: a different moment is never given it."""
    a, b = datetime(2026, 1, 1, 0, 0, 1), datetime(2026, 1, 1, 0, 0, 2)
    assert [encode(a), encode(a), encode(b), encode(a)] == [
        b"2026-01-01 00:00:01",
        b"2026-01-01 00:00:01",
        b"2026-01-01 00:00:02",
        b"2026-01-01 00:00:01",
    ]

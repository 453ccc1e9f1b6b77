"""Numbers for humans."""

from __future__ import annotations

import pytest

from dbstor.report.kit import fmt


@pytest.mark.parametrize(
    ("func", "value", "expected"),
    [
        (fmt.fmt_iops, 41234.4, "41,234"),
        (fmt.fmt_iops, 7.25, "7.2"),
        (fmt.fmt_iops, None, fmt.DASH),
        (fmt.fmt_ms, 0.8312, "0.83 ms"),
        (fmt.fmt_ms, 0.0451, "0.045 ms"),
        (fmt.fmt_ms, 12.34, "12.3 ms"),
        (fmt.fmt_ms, 153.2, "153 ms"),
        (fmt.fmt_ms, float("nan"), fmt.DASH),
        (fmt.fmt_limit_ms, 1.0, "1 ms"),
        (fmt.fmt_limit_ms, 0.5, "0.5 ms"),
        (fmt.fmt_bytes, 1024**3, "1 GiB"),
        (fmt.fmt_bytes, 1.2 * 1024**3, "1.2 GiB"),
        (fmt.fmt_bytes, 512, "512 B"),
        (fmt.fmt_pct, 42.37, "42%"),
        (fmt.fmt_factor, 1.154, "x1.15"),
        (fmt.fmt_num, 0.0, "0"),
        (fmt.fmt_num, 1234567.0, "1,234,567"),
        (fmt.fmt_ratio, 0.99957, "99.96%"),
        (fmt.fmt_ratio, 0.99998, "99.998%"),
        (fmt.fmt_ratio, 0.9621, "96.2%"),
        (fmt.fmt_ratio, 1.0, "100%"),
        (fmt.fmt_ratio, None, fmt.DASH),
        (fmt.fmt_per_txn, 2.61, "2.61"),
        (fmt.fmt_per_txn, 0.00044, "0.00044"),
        (fmt.fmt_per_txn, 0.0, "0"),
    ],
)
def test_formatters(func, value, expected):
    assert func(value) == expected


def test_share():
    assert fmt.fmt_share(1, 24) == "4%"
    assert fmt.fmt_share(1, 200) == "0.5%"
    assert fmt.fmt_share(5, 2) == "250%"
    assert fmt.fmt_share(1, 0) == fmt.DASH


@pytest.mark.parametrize(
    ("kind", "value", "jobs", "compact", "expected"),
    [
        ("iodepth", 8, 1, True, "QD8"),
        ("iodepth", 13.6, 1, False, "QD 13.6"),
        ("iodepth", 8, 4, True, "QD8×4"),
        ("users", 32, 1, True, "32 users"),
        ("instances", 4, 1, False, "4 instances"),
        ("instances", 4, 32, True, "4 inst × 8 users"),
        ("instances", 1, 4, False, "1 instance × 4 users each"),
        ("instances", 2, 2, True, "2 inst × 1 user"),
        ("users", 1, 1, True, "1 user"),
        ("rate", 800, 1, True, "800/s"),
        ("iodepth", None, 1, True, fmt.DASH),
    ],
)
def test_load_text(kind, value, jobs, compact, expected):
    assert fmt.load_text(kind, value, jobs, compact) == expected


def test_fact_values():
    assert fmt.fmt_value(True) == "yes"
    assert fmt.fmt_value([1, "a"]) == "1, a"
    assert fmt.fmt_value(None) == fmt.DASH
    assert fmt.fmt_value(25769803776) == "25,769,803,776"

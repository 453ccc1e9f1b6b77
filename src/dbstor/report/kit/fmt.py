"""Numbers for humans: 41,200 IOPS, 0.83 ms, 1.2 GiB, QD8.

Every formatter takes None and returns a dash, so tables never crash on a missing value.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

DASH = "–"

_LOAD_UNITS = {
    "users": ("users", "users"),
    "instances": ("inst", "instances"),
    "streams": ("streams", "streams"),
    "rate": ("/s", "/s"),
}


def _bad(value: Any) -> bool:
    return value is None or (isinstance(value, float) and not math.isfinite(value))


def fmt_num(value: float | None, digits: int = 3) -> str:
    """A plain number with about `digits` significant digits and thousands separators."""
    if _bad(value):
        return DASH
    value = float(value)  # type: ignore[arg-type]
    if value == 0:
        return "0"
    magnitude = math.floor(math.log10(abs(value)))
    decimals = max(0, digits - 1 - magnitude)
    text = f"{value:,.{decimals}f}"
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text


def fmt_int(value: float | None) -> str:
    """41200.4 -> '41,200'."""
    if _bad(value):
        return DASH
    return f"{round(float(value)):,}"  # type: ignore[arg-type]


def fmt_iops(value: float | None) -> str:
    """IOPS rounded to a useful precision: 41,234 -> '41,234', 7.25 -> '7.3'."""
    if _bad(value):
        return DASH
    return fmt_int(value) if abs(float(value)) >= 100 else fmt_num(value, 2)  # type: ignore[arg-type]


def fmt_ms(value: float | None, unit: bool = True) -> str:
    """Milliseconds: 0.8312 -> '0.83 ms', 0.0451 -> '0.045 ms', 153.2 -> '153 ms'."""
    if _bad(value):
        return DASH
    value = float(value)  # type: ignore[arg-type]
    if value == 0:
        text = "0"
    elif abs(value) >= 100:
        text = f"{value:,.0f}"
    elif abs(value) >= 10:
        text = f"{value:.1f}"
    elif abs(value) >= 0.1:
        text = f"{value:.2f}"
    else:
        text = fmt_num(value, 2)
    return f"{text} ms" if unit else text


def fmt_limit_ms(value: float | None) -> str:
    """An SLO limit as the user wrote it: 1.0 -> '1 ms', 0.5 -> '0.5 ms'."""
    if _bad(value):
        return DASH
    return f"{float(value):g} ms"  # type: ignore[arg-type]


def fmt_pct(value: float | None, decimals: int = 0) -> str:
    """42.37 -> '42%'."""
    if _bad(value):
        return DASH
    return f"{float(value):.{decimals}f}%"  # type: ignore[arg-type]


def fmt_share(part: float, whole: float) -> str:
    """A share as a percentage with sensible precision: '4%', '0.5%', '250%'."""
    if whole <= 0:
        return DASH
    share = 100.0 * part / whole
    if share >= 10:
        return f"{share:,.0f}%"
    if share >= 1:
        return f"{share:.0f}%"
    return f"{share:.1g}%"


def fmt_ratio(value: float | None) -> str:
    """A cache hit ratio as a percentage: 0.99957 -> '99.96%', 0.9 -> '90.0%', 1 -> '100%'."""
    if _bad(value):
        return DASH
    pct = 100.0 * float(value)  # type: ignore[arg-type]
    if pct >= 100:
        return "100%"
    decimals = 1 if pct < 99 else 2 if pct < 99.99 else 3
    return f"{pct:.{decimals}f}%"


def fmt_per_txn(value: float | None) -> str:
    """Operations per transaction: 2.61 -> '2.61', 0.00044 -> '0.00044', 0 -> '0'."""
    if _bad(value):
        return DASH
    return fmt_num(value, 3) if abs(float(value)) >= 0.01 else fmt_num(value, 2)  # type: ignore[arg-type]


def fmt_mbps(value: float | None) -> str:
    """MB/s with three significant digits."""
    return fmt_num(value, 3)


def fmt_bytes(value: float | None) -> str:
    """Binary units: 1073741824 -> '1 GiB', 1288490188 -> '1.2 GiB'."""
    if _bad(value):
        return DASH
    size = float(value)  # type: ignore[arg-type]
    for unit in ("B", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if abs(size) < 1024 or unit == "PiB":
            if unit == "B":
                return f"{size:.0f} B"
            text = f"{size:.1f}"
            return f"{text.removesuffix('.0')} {unit}"
        size /= 1024
    raise AssertionError("unreachable")


def fmt_factor(value: float | None) -> str:
    """1.154 -> 'x1.15', 12.5 -> 'x12.5'."""
    if _bad(value):
        return DASH
    return "x" + fmt_num(value, 3)


def fmt_value(value: Any) -> str:
    """Any fact value as text: booleans as yes/no, floats trimmed, lists joined."""
    if value is None:
        return DASH
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return fmt_num(value, 4)
    if isinstance(value, int):
        return f"{value:,}" if abs(value) >= 10000 else str(value)
    if isinstance(value, list | tuple):
        return ", ".join(fmt_value(v) for v in value)
    return str(value)


def load_text(kind: str | None, value: float | None, jobs: int = 1, compact: bool = True) -> str:
    """A load point for people: 'QD8' (compact) or 'QD 13.6', '8 users', '800/s',
    '4 inst × 8 users' (jobs is the total of users over the instances)."""
    if value is None:
        return DASH
    number = fmt_num(value, 3)
    if kind == "iodepth" or kind is None:
        text = f"QD{number}" if compact else f"QD {number}"
        return f"{text}×{jobs}" if jobs and jobs > 1 else text
    short, long = _LOAD_UNITS.get(kind, (kind, kind))
    if kind == "rate":
        return f"{number}/s"
    if kind == "users" and value == 1:
        return "1 user"
    if kind == "instances" and jobs and jobs > 1 and value:
        each = fmt_num(jobs / value, 3)
        users = "user" if each == "1" else "users"
        if compact:
            return f"{number} inst × {each} {users}"
        return f"{number} {'instance' if value == 1 else 'instances'} × {each} {users} each"
    if kind in ("instances", "streams") and value == 1 and not compact:
        return f"1 {long.rstrip('s')}"  # '1 instance', not '1 instances'
    return f"{number} {short if compact else long}"


def capitalise(text: str) -> str:
    """The text with its first letter upper-case; the rest as it is."""
    return text[:1].upper() + text[1:]


def join_words(words: Sequence[str]) -> str:
    """'a', 'a and b', 'a, b and c'."""
    if len(words) <= 2:
        return " and ".join(words)
    return ", ".join(words[:-1]) + " and " + words[-1]

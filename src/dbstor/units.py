"""Parsing of the quantities users type: sizes, durations, latencies, rates, lists.

Every parser raises ValueError with a message that says what is allowed; callers wrap
it into a UserError naming the flag or the study field.
"""

import re

_SIZE_UNITS = {
    "": 1,
    "B": 1,
    "K": 1024,
    "KB": 1000,
    "KIB": 1024,
    "M": 1024**2,
    "MB": 1000**2,
    "MIB": 1024**2,
    "G": 1024**3,
    "GB": 1000**3,
    "GIB": 1024**3,
    "T": 1024**4,
    "TB": 1000**4,
    "TIB": 1024**4,
    "P": 1024**5,
    "PB": 1000**5,
    "PIB": 1024**5,
}
_NUMBER_UNIT = re.compile(r"^\s*([0-9]*\.?[0-9]+)\s*([a-zA-Z%/]*)\s*$")


def _split(text: str, what: str) -> tuple[float, str]:
    match = _NUMBER_UNIT.match(str(text))
    if not match:
        raise ValueError(f"{text!r} is not a {what}")
    return float(match.group(1)), match.group(2)


def parse_size(text: str | int) -> int:
    """'8GiB' -> bytes. K, M, G, T alone are binary (fio's habit); KB, MB... are decimal."""
    if isinstance(text, int):
        return text
    value, unit = _split(text, "size (e.g. 512MiB, 8GiB, 800GB)")
    factor = _SIZE_UNITS.get(unit.upper())
    if factor is None:
        raise ValueError(
            f"{text!r}: unknown size unit {unit!r}; use B, KiB, MiB, GiB, TiB, KB, MB, GB, TB"
        )
    return int(value * factor)


_TIME_UNITS = {
    "": 1.0,
    "s": 1.0,
    "sec": 1.0,
    "m": 60.0,
    "min": 60.0,
    "h": 3600.0,
    "d": 86400.0,
    "ms": 0.001,
    "us": 1e-6,
}


def parse_duration(text: str | float | int) -> float:
    """'30s', '2m', '1h', 45 -> seconds."""
    if isinstance(text, int | float):
        return float(text)
    value, unit = _split(text, "duration (e.g. 30s, 2m, 1h)")
    factor = _TIME_UNITS.get(unit.lower())
    if factor is None:
        raise ValueError(f"{text!r}: unknown time unit {unit!r}; use s, m, h")
    return value * factor


def parse_latency_ms(text: str | float | int) -> float:
    """'1ms', '500us', '0.02s', 20 (taken as ms) -> milliseconds."""
    if isinstance(text, int | float):
        return float(text)
    value, unit = _split(text, "latency (e.g. 1ms, 500us, 20ms)")
    factors = {"": 1.0, "ms": 1.0, "us": 0.001, "s": 1000.0, "ns": 1e-6}
    factor = factors.get(unit.lower())
    if factor is None:
        raise ValueError(f"{text!r}: unknown latency unit {unit!r}; use us, ms or s")
    return value * factor


def parse_percent(text: str | float | int) -> float:
    """'25%', '25', 25 -> 25.0 (a percentage, 0..100)."""
    if isinstance(text, int | float):
        value = float(text)
    else:
        value, unit = _split(text, "percentage (e.g. 25%)")
        if unit not in ("", "%"):
            raise ValueError(f"{text!r} is not a percentage (e.g. 25%)")
    if not 0 <= value <= 100:
        raise ValueError(f"{text!r} is outside 0..100%")
    return value


def parse_int_list(text: str) -> list[int]:
    """'1,2,4,8' -> [1, 2, 4, 8]; every value a positive whole number."""
    values = []
    for part in str(text).split(","):
        part = part.strip()
        if not part.isdigit() or int(part) <= 0:
            raise ValueError(
                f"{text!r}: expected positive whole numbers separated by commas, e.g. 1,2,4,8"
            )
        values.append(int(part))
    return values


def parse_scale(text: str | float | int) -> int | float:
    """'10' -> 10, '0.01' -> 0.01: a workload scale above zero; whole numbers stay ints."""
    try:
        value = float(text)
    except (TypeError, ValueError):
        raise ValueError(f"{text!r} is not a number, e.g. 10 or 0.1") from None
    if not value > 0 or value != value or value == float("inf"):
        raise ValueError(f"{text!r}: the scale must be above zero, e.g. 10 or 0.1")
    return int(value) if value.is_integer() else value


def parse_option(text: str) -> tuple[str, bool | int | float | str]:
    """'all_warehouses=true' -> ('all_warehouses', True); numbers become numbers."""
    key, sep, raw = str(text).partition("=")
    key, raw = key.strip(), raw.strip()
    if not sep or not key or not raw:
        raise ValueError(f"{text!r}: expected KEY=VALUE, e.g. all_warehouses=true")
    lowered = raw.lower()
    if lowered in ("true", "yes", "on"):
        return key, True
    if lowered in ("false", "no", "off"):
        return key, False
    for kind in (int, float):
        try:
            return key, kind(raw)
        except ValueError:
            continue
    return key, raw


def format_size(n_bytes: float) -> str:
    """Bytes -> '8.0 GiB' (binary units, one decimal)."""
    value = float(n_bytes)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if abs(value) < 1024 or unit == "PiB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    raise AssertionError("unreachable")

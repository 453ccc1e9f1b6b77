"""Parsing of the quantities users type: sizes, durations, latencies, rates, lists.

Every parser raises ValueError with a message that says what is allowed, and only
ValueError, whatever it is given (a boolean is not a number here, and no value is infinite,
not-a-number or beyond the limit the message names); callers wrap it into a UserError naming
the flag or the study field.
"""

import math
import re
from collections.abc import Iterable

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
_NUMBER_UNIT = re.compile(r"^\s*([0-9]*\.?[0-9]+)\s*([a-zA-Z%/]*)\s*$", re.ASCII)

MAX_SIZE = 1024**6  # 1 EiB: beyond any storage dbstor will meet
MAX_DURATION_S = 366 * 86400.0  # a year
MAX_POINT_S = 86400.0  # a load point (or its warm-up) of at most a day
MAX_LATENCY_MS = 3600 * 1000.0  # an hour
MAX_COUNT = 1_000_000  # users, queue depths, instances, streams, repeats...
MAX_SCALE = 100_000  # TPC-H's largest scale factor (100 TB)
MAX_SERIES = 1000  # load points in one series: each is held at least 1 s, after a warm-up
MAX_IODEPTH = 32768  # io_uring's most entries per ring (IORING_MAX_ENTRIES); fio fails above
MAX_FIO_JOBS = 4096  # fio's most jobs in one run (REAL_MAX_JOBS); above it fio stops at start
MIN_BLOCK = 512  # direct I/O moves whole sectors: a block size is a multiple of 512 bytes
MAX_BLOCK = 1024**3  # one I/O of at most 1 GiB (Linux moves at most ~2 GiB in one call)


def _shown(text: object) -> str:
    shown = str(text).lower() if isinstance(text, bool) else repr(text)
    return shown if len(shown) <= 40 else shown[:37] + "..."


def _split(text: object, what: str) -> tuple[float, str]:
    if isinstance(text, bool) or not isinstance(text, str | int | float):
        raise ValueError(f"{_shown(text)} is not a {what}")
    match = _NUMBER_UNIT.match(str(text))
    if not match:
        unsigned = str(text).strip()
        if unsigned.startswith("-") and _NUMBER_UNIT.match(unsigned[1:]):
            raise ValueError(f"{_shown(text)} is negative; give a {what}")
        raise ValueError(f"{_shown(text)} is not a {what}")
    return float(match.group(1)), match.group(2)


def _number(text: object, what: str) -> float:
    """A plain number given as a number (never a boolean, never inf or NaN)."""
    if isinstance(text, bool):
        raise ValueError(f"{str(text).lower()} is not a {what}")
    try:
        value = float(text)  # type: ignore[arg-type]
    except OverflowError:
        return math.inf if text > 0 else -math.inf  # type: ignore[operator]
    if math.isnan(value):
        raise ValueError(f"{_shown(text)} is not a {what}")
    return value


def _at_most(value: float, limit: float, text: object, limit_text: str) -> float:
    if not math.isfinite(value) or value > limit:
        raise ValueError(f"{_shown(text)} is too large: at most {limit_text}")
    if value < 0:
        raise ValueError(f"{_shown(text)} is negative")
    return value


def parse_size(text: str | int) -> int:
    """'8GiB' -> bytes. K, M, G, T alone are binary (fio's habit); KB, MB... are decimal."""
    what = "size (e.g. 512MiB, 8GiB, 800GB)"
    if isinstance(text, int | float) and not isinstance(text, bool):
        value = _number(text, what)
        if not value.is_integer():
            raise ValueError(f"{_shown(text)} is not a whole number of bytes")
        return int(_at_most(value, MAX_SIZE, text, "1024PiB"))
    value, unit = _split(text, what)
    factor = _SIZE_UNITS.get(unit.upper())
    if factor is None:
        raise ValueError(
            f"{_shown(text)}: unknown size unit {unit!r}; use B, KiB, MiB, GiB, TiB, KB, MB, GB, TB"
        )
    return int(_at_most(value * factor, MAX_SIZE, text, "1024PiB"))


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


def parse_duration(text: str | float | int, limit_s: float = MAX_DURATION_S) -> float:
    """'30s', '2m', '1h', 45 -> seconds (0 up to limit_s)."""
    what = "duration (e.g. 30s, 2m, 1h)"
    if isinstance(text, int | float) and not isinstance(text, bool):
        seconds = _number(text, what)
    else:
        value, unit = _split(text, what)
        factor = _TIME_UNITS.get(unit.lower())
        if factor is None:
            raise ValueError(f"{_shown(text)}: unknown time unit {unit!r}; use s, m, h")
        seconds = value * factor
    return _at_most(seconds, limit_s, text, _duration_text(limit_s))


def _duration_text(seconds: float) -> str:
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size and seconds % size == 0:
            return f"{seconds / size:.0f}{unit}"
    return f"{seconds:g}s"


def parse_point_duration(text: str | float | int) -> float:
    """How long a load point is held: at least 1 s, at most a day."""
    seconds = parse_duration(text, MAX_POINT_S)
    if seconds < 1:
        raise ValueError(f"{_shown(text)}: must be at least 1s")
    return seconds


def parse_warmup(text: str | float | int) -> float:
    """A load point's warm-up: 0 up to a day."""
    return parse_duration(text, MAX_POINT_S)


def parse_timeout(text: str | float | int) -> float:
    """A time limit (a query's): above 0, at most a year; 0 would fail everything at once."""
    seconds = parse_duration(text)
    if seconds <= 0:
        raise ValueError(f"{_shown(text)}: a time limit must be above 0s, e.g. 10min")
    return seconds


def parse_memory(text: str | int) -> int:
    """A cache size or a memory cap: a size above 0 bytes (0 would read as not given; each
    engine then names its own least, e.g. 64 MiB for a managed server)."""
    n_bytes = parse_size(text)
    if n_bytes < 1:
        raise ValueError(f"{_shown(text)} leaves no memory: give a size above 0, e.g. 256MiB")
    return n_bytes


def parse_latency_ms(text: str | float | int) -> float:
    """'1ms', '500us', '0.02s', 20 (taken as ms) -> milliseconds (0 up to an hour)."""
    what = "latency (e.g. 1ms, 500us, 20ms)"
    if isinstance(text, int | float) and not isinstance(text, bool):
        ms = _number(text, what)
    else:
        value, unit = _split(text, what)
        factors = {"": 1.0, "ms": 1.0, "us": 0.001, "s": 1000.0, "ns": 1e-6}
        factor = factors.get(unit.lower())
        if factor is None:
            raise ValueError(f"{_shown(text)}: unknown latency unit {unit!r}; use us, ms or s")
        ms = value * factor
    return _at_most(ms, MAX_LATENCY_MS, text, "1h (3600000ms)")


def parse_percent(text: str | float | int) -> float:
    """'25%', '25', 25 -> 25.0 (a percentage, 0..100)."""
    if isinstance(text, int | float) and not isinstance(text, bool):
        value = _number(text, "percentage (e.g. 25%)")
    else:
        value, unit = _split(text, "percentage (e.g. 25%)")
        if unit not in ("", "%"):
            raise ValueError(f"{_shown(text)} is not a percentage (e.g. 25%)")
    if not 0 <= value <= 100:
        raise ValueError(f"{_shown(text)} is outside 0..100%")
    return value


def parse_int_list(text: str, limit: int = MAX_COUNT) -> list[int]:
    """'1,2,4,8' -> [1, 2, 4, 8]; every value a positive whole number up to limit, each
    once, at most MAX_SERIES of them."""
    values = []
    parts = str(text).split(",")
    if len(parts) > MAX_SERIES:
        raise ValueError(f"{len(parts):,} values: a series has at most {MAX_SERIES:,} points")
    for part in parts:
        part = part.strip()
        if not (part.isascii() and part.isdigit()) or int(part) <= 0:
            raise ValueError(
                f"{_shown(text)}: expected positive whole numbers separated by commas, e.g. 1,2,4,8"
            )
        if len(part) > 18 or int(part) > limit:
            raise ValueError(f"{_shown(text)}: {part} is too large: at most {limit}")
        values.append(int(part))
    return list(distinct_series(values))


def distinct_series(values: Iterable[int]) -> tuple[int, ...]:
    """A load series whose values each appear once and that has at most MAX_SERIES points:
    a value twice would measure one load twice under two names (repeats measures a point
    again), and a series without bound would run for ever."""
    series = tuple(values)
    if len(series) > MAX_SERIES:
        raise ValueError(f"{len(series):,} values: a series has at most {MAX_SERIES:,} points")
    seen: set[int] = set()
    for value in series:
        if value in seen:
            raise ValueError(
                f"{value} is listed twice: give each load once (repeats measures a point again)"
            )
        seen.add(value)
    return series


def first_repeat(items: Iterable[object]) -> object | None:
    """The first item given a second time (a name, a key, a role), or None: a list of names
    or KEY=VALUE pairs whose keys are meant to differ is refused on it."""
    seen: set[object] = set()
    for item in items:
        if item in seen:
            return item
        seen.add(item)
    return None


def parse_block_size(text: str | int) -> int:
    """An I/O's size, as fio moves it with direct I/O: a multiple of 512 bytes, at most 1GiB."""
    n_bytes = parse_size(text)
    if n_bytes < MIN_BLOCK or n_bytes % MIN_BLOCK:
        raise ValueError(
            f"{_shown(text)} is not a block size direct I/O can move: give a multiple of "
            "512 bytes, e.g. 4KiB, 8KiB or 64KiB"
        )
    if n_bytes > MAX_BLOCK:
        raise ValueError(f"{_shown(text)} is too large for one I/O: at most 1GiB")
    return n_bytes


def parse_scale(text: str | float | int) -> int | float:
    """'10' -> 10, '0.01' -> 0.01: a workload scale above zero, at most MAX_SCALE; whole
    numbers stay ints."""
    if isinstance(text, bool) or not isinstance(text, str | int | float):
        raise ValueError(f"{_shown(text)} is not a number, e.g. 10 or 0.1")
    try:
        value = float(text)
    except (ValueError, OverflowError):
        raise ValueError(f"{_shown(text)} is not a number, e.g. 10 or 0.1") from None
    if math.isnan(value):
        raise ValueError(f"{_shown(text)} is not a number, e.g. 10 or 0.1")
    if value <= 0:
        raise ValueError(f"{_shown(text)}: the scale must be above zero, e.g. 10 or 0.1")
    if value > MAX_SCALE:  # inf included
        raise ValueError(f"{_shown(text)} is too large: the scale is at most {MAX_SCALE}")
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
            number = kind(raw)
        except (ValueError, OverflowError):
            continue
        if math.isfinite(number) and abs(number) < 2**63:
            return key, number
    return key, raw


def format_size(n_bytes: float) -> str:
    """Bytes -> '8.0 GiB' (binary units, one decimal)."""
    value = float(n_bytes)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if abs(value) < 1024 or unit == "PiB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    raise AssertionError("unreachable")

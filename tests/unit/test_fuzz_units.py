"""Property-based: the unit parsers take anything and give a value in range or a ValueError
(the callers turn it into one UserError line), never another exception."""

from __future__ import annotations

import math

from hypothesis import given, settings
from hypothesis import strategies as st

from dbstor.units import (
    MAX_COUNT,
    MAX_DURATION_S,
    MAX_LATENCY_MS,
    MAX_POINT_S,
    MAX_SCALE,
    MAX_SIZE,
    parse_duration,
    parse_int_list,
    parse_latency_ms,
    parse_option,
    parse_percent,
    parse_point_duration,
    parse_scale,
    parse_size,
    parse_warmup,
)

UNITS = ["", "s", "m", "h", "d", "ms", "us", "ns", "K", "KiB", "MB", "GiB", "T", "PiB", "%", "x"]
NUMBERS = st.one_of(
    st.integers(min_value=-(10**30), max_value=10**30).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.from_regex(r"\A[0-9]{0,400}\.?[0-9]{1,400}\Z"),
)
SHAPED = st.builds(
    lambda n, sp, u: f"{n}{sp}{u}", NUMBERS, st.sampled_from(["", " "]), st.sampled_from(UNITS)
)
ANYTHING = st.one_of(
    SHAPED,
    st.text(max_size=60),
    st.integers(min_value=-(10**400), max_value=10**400),
    st.floats(allow_nan=True, allow_infinity=True),
    st.booleans(),
    st.none(),
    st.lists(st.integers(), max_size=3),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
)
FAST = settings(max_examples=150, deadline=None)


def _value_or_value_error(parse, value):
    try:
        return parse(value)
    except ValueError as exc:
        assert str(exc), "a ValueError must say what is wrong"
        return None


@FAST
@given(ANYTHING)
def test_sizes(value):
    size = _value_or_value_error(parse_size, value)
    assert size is None or (isinstance(size, int) and 0 <= size <= MAX_SIZE)


@FAST
@given(ANYTHING)
def test_durations(value):
    for parse, limit in ((parse_duration, MAX_DURATION_S), (parse_warmup, MAX_POINT_S)):
        seconds = _value_or_value_error(parse, value)
        assert seconds is None or (math.isfinite(seconds) and 0 <= seconds <= limit)
    point = _value_or_value_error(parse_point_duration, value)
    assert point is None or 1 <= point <= MAX_POINT_S


@FAST
@given(ANYTHING)
def test_latencies(value):
    ms = _value_or_value_error(parse_latency_ms, value)
    assert ms is None or (math.isfinite(ms) and 0 <= ms <= MAX_LATENCY_MS)


@FAST
@given(ANYTHING)
def test_percentages(value):
    pct = _value_or_value_error(parse_percent, value)
    assert pct is None or 0 <= pct <= 100


@FAST
@given(ANYTHING)
def test_scales(value):
    scale = _value_or_value_error(parse_scale, value)
    assert scale is None or (0 < scale <= MAX_SCALE and not isinstance(scale, bool))


@FAST
@given(st.one_of(st.text(max_size=40), st.lists(NUMBERS, max_size=4).map(",".join)))
def test_count_lists(value):
    counts = _value_or_value_error(parse_int_list, value)
    assert counts is None or all(0 < c <= MAX_COUNT for c in counts)


@FAST
@given(
    st.one_of(
        st.text(max_size=40), st.builds(lambda k, v: f"{k}={v}", st.text(max_size=5), NUMBERS)
    )
)
def test_options(value):
    option = _value_or_value_error(parse_option, value)
    if option is not None and isinstance(option[1], float):
        assert math.isfinite(option[1])


def test_the_limit_is_in_the_message():
    for parse, text, limit in (
        (parse_duration, "99999999h", "at most 366d"),
        (parse_point_duration, "2d", "at most 1d"),
        (parse_size, "9999PiB", "at most 1024PiB"),
        (parse_scale, "1e12", f"at most {MAX_SCALE}"),
        (parse_int_list, "1,2000000", f"at most {MAX_COUNT}"),
        (parse_latency_ms, "7200s", "at most 1h"),
    ):
        try:
            parse(text)
        except ValueError as exc:
            assert limit in str(exc), (text, str(exc))
        else:
            raise AssertionError(f"{text!r} was accepted")


def test_a_boolean_is_not_a_quantity():
    for parse in (parse_duration, parse_size, parse_latency_ms, parse_percent, parse_scale):
        for value in (True, False):
            assert _value_or_value_error(parse, value) is None, (parse, value)

import pytest

from dbstor.units import (
    format_size,
    parse_duration,
    parse_int_list,
    parse_latency_ms,
    parse_percent,
    parse_size,
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("8GiB", 8 * 1024**3),
        ("8G", 8 * 1024**3),
        ("800GB", 800 * 10**9),
        ("512MiB", 512 * 1024**2),
        ("4k", 4096),
        (4096, 4096),
        ("1.5KiB", 1536),
    ],
)
def test_parse_size(text, expected):
    assert parse_size(text) == expected


@pytest.mark.parametrize("bad", ["8XB", "GiB", "-1G", ""])
def test_parse_size_rejects(bad):
    with pytest.raises(ValueError):
        parse_size(bad)


def test_durations_and_latencies():
    assert parse_duration("30s") == 30
    assert parse_duration("2m") == 120
    assert parse_duration("1h") == 3600
    assert parse_latency_ms("1ms") == 1.0
    assert parse_latency_ms("500us") == 0.5
    assert parse_latency_ms("0.02s") == 20.0
    assert parse_latency_ms(15) == 15.0
    with pytest.raises(ValueError, match="latency unit"):
        parse_latency_ms("3 parsecs")


def test_percent_and_lists():
    assert parse_percent("25%") == 25.0
    with pytest.raises(ValueError):
        parse_percent("125%")
    assert parse_int_list("1,2,4, 8") == [1, 2, 4, 8]
    for bad in ("1,x", "0,1", "1,,2"):
        with pytest.raises(ValueError, match="positive whole numbers"):
            parse_int_list(bad)


def test_format_size():
    assert format_size(1024**3) == "1.0 GiB"
    assert format_size(512) == "512 B"

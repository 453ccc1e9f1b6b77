"""--data: what the io profiles write, parsed into fio's own options."""

from __future__ import annotations

import pytest

from dbstor.errors import UserError
from dbstor.study.data import DataPattern, from_ratios, parse_data_pattern


def test_incompressible_is_the_default_and_adds_no_fio_option():
    assert parse_data_pattern("incompressible") == DataPattern()
    assert DataPattern().fio_options() == {}


def test_a_ratio_becomes_fios_compress_percentage():
    data = parse_data_pattern("1.8:1")
    assert (data.kind, data.compression, data.dedupe_pct) == ("ratio", 1.8, 0.0)
    options = data.fio_options()
    assert options["buffer_compress_percentage"] == "44"  # 1 - 1/1.8 of each chunk repeats
    assert options["refill_buffers"] == "1" and options["dedupe_percentage"] == "0"


def test_a_dedup_share_goes_to_fio_dedupe_percentage():
    data = parse_data_pattern("1.5:1,dedupe=20%")
    assert data.fio_options()["dedupe_percentage"] == "20"
    assert data.fio_options()["buffer_compress_percentage"] == "33"


@pytest.mark.parametrize(
    "text",
    ["", "1.8", "0.5:1", "1000:1", "1.8:1,dedupe=100%", "1.8:1,dupe=5%", "from:", "2:1,dedupe=x%"],
)
def test_bad_data_is_one_clear_line(text):
    with pytest.raises(UserError, match="--data"):
        parse_data_pattern(text)


def test_from_keeps_the_source_and_turns_a_dedup_ratio_into_a_share():
    assert parse_data_pattern("from:/u02/oradata") == DataPattern(
        kind="from", source="/u02/oradata"
    )
    data = from_ratios("/u02/oradata", 1.8, 1.25)
    assert data.compression == 1.8 and data.dedupe_pct == pytest.approx(20.0)

"""Array models, sampling plans and interval arithmetic: hand-computed expectations."""

import math

import pytest

from dbstor.analysis.efficiency.arrays import PRESETS, resolve_array
from dbstor.analysis.efficiency.compressors import parse_compressor
from dbstor.analysis.efficiency.sampling import (
    RatioSums,
    Stratum,
    combined_ratio,
    ratio_interval,
    sample_counts,
    savings_pct,
    stratified_units,
)

K = 1024


def test_8k_group_in_4k_blocks_never_saves_more_than_2_to_1():
    m = PRESETS["ontap-adaptive"]
    assert m.stored_size(1, 8 * K) == 4 * K
    assert m.stored_size(4 * K, 8 * K) == 4 * K
    assert m.stored_size(4 * K + 1, 8 * K) == 8 * K
    assert m.stored_size(9 * K, 8 * K) == 8 * K  # incompressible: stored as is
    assert min(8 * K / m.stored_size(c, 8 * K) for c in range(1, 9 * K, 97)) == 1.0
    assert max(8 * K / m.stored_size(c, 8 * K) for c in range(1, 9 * K, 97)) == 2.0


def test_32k_group_never_saves_more_than_8_to_1():
    m = PRESETS["ontap-secondary"]
    assert m.stored_size(10, 32 * K) == 4 * K
    assert m.stored_size(12 * K + 5, 32 * K) == 16 * K
    assert m.stored_size(40 * K, 32 * K) == 32 * K
    # other group sizes measured under this model round to its 4K blocks
    assert m.stored_size(100, 8 * K, 8 * K) == 4 * K


def test_partial_last_group_rounds_to_whole_blocks():
    m = PRESETS["ontap-adaptive"]
    assert m.stored_size(5000, 5000) == 8 * K  # 5000 bytes take two 4K blocks uncompressed
    assert m.stored_size(100, 5000) == 4 * K


def test_bucket_model_uses_smallest_bucket_and_skips_missing_one():
    m = PRESETS["xtremio-x2"]
    assert m.stored_size(900, 16 * K) == 1 * K
    assert m.stored_size(13 * K + 1, 16 * K) == 15 * K  # no 14K bucket
    assert m.stored_size(15 * K + 1, 16 * K) == 16 * K


def test_custom_array_spec():
    m = resolve_array("custom:block=4K,group=32K")
    assert (m.block, m.group, m.dedup_block) == (4 * K, 32 * K, 4 * K)
    m = resolve_array("custom:block=4K,group=8K,dedup=8K,buckets=2K/4K/6K")
    assert m.buckets == (2 * K, 4 * K, 6 * K) and m.dedup_block == 8 * K
    assert m.stored_size(2049, 8 * K) == 4 * K
    assert not resolve_array("custom:block=4K,group=none").compresses


@pytest.mark.parametrize(
    "spec",
    [
        "netapp",
        "custom:group=8K",
        "custom:block=4K,group=6K",
        "custom:block=4K,size=8K",
        "custom:block=3",
    ],
)
def test_bad_array_specs_raise_one_message(spec):
    with pytest.raises(ValueError) as err:
        resolve_array(spec)
    assert "\n" not in str(err.value)


def test_every_preset_names_a_source():
    for m in PRESETS.values():
        assert m.source and m.description


def test_compressor_names():
    assert parse_compressor("lz4") == "lz4"
    assert parse_compressor("ZSTD") == "zstd:3"
    assert parse_compressor("zstd:9") == "zstd:9"
    for bad in ("gzip", "zstd:0", "zstd:x"):
        with pytest.raises(ValueError):
            parse_compressor(bad)


def test_stratified_sample_takes_one_unit_per_stratum():
    picks = stratified_units(1000, 50, seed=1)
    assert len(picks) == 50 and picks == sorted(picks)
    for j, u in enumerate(picks):
        assert j * 20 <= u < (j + 1) * 20
    assert picks == stratified_units(1000, 50, seed=1)  # fixed seed: same sample
    assert picks != stratified_units(1000, 50, seed=2)
    assert stratified_units(10, 20, seed=1) == list(range(10))


def test_sample_counts_rate_and_minimum():
    assert sample_counts([1000, 3000], 0.05, 0) == [50, 150]
    # a minimum of 400 units is spread by size: 100 and 300
    assert sample_counts([1000, 3000], 0.05, 400) == [100, 300]
    assert sample_counts([10, 0], 0.05, 10_000) == [10, 0]
    assert sample_counts([100], 1.0, 0) == [100]


def test_combined_ratio_full_sample_has_no_error():
    sums = RatioSums()
    for x, y in [(8, 4), (8, 8), (8, 4), (8, 8)]:
        sums.add(x, y)
    ratio, se = combined_ratio([Stratum(sums, 32, 4, 4)])
    assert ratio == pytest.approx(0.75) and se == 0


def test_combined_ratio_sampled_error_by_hand():
    # 4 sampled units of 100 in a file of 100 units; stored fractions 0.5,1,0.5,1
    sums = RatioSums()
    for y in (4, 8, 4, 8):
        sums.add(8, y)
    ratio, se = combined_ratio([Stratum(sums, 800, 4, 100)])
    # residuals +-2, s^2 = 16/3; var(r) = (1-0.04) * (16/3) / (4 * 64)
    assert ratio == pytest.approx(0.75)
    assert se == pytest.approx(math.sqrt(0.96 * (16 / 3) / 256))


def test_ratio_interval_and_savings():
    ratio, lo, hi = ratio_interval(0.5, 0.0)
    assert (ratio, lo, hi) == (2.0, 2.0, 2.0)
    ratio, lo, hi = ratio_interval(0.5, 0.05)
    assert lo < 2.0 < hi
    assert savings_pct(1.8) == pytest.approx(44.444, abs=1e-3)
    assert savings_pct(None) is None

"""Scanning files with known answers, and 5% samples against full scans.

Synthetic files: random data (~1:1), zeros, repeated blocks with an exact dedup ratio,
text; and real SQLite databases (8 KiB pages, realistic rows) built here.
"""

import os
import random
import sqlite3
import time

import pytest

from dbstor.analysis.efficiency import estimate
from dbstor.analysis.efficiency.sampling import savings_pct
from dbstor.analysis.efficiency.scanner import list_files
from dbstor.analysis.efficiency.worker import Segment, TokenBucket, scan_segment
from dbstor.errors import UserError

K = 1024
MB = 1024 * 1024


def _write(path, chunks):
    with open(path, "wb") as f:
        for c in chunks:
            f.write(c)
    return str(path)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("eff")
    rng = random.Random(42)
    out = {}
    out["random"] = _write(d / "random.bin", [rng.randbytes(MB) for _ in range(8)])
    out["zeros"] = _write(d / "zeros.bin", [bytes(MB)] * 4)
    # 16 distinct random 4K blocks in order, 2048 blocks: dedup exactly 2048 / 16 = 128;
    # no block repeats inside a 32K unit, so nothing compresses either
    distinct = [rng.randbytes(4 * K) for _ in range(16)]
    out["repeated"] = _write(d / "repeated.bin", [distinct[i % 16] for i in range(2048)])
    # per 32K unit: zero, random, zero, one, zero, random, zero, one -> half zero blocks,
    # a quarter distinct random blocks, a quarter copies of one block
    one, zero = rng.randbytes(4 * K), bytes(4 * K)
    mix = []
    for _ in range(128):
        mix += [zero, rng.randbytes(4 * K), zero, one, zero, rng.randbytes(4 * K), zero, one]
    out["mixed"] = _write(d / "mixed.bin", mix)
    # 2000 distinct blocks, each twice: dedup exactly 2 in any slice of the hash space
    pairs = [rng.randbytes(4 * K) for _ in range(2000)]
    out["pairs"] = _write(d / "pairs.bin", pairs + pairs)
    words = [
        "select",
        "insert",
        "update",
        "customer",
        "order",
        "trade",
        "price",
        "quantity",
        "status",
        "pending",
    ]
    text = " ".join(rng.choice(words) + str(rng.randrange(1000)) for _ in range(1_600_000)).encode()
    out["text"] = _write(d / "text.txt", [text[: 12 * MB]])
    out["aaaa"] = _write(d / "aaaa.bin", [b"a" * (2 * MB)])
    return out


def _sqlite_db(path, rows, seed):
    rng = random.Random(seed)
    con = sqlite3.connect(path)
    con.execute("PRAGMA page_size=8192")
    con.execute("PRAGMA journal_mode=OFF")
    con.execute(
        "CREATE TABLE trade(id INTEGER PRIMARY KEY, cust INT, symbol TEXT, qty INT, "
        "price REAL, ts TEXT, status TEXT, note TEXT)"
    )
    words = [
        "alpha",
        "bravo",
        "charlie",
        "delta",
        "echo",
        "foxtrot",
        "golf",
        "hotel",
        "india",
        "juliet",
    ]
    con.executemany(
        "INSERT INTO trade VALUES (?,?,?,?,?,?,?,?)",
        (
            (
                i,
                rng.randrange(50_000),
                f"SYM{rng.randrange(500):04d}",
                rng.randrange(1, 1000),
                round(rng.uniform(1, 500), 2),
                f"2015-06-{rng.randrange(1, 31):02d} {rng.randrange(24):02d}:{rng.randrange(60):02d}",
                rng.choice(["CMPT", "PNDG", "SBMT", "CNCL"]),
                " ".join(rng.choice(words) for _ in range(rng.randrange(2, 9))),
            )
            for i in range(rows)
        ),
    )
    con.execute("CREATE INDEX trade_sym ON trade(symbol, ts)")
    con.commit()
    con.close()
    return str(path)


@pytest.fixture(scope="module")
def databases(tmp_path_factory):
    d = tmp_path_factory.mktemp("db")
    return [_sqlite_db(d / "a.db", 200_000, 1), _sqlite_db(d / "b.db", 120_000, 2)]


def _full(paths, **kw):
    return estimate(paths, full=True, workers=1, **kw)


def test_random_data_does_not_compress_or_dedup(files):
    r = _full([files["random"]])
    assert r["zero_block_pct"] == 0
    assert r["dedup_ratio"] == 1.0 and r["dedup_exact"]
    for m in r["compression"]:
        assert m["ratio"] == pytest.approx(1.0, abs=0.001)
    assert r["total_ratio"] == pytest.approx(1.0, abs=0.001)
    assert r["bytes_scanned"] == 8 * MB == r["bytes_read"]


def test_zeros_are_zero_blocks_and_nothing_is_stored(files):
    r = _full([files["zeros"]])
    assert r["zero_block_pct"] == 100.0
    assert r["compression_ratio"] == 1.0  # no non-zero group to compress
    assert r["total_ratio"] is None and r["physical_bytes"] == 0


def test_repeated_blocks_give_exact_dedup_ratio(files):
    r = _full([files["repeated"]], array="generic-4k-dedup")
    assert r["dedup_ratio"] == 128.0
    assert r["dedup_blocks_counted"] == 2048 and r["dedup_blocks_distinct"] == 16
    assert r["total_ratio"] == 128.0  # dedup-only array: nothing else saves space


def test_mixed_zero_and_duplicate_blocks(files):
    r = _full([files["mixed"]], array="generic-4k-dedup")
    assert r["zero_block_pct"] == 50.0
    # 512 non-zero blocks, 257 distinct (256 random + 1 repeated)
    assert r["dedup_ratio"] == pytest.approx(512 / 257, abs=1e-3)
    assert r["total_ratio"] == pytest.approx(1024 / 257, abs=1e-3)


def test_compression_limits_hold_for_very_compressible_data(files):
    r = _full([files["aaaa"]])
    by = {(m["group"], m["compressor"]): m["ratio"] for m in r["compression"]}
    assert by[(8 * K, "lz4")] == 2.0 and by[(8 * K, "zstd")] == 2.0
    assert by[(32 * K, "lz4")] == 8.0 and by[(32 * K, "zstd")] == 8.0
    assert r["histogram"]["stored"] == [{"bytes": 4 * K, "groups": 256}]


def test_dedup_with_fingerprint_limit_is_estimated(files):
    exact = _full([files["pairs"]], array="generic-4k-dedup")
    approx = _full([files["pairs"]], array="generic-4k-dedup", max_fingerprints=500)
    assert exact["dedup_exact"] and exact["dedup_ratio"] == 2.0
    assert not approx["dedup_exact"] and approx["dedup_blocks_distinct"] <= 500
    assert approx["dedup_ratio"] == 2.0
    assert any("fingerprint limit" in n for n in approx["notes"])


def _within_one_point(sampled, full):
    for key in ("compression_ratio", "dedup_ratio", "total_ratio"):
        assert abs(savings_pct(sampled[key]) - savings_pct(full[key])) <= 1.0, key
    assert abs(sampled["zero_block_pct"] - full["zero_block_pct"]) <= 1.0
    by_full = {(m["group"], m["compressor"]): m["ratio"] for m in full["compression"]}
    for m in sampled["compression"]:
        assert (
            abs(savings_pct(m["ratio"]) - savings_pct(by_full[(m["group"], m["compressor"])]))
            <= 1.0
        )


@pytest.mark.parametrize("name", ["random", "text", "mixed", "repeated"])
def test_five_percent_sample_within_one_point_synthetic(files, name):
    full = _full([files[name]])
    sampled = estimate([files[name]], rate=0.05, min_units=0, workers=1)
    assert sampled["mode"] == "sampled" and sampled["effective_sample_pct"] < 10
    _within_one_point(sampled, full)


def test_five_percent_sample_within_one_point_sqlite(databases):
    for array in ("ontap-adaptive", "ontap-secondary"):
        full = estimate(databases, full=True, array=array)
        sampled = estimate(databases, rate=0.05, min_units=0, array=array)
        assert sampled["effective_sample_pct"] < 6
        _within_one_point(sampled, full)
        lo, hi = sampled["compression_ratio_ci95"]
        assert lo <= full["compression_ratio"] <= hi
        assert full["compression_ratio"] > 1.05  # database pages do compress


def test_sample_only_reads_less_and_says_dedup_is_a_lower_bound(files):
    r = estimate([files["text"]], rate=0.05, min_units=0, read_all=False, workers=1)
    assert r["bytes_read"] < 0.1 * r["bytes_scanned"]
    assert "lower bound" in r["dedup_scope"]


def test_two_workers_agree_with_one(databases):
    one = estimate(databases, full=True, workers=1)
    two = estimate(databases, full=True, workers=2)
    assert two["workers"] == 2
    for key in ("zero_block_pct", "dedup_ratio", "compression_ratio", "total_ratio", "bytes_read"):
        assert one[key] == two[key]


def test_per_file_breakdown(files):
    r = _full([files["zeros"], files["aaaa"]])
    by = {os.path.basename(f["path"]): f for f in r["per_file"]}
    assert by["zeros.bin"]["zero_block_pct"] == 100.0
    assert by["aaaa.bin"]["compression_ratio"] == 2.0
    assert by["aaaa.bin"]["stored_bytes"] == MB


def test_missing_path_is_a_user_error(tmp_path):
    with pytest.raises(UserError, match="no such file"):
        estimate([str(tmp_path / "nope")])


def test_unreadable_file_is_reported_and_skipped(files, monkeypatch, tmp_path):
    bad = _write(tmp_path / "secret.bin", [b"x" * 100])
    real_open = os.open

    def fake_open(path, *args, **kw):
        if str(path) == bad:
            raise PermissionError(13, "Permission denied", path)
        return real_open(path, *args, **kw)

    monkeypatch.setattr(os, "open", fake_open)
    found, skipped, _ = list_files([("data", str(tmp_path)), ("data", files["aaaa"])])
    assert [f.path for f in found] == [files["aaaa"]]
    assert skipped[0].path == bad and "denied" in skipped[0].reason


def test_a_file_that_changed_is_noted(files):
    from dbstor.analysis.efficiency.arrays import PRESETS
    from dbstor.analysis.efficiency.estimate import make_settings

    settings = make_settings(PRESETS["ontap-adaptive"], "lz4")
    st = os.stat(files["aaaa"])
    seg = Segment(0, files["aaaa"], 0, 64, None, st.st_size, st.st_mtime_ns - 1)
    res = scan_segment(settings, seg, {}, lambda b: 1, {}, 0, None)
    assert any("changed" in n for n in res.notes)


def test_token_bucket_limits_rate():
    bucket = TokenBucket(rate=2_000_000, burst=100_000)
    start = time.monotonic()
    for _ in range(5):
        bucket.take(100_000)
    # 500 kB at 2 MB/s after a 100 kB burst: at least 0.2 s
    assert time.monotonic() - start >= 0.18


def test_throttled_scan_is_slower(files):
    start = time.monotonic()
    estimate([files["random"]], full=True, workers=1, throttle_mbps=10, matrix=False)
    assert time.monotonic() - start >= 0.3  # 8 MiB at 10 MB/s after a 4 MiB burst: 0.42 s

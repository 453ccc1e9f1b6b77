"""Peak, knee and cache sentences, read from golden runs and edited copies of them."""

from __future__ import annotations

from dbstor.report.kit.summary import (
    Slo,
    cache_sentence,
    knee_of,
    knee_sentence,
    peak_of,
    peak_sentence,
    point_flags,
    reads_from_memory,
    slo_of,
)
from dbstor.results.model import LatencyStats, Load, Point, Run


def test_slo_names():
    assert Slo("read_lat_p99_ms", 1.0).text == "SLO 1 ms p99 read"
    assert Slo("write_lat_p999_ms", 5).name == "p99.9 write"
    assert Slo("read_lat_mean_ms", 20).text == "SLO 20 ms mean read"
    assert Slo("txn_lat_p95_ms", 20).name == "p95 transaction"


def test_knee_sentence_uses_the_runs_knee(fc: Run):
    assert knee_sentence(fc) == "knee: 47,702 IOPS at QD 23.8 (p99 read 1.00 ms, SLO 1 ms)"
    knee = knee_of(fc)
    assert knee.state == "found"


def test_knee_is_computed_from_the_points_whatever_the_run_stored(fc: Run):
    stored = knee_sentence(fc)
    fc.knee = {"load": 4, "iops": 1.0, "within_slo": True}  # an older folder's wrong knee
    knee = knee_of(fc)
    assert knee.state == "found"
    assert knee.load_value == 16 + 16 * (1 - 0.76) / (1.25 - 0.76)
    assert knee_sentence(fc) == stored


def test_knee_when_no_point_is_within_the_slo(iscsi: Run):
    iscsi.slo = {"metric": "read_lat_p99_ms", "limit_ms": 0.1}
    assert knee_sentence(iscsi) == "knee: no point within the SLO (p99 read ≤ 0.1 ms)"


def test_knee_beyond_the_highest_load(tmpfs: Run):
    tmpfs.points = [p for p in tmpfs.points if p.ok]
    text = knee_sentence(tmpfs)
    assert text.startswith(
        "knee: every point within the SLO; the knee lies beyond the highest load"
    )
    assert "298,000 IOPS at QD 4" in text


def test_knee_not_reached_when_a_higher_point_failed(tmpfs: Run):
    text = knee_sentence(tmpfs)  # QD 16 failed: the disk filled up
    assert text.startswith("knee: every finished point within the SLO; the point at QD 16 failed (")
    assert text.endswith(
        "so the knee was not reached (298,000 IOPS at QD 4, p99 read 0.019 ms, SLO 1 ms)"
    )


def test_knee_unknown_when_metric_missing(fc: Run):
    for point in fc.points:
        point.read_lat_ms = None
    assert knee_of(fc).state == "unknown"
    assert "not measured" in knee_sentence(fc)


def test_peak_sentence(fc: Run, tmpfs: Run):
    assert peak_sentence(fc) == "peak: 54,100 IOPS at QD 64 (p99 read 1.90 ms)"
    assert peak_sentence(tmpfs).startswith("peak: 298,000 IOPS at QD 4")
    for point in tmpfs.points:
        point.status = "failed"
    assert peak_sentence(tmpfs) == "peak: none (no load point finished)"


def test_flags(fc: Run, tmpfs: Run):
    by_load = {p.load.value: point_flags(p) for p in fc.points}
    assert by_load[32] == ["not steady"] and by_load[64] == ["saturated"] and by_load[1] == []
    flags = {p.load.value: point_flags(p) for p in tmpfs.points}
    assert flags[4] == ["noisy", "few ops for p99.9"]
    assert flags[16] == ["failed"]


def test_cache_sentence_direct_io_with_array_cache(fc: Run):
    assert cache_sentence(fc) == (
        "The 1 GiB test file is 4% of host memory (24 GiB): direct I/O bypasses the host page "
        "cache, but an array cache of 64 GiB could hold it all."
    )


def test_cache_sentence_variants(fc: Run, tmpfs: Run):
    assert "buffered I/O" in cache_sentence(tmpfs)
    fc.target["facts"] = {"array_cache": "512MiB"}
    assert cache_sentence(fc).endswith("but an array cache of 512 MiB could hold 50% of it.")
    fc.target["facts"] = {}
    fc.host = {}
    assert cache_sentence(fc) == "The 1 GiB test file: direct I/O bypasses the host page cache."
    fc.workload = {"name": "io-oltp"}
    assert cache_sentence(fc) is None


def test_bare_run_without_slo_or_numbers():
    run = Run(
        "r",
        "0",
        {},
        {},
        {},
        {},
        {},
        {},
        "now",
        points=[Point(Load("users", 8), 10.0, read_lat_ms=LatencyStats())],
    )
    assert slo_of(run).limit_ms is None
    assert knee_sentence(run) == "knee: no SLO set"
    assert peak_sentence(run).startswith("peak: IOPS not measured at 8 users")  # never 0


def test_database_slo_names_the_device(sqlite_run: Run):
    slo = slo_of(sqlite_run)
    assert slo.device and slo.text == "SLO 1 ms mean device read"
    assert Slo("txn_lat_p99_ms", 5, device=True).name == "p99 transaction"


def test_database_peak_and_knee(sqlite_run: Run, postgres_run: Run):
    assert peak_sentence(sqlite_run) == (
        "peak: 5,918 TPS at 8 users (transaction p99 13.8 ms; device 2,646 IOPS, "
        "mean device read 0.35 ms)"
    )
    assert knee_sentence(sqlite_run) == (
        "knee: every point within the SLO; the knee lies beyond the highest load (5,918 TPS, "
        "2,646 device IOPS at 8 users, mean device read 0.35 ms, SLO 1 ms)"
    )
    assert knee_sentence(postgres_run) == (
        "knee: 5,332 TPS, 18,738 device IOPS at 4.62 instances (mean device read 1.00 ms, SLO 1 ms)"
    )
    postgres_run.knee = None  # computed from the points, transactions included
    knee = knee_of(postgres_run)
    assert round(knee.tps) == 5332
    sqlite_run.peak = None
    assert peak_of(sqlite_run).load.value == 8  # the most transactions, not the most IOPS


def test_database_flags(sqlite_run: Run, postgres_run: Run, default_pair):
    assert point_flags(sqlite_run.points[0]) == ["from memory"]
    assert point_flags(postgres_run.points[3]) == []
    _, db = default_pair[0]
    assert point_flags(db.points[0]) == ["few ops for p99.9", "from memory"]
    point = postgres_run.points[0]
    point.cache_hit_ratio = 0.995
    assert not reads_from_memory(point)  # 2.4 device, 2.61 engine reads per transaction
    point.engine_io["engine_physical_reads_per_txn"] = 0.01
    assert reads_from_memory(point)  # the engine read from memory: the device's were others'
    point.engine_io = None
    assert reads_from_memory(point)  # no engine counts: the hit ratio decides
    point.cache_hit_ratio = 0.96
    assert not reads_from_memory(point)


def test_a_peak_without_a_transaction_p99_says_why(postgres_run: Run):
    """Too few transactions for a p99 (the shrunk TR-4403 example: 611 at 2 instances):
    the card says so, not 'transaction p99 –'."""
    said = peak_sentence(postgres_run)
    assert "transaction p99 " in said and "–" not in said
    point = peak_of(postgres_run)
    assert point is not None and point.txn_lat_ms is not None
    point.txn_lat_ms = LatencyStats(mean=32.6, p50=15.8, p95=121.4, p99=None, count=611)
    said = peak_sentence(postgres_run)
    assert "(transaction p99 not stated: 611 transactions, too few for a p99; device" in said
    point.txn_lat_ms = None
    assert "(transaction p99 not measured; device" in peak_sentence(postgres_run)

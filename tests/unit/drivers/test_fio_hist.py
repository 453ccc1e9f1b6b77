"""fio's per-second latency histogram logs read into bins (drivers/fio_hist.py), on a
recorded log of fio 3.33 (randread 4 KiB, psync, 1 s per line) and recorded json+ output."""

import json
from pathlib import Path

from dbstor.drivers.fio_hist import bin_value_ns, collect_hist_logs, parse_hist_log

FIXTURES = Path(__file__).parents[2] / "fixtures" / "fio"


def test_bin_values_are_the_ones_fio_prints_in_its_json_plus_output():
    values = {bin_value_ns(i) for i in range(1856)}
    for name in ("randrw-8k-qd4-1job.json", "randread-8k-qd4-2jobs-steadystate-unmet.json"):
        data = json.loads((FIXTURES / name).read_text())
        for job in data["jobs"]:
            for direction in ("read", "write"):
                bins = job[direction]["clat_ns"].get("bins") or {}
                assert {int(k) for k in bins} <= values
    assert [bin_value_ns(i) for i in (0, 127, 128, 129)] == [0, 127, 129, 131]
    assert bin_value_ns(1855) > 10**10  # the last bin: tens of seconds


def test_a_recorded_log_gives_one_histogram_per_second_with_that_seconds_counts():
    text = (FIXTURES / "randread-4k-psync-clat-hist.1.log").read_text()
    seconds = parse_hist_log(text)
    assert sorted(seconds) == [0, 1, 2]
    counts = [sum(seconds[s].values()) for s in range(3)]
    assert all(c > 1000 for c in counts)  # thousands of reads a second, not a running total
    assert max(counts) < 3 * min(counts)
    assert parse_hist_log(text, direction=1) == {}  # no writes in a randread


def test_jobs_logs_are_summed_per_second_and_removed(tmp_path):
    text = (FIXTURES / "randread-4k-psync-clat-hist.1.log").read_text()
    job = tmp_path / "p1.fio"
    for n in (1, 2):
        (tmp_path / f"p1_clat_hist.{n}.log").write_text(text)
    merged = collect_hist_logs(job)
    one = parse_hist_log(text)
    assert len(merged) == 3
    assert sum(merged[0].values()) == 2 * sum(one[0].values())
    assert not list(tmp_path.glob("*_clat_hist.*.log"))
    assert collect_hist_logs(job) == []

"""fio's completion-latency histogram logs (`write_hist_log`, `log_hist_msec=1000`): one
line per job, direction and second with the counts of that second only (fio writes the
difference from the last line), in fio's own 1,856 bins. Summed over jobs per second they
give the reads' latency distribution of every measured second, from which the interval of
a tail percentile is had (analysis/batch_quantiles.py)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from dbstor.safefs import remove_file

PLAT_BITS = 6  # FIO_IO_U_PLAT_BITS: 64 bins per power of two
PLAT_VAL = 1 << PLAT_BITS
HIST_MSEC = 1000


def bin_value_ns(index: int) -> int:
    """The latency (ns) fio gives bin `index`, as its plat_idx_to_val does (and json+ prints)."""
    if index < (PLAT_VAL << 1):
        return index
    error_bits = (index >> PLAT_BITS) - 1
    base = 1 << (error_bits + PLAT_BITS)
    k = index % PLAT_VAL
    return int(base + (k + 0.5) * (1 << error_bits))


def parse_hist_log(text: str, direction: int = 0) -> dict[int, Counter[int]]:
    """One job's histogram log -> {second (0 = first logged): Counter(bin ns -> count)}
    for one direction (0 read, 1 write)."""
    out: dict[int, Counter[int]] = {}
    for line in text.splitlines():
        parts = line.split(",")
        if len(parts) < 4:
            continue
        try:
            msec, which = int(parts[0]), int(parts[1])
            counts = [int(p) for p in parts[3:]]
        except ValueError:
            continue
        if which != direction:
            continue
        second = max(0, round(msec / HIST_MSEC) - 1)
        bins = out.setdefault(second, Counter())
        for index, count in enumerate(counts):
            if count:
                bins[bin_value_ns(index)] += count
    return out


def collect_hist_logs(job_file: Path) -> list[dict[int, int]]:
    """Sum the per-job read histogram logs (<stem>_clat_hist.N.log) per second; remove
    them. One {bin ns: count} per logged second, in order ([] when fio wrote none)."""
    totals: dict[int, Counter[int]] = {}
    for log in sorted(job_file.parent.glob(f"{job_file.stem}_clat_hist.*.log")):
        for second, bins in parse_hist_log(log.read_text(encoding="utf-8")).items():
            totals.setdefault(second, Counter()).update(bins)
        remove_file(log)
    if not totals:
        return []
    return [dict(totals.get(s, Counter())) for s in range(max(totals) + 1)]

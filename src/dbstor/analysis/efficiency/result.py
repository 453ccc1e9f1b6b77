"""Turn a scan into the figures a user reads: ratios with intervals, per file, histogram.

Definitions (ratios are numbers: 1.8 means 1.8:1):
- zero_block_pct: bytes in all-zero dedup blocks, % of bytes scanned.
- dedup_ratio: non-zero blocks / distinct non-zero blocks.
- compression_ratio: the bytes the array model stores the compression groups that are not
  all zero in uncompressed / compressed (each group rounded up to a block or bucket); a
  group is never stored larger than uncompressed, so the ratio is at least 1:1 (a small
  file's tail takes a whole block either way).
- total_ratio: bytes scanned / (stored bytes of non-zero groups / dedup_ratio); it takes
  dedup and compression savings as independent, as a sizing estimate does.
"""

from __future__ import annotations

from typing import Any

from dbstor.analysis.efficiency.compressors import short_name
from dbstor.analysis.efficiency.sampling import (
    Z95,
    RatioSums,
    Stratum,
    combined_ratio,
    ratio_interval,
    savings_pct,
)
from dbstor.analysis.efficiency.scanner import FileAcc, ScanOutput, dedup_estimate
from dbstor.analysis.efficiency.worker import HIST_BINS

SCHEMA = 1


def _r(x: float | None, nd: int = 3) -> float | None:
    return None if x is None else round(x, nd)


def _nzg_total(acc: FileAcc, g: int, read_all: bool) -> float:
    """The file's bytes in non-zero groups of size g: counted, or estimated from the sample."""
    if read_all:
        return float(acc.seg.nzg.get(g, 0))
    sums = acc.seg.nzg_sums.get(g)
    if sums is None or not sums.sx:
        return 0.0
    return acc.entry.size * sums.sy / sums.sx


def _strata(out: ScanOutput, g: int, comp: str) -> list[Stratum]:
    strata = []
    for acc in out.files:
        sums = acc.seg.comp.get((g, comp), RatioSums())
        strata.append(
            Stratum(
                sums, _nzg_total(acc, g, out.settings.read_all), acc.seg.units_sampled, acc.units
            )
        )
    return strata


def compression_figure(out: ScanOutput, g: int, comp: str) -> dict[str, Any]:
    """Stored fraction of non-zero group bytes -> ratio with a 95% interval."""
    fraction, se = combined_ratio(_strata(out, g, comp))
    if fraction is None:  # nothing but zeros: nothing to compress
        return {
            "group": g,
            "compressor": comp,
            "ratio": 1.0,
            "ci95": [1.0, 1.0],
            "stored_fraction": None,
        }
    ratio, lo, hi = ratio_interval(fraction, se)
    return {
        "group": g,
        "compressor": comp,
        "ratio": _r(ratio),
        "ci95": [_r(lo), _r(hi)],
        "savings_pct": _r(savings_pct(ratio), 2),
        "stored_fraction": fraction,
        "se": se,
    }


def build(
    out: ScanOutput, *, paths: list[str], mode: str, rate: float, seed: int
) -> dict[str, Any]:
    """The result dictionary (what --json prints)."""
    s = out.settings
    model = s.model
    read_all = s.read_all
    logical = sum(a.entry.size for a in out.files)
    head_comp = s.compressors[0]

    zero_bytes, zero_pct, zero_ci = _zero_blocks(out, logical, read_all)

    dedup, dedup_se, counted, distinct = dedup_estimate(out.fingerprints, out.fp_level)
    dedup_ratio = dedup if dedup is not None else 1.0
    dedup_ci = [_r(max(1.0, dedup_ratio - Z95 * dedup_se)), _r(dedup_ratio + Z95 * dedup_se)]

    matrix = [compression_figure(out, g, c) for g in s.group_sizes for c in s.compressors]
    head_fig = next(
        m for m in matrix if m["group"] == s.head_group and m["compressor"] == head_comp
    )
    nonzero_logical = logical - zero_bytes
    if model.compresses:
        comp_ratio = head_fig["ratio"]
        comp_ci = head_fig["ci95"]
        nzg = sum(_nzg_total(a, s.head_group, read_all) for a in out.files)
        frac = head_fig["stored_fraction"]
        stored = nzg * frac if frac is not None else 0.0
    else:
        comp_ratio, comp_ci = 1.0, [1.0, 1.0]
        stored = nonzero_logical
    physical = stored / dedup_ratio
    total = logical / physical if physical > 0 else None
    total_ci = _total_interval(total, head_fig, dedup_ratio, dedup_se, model.compresses)
    _add_total_ratios(out, matrix, logical, dedup_ratio)
    per_file = _per_file(out, head_comp)
    bytes_read = sum(a.seg.bytes_read for a in out.files)
    notes = _notes(out, mode, dedup_ratio, logical)
    return {
        "schema": SCHEMA,
        "tool": "dbstor efficiency",
        "paths": paths,
        "array": model.to_dict(),
        "compressor": head_comp,
        "mode": mode,
        "sample_pct": round(rate * 100, 3) if mode == "sampled" else 100.0,
        "effective_sample_pct": _r(
            100.0
            * sum(a.seg.units_sampled for a in out.files)
            / max(1, sum(a.units for a in out.files)),
            2,
        ),
        "seed": seed,
        "dedup_scope": "all blocks" if read_all else "sampled units only (lower bound)",
        "dedup_block": s.dedup_block,
        "fingerprint": out.fingerprint_name,
        "files": len(out.files),
        "files_skipped": [{"path": k.path, "reason": k.reason} for k in out.skipped],
        "bytes_scanned": logical,
        "bytes_read": bytes_read,
        "bytes_compressed": sum(a.seg.bytes_compressed for a in out.files),
        "zero_block_pct": _r(zero_pct, 2),
        "zero_block_pct_ci95": [_r(zero_ci[0], 2), _r(zero_ci[1], 2)],
        "dedup_ratio": _r(dedup_ratio),
        "dedup_ratio_ci95": dedup_ci,
        "dedup_exact": out.fp_level == 0 and read_all,
        "dedup_blocks_counted": counted,
        "dedup_blocks_distinct": distinct,
        "compression_ratio": _r(comp_ratio),
        "compression_ratio_ci95": comp_ci,
        "compression_group": s.head_group,
        "total_ratio": _r(total),
        "total_ratio_ci95": total_ci,
        "physical_bytes": round(physical),
        "compression": [
            {**m, "compressor": short_name(m["compressor"]), "compressor_spec": m["compressor"]}
            for m in matrix
        ],
        "histogram": _histogram(out, head_comp),
        "per_file": per_file,
        "elapsed_s": round(out.seconds, 3),
        "mb_per_s": round(bytes_read / out.seconds / 1e6, 1) if out.seconds > 0 else None,
        "workers": out.workers,
        "notes": notes,
    }


def _total_interval(
    total: float | None,
    head_fig: dict[str, Any],
    dedup_ratio: float,
    dedup_se: float,
    compresses: bool,
) -> list[float | None]:
    """The total ratio's 95% interval: compression's and dedup's relative errors together
    where the array compresses, dedup's alone where it does not."""
    total_ci: list[float | None] = [None, None]
    if total is not None and compresses and head_fig["stored_fraction"]:
        q = head_fig["stored_fraction"]
        rel = (head_fig["se"] / q) ** 2 + (dedup_se / dedup_ratio) ** 2
        spread = Z95 * rel**0.5
        total_ci = [_r(total / (1 + spread)), _r(total / max(1 - spread, 1e-9))]
    elif total is not None:
        total_ci = [
            _r(total * (1 - Z95 * dedup_se / dedup_ratio)),
            _r(total * (1 + Z95 * dedup_se / dedup_ratio)),
        ]
    return total_ci


def _add_total_ratios(
    out: ScanOutput, matrix: list[dict[str, Any]], logical: int, dedup_ratio: float
) -> None:
    """Each compression figure's total ratio (with dedup), its working fields removed."""
    read_all = out.settings.read_all
    for m in matrix:
        q = m.pop("stored_fraction")
        se = m.pop("se", 0.0)
        del se
        nzg_g = sum(_nzg_total(a, m["group"], read_all) for a in out.files)
        phys = nzg_g * q / dedup_ratio if q is not None else 0.0
        m["total_ratio"] = _r(logical / phys) if phys > 0 else None


def _histogram(out: ScanOutput, head_comp: str) -> dict[str, Any]:
    """The head group's compressed sizes in bins, and the stored sizes counted."""
    head_hist, stored_hist = _histograms(out)
    group = out.settings.head_group
    width = group // HIST_BINS
    return {
        "group": group,
        "compressor": head_comp,
        "bin_bytes": width,
        "bins": [
            {"from": i * width, "to": (i + 1) * width, "groups": c} for i, c in enumerate(head_hist)
        ],
        "stored": [{"bytes": k, "groups": stored_hist[k]} for k in sorted(stored_hist)],
    }


def _zero_blocks(out: ScanOutput, logical: int, read_all: bool) -> tuple[float, float, list[float]]:
    """Zero blocks: counted when every block was read, else estimated from the sample;
    (bytes, % of the logical bytes, its 95% interval in %)."""
    if read_all:
        zero_bytes = float(sum(a.seg.zero_bytes for a in out.files))
        zero_se = 0.0
    else:
        strata = [
            Stratum(a.seg.zero_sums, float(a.entry.size), a.seg.units_sampled, a.units)
            for a in out.files
        ]
        frac, zero_se = combined_ratio(strata)
        zero_bytes = (frac or 0.0) * logical
        zero_se *= logical
    zero_pct = 100.0 * zero_bytes / logical if logical else 0.0
    zero_ci = [
        max(0.0, 100.0 * (zero_bytes - Z95 * zero_se) / logical) if logical else 0.0,
        min(100.0, 100.0 * (zero_bytes + Z95 * zero_se) / logical) if logical else 0.0,
    ]
    return zero_bytes, zero_pct, zero_ci


def _per_file(out: ScanOutput, head_comp: str) -> list[dict[str, Any]]:
    """Each file's own figures at the head group and compressor."""
    s = out.settings
    model, read_all = s.model, s.read_all
    per_file = []
    for a in out.files:
        sums = a.seg.comp.get((s.head_group, head_comp), RatioSums())
        file_comp = (sums.sx / sums.sy) if (sums.sy and model.compresses) else 1.0
        if read_all:
            fz = a.seg.zero_bytes
        else:
            zs = a.seg.zero_sums
            fz = a.entry.size * zs.sy / zs.sx if zs.sx else 0
        per_file.append(
            {
                "path": a.entry.path,
                "role": a.entry.role,
                "bytes": a.entry.size,
                "bytes_read": a.seg.bytes_read,
                "zero_block_pct": _r(100.0 * fz / a.entry.size if a.entry.size else 0.0, 2),
                "compression_ratio": _r(file_comp),
                "stored_bytes": round(_nzg_total(a, s.head_group, read_all) / file_comp)
                if model.compresses
                else round(a.entry.size - fz),
                "units_sampled": a.seg.units_sampled,
                "units": a.units,
                "notes": a.seg.notes,
            }
        )
    return per_file


def _histograms(out: ScanOutput) -> tuple[list[int], dict[int, int]]:
    """The head group's compressed-size histogram and stored sizes, summed over the files."""
    head_hist = [0] * HIST_BINS
    stored_hist: dict[int, int] = {}
    for a in out.files:
        for i, c in enumerate(a.seg.hist):
            head_hist[i] += c
        for k, c in a.seg.stored_hist.items():
            stored_hist[k] = stored_hist.get(k, 0) + c
    return head_hist, stored_hist


def _notes(out: ScanOutput, mode: str, dedup_ratio: float, logical: int) -> list[str]:
    notes = []
    s = out.settings
    if not s.read_all:
        notes.append(
            "only the sampled units were read: zero blocks are estimated and the dedup ratio "
            "counts duplicates inside the sample only (a lower bound); drop --dedup sample for exact figures"
        )
    if out.fp_level:
        notes.append(
            f"more distinct blocks than the fingerprint limit: dedup estimated from 1/{2**out.fp_level} "
            "of the hash space"
        )
    sampled = sum(a.seg.units_sampled for a in out.files) < sum(a.units for a in out.files)
    if mode == "sampled" and sampled:
        notes.append("compression is estimated from a stratified random sample; intervals are 95%")
    changed = sum(1 for a in out.files if any("changed" in n or "shrank" in n for n in a.seg.notes))
    if changed:
        notes.append(f"{changed} file(s) changed while they were read (see per_file notes)")
    if out.skipped:
        notes.append(f"{len(out.skipped)} path(s) could not be read and were skipped")
    if logical == 0:
        notes.append("nothing to scan: no files were found, or only empty ones")
    return notes

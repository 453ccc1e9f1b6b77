"""What the io profiles write: incompressible data (the default), data with a given
compression ratio and dedup share, or data as compressible as a real database's files.

Arrays that compress and deduplicate inline do less work for compressible data, so the
data written is part of what a run measured: it is recorded with every io run, and a
ratio is turned into fio's own options (buffer_compress_percentage, buffer_compress_chunk,
dedupe_percentage). What fio really wrote is then measured with dbstor's efficiency
scanner (runs/io/prepare.py), because the compressor and the array's allocation unit decide
the ratio achieved, not the share of repeated bytes alone.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dbstor.errors import UserError

DATA_HELP = (
    "incompressible (default), a compression ratio such as 1.8:1 with an optional dedup "
    "share (1.8:1,dedupe=20%%), or from:PATH (files or a database run folder) to write data "
    "as compressible as those files"
)
COMPRESS_CHUNK = 4096  # fio fills each 4K chunk with this share of repeated bytes
MAX_RATIO = 100.0
_RATIO = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*:\s*1\s*$")


@dataclass(frozen=True)
class DataPattern:
    kind: str = "incompressible"  # incompressible | ratio | from
    compression: float = 1.0  # intended compression ratio, x:1
    dedupe_pct: float = 0.0  # intended share of blocks that are duplicates
    source: str | None = None  # from: the files or run folder whose ratios were measured
    # from: the source's figures per block class (zero_block_pct, compression of the
    # non-zero blocks, dedup), so that the test files can be checked class by class
    source_figures: dict[str, float] | None = field(default=None, compare=False)
    # how the user gave it, for messages: the flag, or the study file and its key
    given_as: str = field(default="--data", compare=False)

    @property
    def incompressible(self) -> bool:
        return self.kind == "incompressible"

    def fio_options(self) -> dict[str, str]:
        """fio's options for this data ({} for incompressible: fio's random refills)."""
        if self.incompressible:
            return {}
        compress_pct = round(100 * (1 - 1 / self.compression))
        return {
            "refill_buffers": "1",
            "buffer_compress_percentage": str(compress_pct),
            "buffer_compress_chunk": str(COMPRESS_CHUNK),
            "dedupe_percentage": str(round(self.dedupe_pct)),
        }

    def describe(self) -> dict[str, Any]:
        out = {
            "kind": self.kind,
            "compression": self.compression,
            "dedupe_pct": self.dedupe_pct,
            "source": self.source,
            "fio": self.fio_options(),
        }
        if self.source_figures is not None:
            out["source_figures"] = dict(self.source_figures)
        return out


def parse_data_pattern(
    text: str | None, name: str = "--data", base_dir: Path | None = None
) -> DataPattern:
    """--data: incompressible | RATIO[,dedupe=PCT] | from:PATH_OR_RUN (the ratios of a
    from: source are measured later, by resolve_data_pattern). `name` is how the user gave
    it (a flag, or a study file's key) for messages; a relative from: path is read from
    `base_dir` (a study file's folder, as its targets' paths are), else from here; None
    (not given) is incompressible."""
    if text is None:
        return DataPattern()
    if not isinstance(text, str):
        raise UserError(f'{name}: give a string such as "1.8:1" or "incompressible"')
    value = text.strip()
    if value.lower() == "incompressible":
        return DataPattern()
    if value.lower().startswith("from:"):
        source = value[5:].strip()
        if not source:
            raise UserError(f"{name} from: give a path or a run folder, e.g. from:/u02/oradata")
        if base_dir is not None:
            source = str(base_dir / Path(source).expanduser())
        return DataPattern(kind="from", source=source, given_as=name)
    ratio_text, _, rest = value.partition(",")
    match = _RATIO.match(ratio_text)
    if not match:
        raise UserError(
            f"{name} {value!r}: give incompressible, a ratio such as 1.8:1 (optionally "
            "1.8:1,dedupe=20%), or from:PATH"
        )
    ratio = float(match.group(1))
    if not 1.0 <= ratio <= MAX_RATIO:
        raise UserError(f"{name} {value!r}: the compression ratio must be 1:1 to {MAX_RATIO:g}:1")
    dedupe = 0.0
    if rest:
        key, _, pct = rest.partition("=")
        if key.strip().lower() != "dedupe" or not pct.strip().endswith("%"):
            raise UserError(
                f"{name} {value!r}: after the ratio give dedupe=PCT%, e.g. 1.8:1,dedupe=20%"
            )
        try:
            dedupe = float(pct.strip()[:-1])
        except ValueError:
            raise UserError(f"{name} {value!r}: dedupe= needs a percentage, e.g. 20%") from None
        if not 0.0 <= dedupe < 100.0:
            raise UserError(f"{name} {value!r}: dedupe must be 0% up to (not including) 100%")
    return DataPattern(kind="ratio", compression=ratio, dedupe_pct=dedupe)


def from_ratios(
    source: str,
    compression: float,
    dedup_ratio: float,
    zero_block_pct: float | None = None,
    given_as: str = "--data",
) -> DataPattern:
    """The data of a from: source once its files were measured: the same compression ratio
    and the dedup share that gives the same dedup ratio (1 - 1/ratio of blocks duplicate);
    the source's figures by block class are kept to check the test files against."""
    dedupe = max(0.0, min(99.0, 100.0 * (1.0 - 1.0 / dedup_ratio))) if dedup_ratio else 0.0
    figures = {"compression": round(compression, 3), "dedup": round(dedup_ratio, 3)}
    if zero_block_pct is not None:
        figures["zero_block_pct"] = round(zero_block_pct, 2)
    # The source's groups hold its zero blocks, which compress to nothing: fio writes the
    # other blocks, so they get the ratio without them (zero blocks are written after).
    nonzero = compression * (1.0 - (zero_block_pct or 0.0) / 100.0)
    return DataPattern(
        kind="from",
        compression=max(1.0, min(MAX_RATIO, round(nonzero, 3))),
        dedupe_pct=round(dedupe, 1),
        source=source,
        source_figures=figures,
        given_as=given_as,
    )

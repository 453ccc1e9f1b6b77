"""The TPC-H data, made by tpchgen-cli into a staging folder on the target.

tpchgen-cli (Apache-2.0, pip install tpchgen-cli) is a Rust port of TPC's dbgen: for a
given scale factor it writes the same rows every time (dbgen's own data), in TBL, CSV or
Parquet, on all CPUs, optionally split into parts (--parts N: <table>/<table>.<k>.<ext>).
At scale factor 1 it writes about 1.1 GB of CSV or 0.35 GB of Parquet in 5 to 7 s here.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from dbstor.errors import UserError
from dbstor.units import format_size
from dbstor.workloads.dss.schema import TABLES

GENERATOR = "tpchgen-cli"
INSTALL_HINT = "pip install tpchgen-cli (or pip install 'dbstor[dss]')"
# Bytes a scale factor of data takes per format, with 10% headroom (measured: SF 1 is
# 1.07 GB of CSV, 0.35 GB of Parquet with Snappy).
BYTES_PER_SCALE = {"csv": 1.2e9, "tbl": 1.2e9, "parquet": 0.4e9}


@dataclass
class Generated:
    """What tpchgen-cli wrote: files per table, their bytes, and how long it took."""

    directory: Path
    fmt: str
    files: dict[str, list[Path]] = field(default_factory=dict)
    seconds: float = 0.0

    @property
    def bytes(self) -> int:
        return sum(f.stat().st_size for files in self.files.values() for f in files)


def find_generator() -> Path:
    """tpchgen-cli next to this Python (its venv's bin) or on PATH; else a UserError."""
    beside = Path(sys.executable).parent / GENERATOR
    if beside.is_file() and os.access(beside, os.X_OK):
        return beside
    found = shutil.which(GENERATOR)
    if found:
        return Path(found)
    raise UserError(
        f"the dss workload makes its data with {GENERATOR}, which is not installed: {INSTALL_HINT}"
    )


def scale_text(scale: float) -> str:
    """The scale factor as tpchgen-cli takes it: '1', '0.01', '10'."""
    value = float(scale)
    return str(int(value)) if value.is_integer() else repr(value)


def staging_directory(parent: Path, scale: float, fmt: str) -> Path:
    """A new, empty folder for the generated files under `parent`, after checking that the
    file system has room for them."""
    if not parent.is_dir():
        raise UserError(f"staging path {parent} does not exist: create it or fix the target")
    need = BYTES_PER_SCALE[fmt] * float(scale)
    free = shutil.disk_usage(parent).free
    if need > free:
        raise UserError(
            f"generating TPC-H scale factor {scale_text(scale)} as {fmt} needs about "
            f"{format_size(int(need))} under {parent} but only {format_size(free)} is free: "
            "free space, use a smaller --scale, or give a temp path elsewhere"
        )
    try:
        return Path(tempfile.mkdtemp(prefix="dbstor-dss-stage-", dir=parent))
    except OSError as exc:
        raise UserError(f"cannot create a staging folder in {parent}: {exc.strerror}") from None


def generate(
    scale: float, fmt: str, directory: Path, parts: int = 1, threads: int | None = None
) -> Generated:
    """Run tpchgen-cli for all eight tables into `directory` (an empty folder)."""
    command = [
        str(find_generator()),
        fmt,
        "--scale-factor",
        scale_text(scale),
        "--output-dir",
        str(directory),
        "--quiet",
    ]
    if parts > 1:
        command += ["--parts", str(parts)]
    if threads:
        command += ["--num-threads", str(threads)]
    started = time.monotonic()
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    seconds = time.monotonic() - started
    if done.returncode != 0:
        lines = (done.stderr or done.stdout).strip().splitlines()
        detail = lines[-1] if lines else f"exit status {done.returncode}"
        raise UserError(
            f"{GENERATOR} failed making scale factor {scale_text(scale)} in {directory}: "
            f"{detail}; check free space and that the path is writable"
        )
    result = Generated(directory=directory, fmt=fmt, seconds=seconds)
    for table in TABLES:
        single = sorted(directory.glob(f"{table.name}.{fmt}"))
        split = sorted(directory.glob(f"{table.name}/{table.name}.*.{fmt}"), key=_part_number)
        result.files[table.name] = single + split
        if not result.files[table.name]:
            raise UserError(
                f"{GENERATOR} wrote no {fmt} file for table {table.name} in {directory}: "
                f"reinstall it ({INSTALL_HINT})"
            )
    return result


def _part_number(path: Path) -> int:
    try:
        return int(path.name.split(".")[-2])
    except (IndexError, ValueError):
        return 0

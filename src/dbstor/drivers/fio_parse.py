"""A job file read back by fio itself (`fio --parse-only`): which options it took, which
files it would open, and what it refused.

dbstor checks every job before a run starts, so a setting fio refuses stops the run at
once (not at the last point, hours later), and a job that would name a file or an option
dbstor did not write is refused before fio touches anything.
"""

from __future__ import annotations

import re
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from dbstor.drivers.fio_runner import fio_binary

_OPTION = re.compile(r"^parse\s+\d+\s+handle_option=([^,]*), ptr=", re.MULTILINE)
_FILE = re.compile(r"^file\s+\d+\s+add file (.*)$", re.MULTILINE)


@dataclass(frozen=True)
class ParsedJob:
    """What fio read from a job file."""

    options: tuple[str, ...]  # every option fio handled, in order (names only)
    files: tuple[str, ...]  # every file it would open, as fio names them
    refusal: str | None  # fio's own words when it refused the job, else None


def parse_job(job_text: str) -> ParsedJob:
    """Have fio parse job_text (written to a private temporary file) without running it."""
    with tempfile.TemporaryDirectory(prefix="dbstor-fio-parse-") as scratch:
        job_file = Path(scratch) / "job.fio"
        job_file.write_text(job_text, encoding="utf-8")
        done = subprocess.run(
            # an explicit clock source spares fio its second clock calibration (about
            # 70 ms of spinning that a job which never runs does not need); the read-back
            # of the job's options and files is the same
            [
                fio_binary(),
                "--clocksource=clock_gettime",
                "--parse-only",
                "--debug=parse,file",
                str(job_file),
            ],
            capture_output=True,
            text=True,
            errors="replace",
            check=False,
            timeout=60,
        )
    refused = [
        line.removeprefix("fio: ").strip()
        for line in done.stderr.splitlines()
        if line.startswith("fio: ") and "set debug option" not in line
    ]
    refusal = None
    if done.returncode != 0:
        refusal = "; ".join(refused) or f"fio --parse-only exited with status {done.returncode}"
    return ParsedJob(
        options=tuple(_OPTION.findall(done.stdout)),
        files=tuple(_FILE.findall(done.stdout)),
        refusal=refusal,
    )

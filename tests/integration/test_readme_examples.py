"""The README's examples, run: every `dbstor` line parses with the real parser, and every
line that needs no storage, server or cluster of the reader's (tco, capacity, sql, study,
engines, efficiency and advise on files set in their place) runs to exit status 0."""

from __future__ import annotations

import shlex
import shutil
from pathlib import Path

import pytest

from dbstor.cli import build_parser

pytestmark = pytest.mark.integration

ROOT = Path(__file__).parents[2]
# the README's placeholders, each replaced by a file or folder of the test's that is one
PLACEHOLDERS = {
    "virtual_file_stats.csv": "filestats.csv",
    "/var/lib/postgresql/15/main": "pgdata",
}
RUN_FOR_REAL = {"tco", "capacity", "sql", "study", "engines", "efficiency", "advise"}


def _examples() -> list[str]:
    """The README's `dbstor ...` lines in its shell blocks, without their comments."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    lines = []
    for block in text.split("```sh")[1:]:
        for line in block.split("```", 1)[0].splitlines():
            if line.startswith("dbstor "):
                words = shlex.split(line, comments=True)
                if ">" in words:  # the shell's redirection, not dbstor's
                    words = words[: words.index(">")]
                lines.append(shlex.join(words))
    return lines


EXAMPLES = _examples()


def _needs_nothing_else(line: str) -> bool:
    words = shlex.split(line)
    if words[1] not in RUN_FOR_REAL or "--check" in words or "--write-study" in words:
        return False
    return not any(w.startswith(("results/", "/mnt/", "examples/x")) for w in words[2:])


RUNNABLE = [line for line in EXAMPLES if _needs_nothing_else(line)]


def test_the_readme_has_its_examples():
    assert len(EXAMPLES) >= 25, EXAMPLES
    assert any(line.startswith("dbstor tco ") for line in RUNNABLE)


@pytest.mark.parametrize("line", EXAMPLES)
def test_every_example_parses(line):
    args = build_parser().parse_args(shlex.split(line)[1:])
    assert args.command == shlex.split(line)[1]


@pytest.mark.parametrize("line", RUNNABLE)
def test_an_example_that_needs_nothing_of_the_readers_runs(dbstor, tmp_path, line):
    shutil.copy(ROOT / "tests" / "fixtures" / "h6080_filestats.csv", tmp_path / "filestats.csv")
    (tmp_path / "pgdata").mkdir()
    (tmp_path / "pgdata" / "base.dat").write_bytes(b"row data " * 20000)
    shutil.copytree(ROOT / "examples", tmp_path / "examples")
    for placeholder, here in PLACEHOLDERS.items():
        line = line.replace(placeholder, here)
    words = shlex.split(line)[1:]
    proc = dbstor(*words)
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr

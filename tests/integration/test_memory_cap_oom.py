"""dbstor's own memory cap, said as such: a real PostgreSQL killed by the kernel's OOM
killer inside dbstor's cgroup is reported from the cgroup's own counter, the later points
are skipped with that reason and the study goes on to its other target; the smallest cap
dbstor accepts runs, one below it is refused before anything starts."""

from __future__ import annotations

import html
import json
import re

import pytest
from needs import usable

pytestmark = pytest.mark.integration

STUDY = """
[study]
name = "capped"
duration = "2s"
warmup = "1s"

[[databases]]
engine = "postgres"
workload = "brokerage"
scale = 100
users = [2, 160, 200]
memory_limit = "96MiB"

[[targets]]
label = "A"
paths = ["{a}"]

[[targets]]
label = "B"
paths = ["{b}"]
"""


def visible_text(page: str) -> str:
    """The words a reader sees: no styles, charts or tags, entities decoded, spaces folded."""
    page = re.sub(r"<(style|svg)\b.*?</\1>", " ", page, flags=re.S)
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", page)))


def test_an_oom_kill_by_the_cap_is_said_and_the_study_goes_on(dbstor, tmp_path, server_dir):
    usable("postgres")
    a, b = server_dir / "a", server_dir / "b"
    a.mkdir()
    b.mkdir()
    study = tmp_path / "study.toml"
    study.write_text(STUDY.format(a=a, b=b))
    proc = dbstor("run", study, "--out", "out", "--json", timeout=900)
    assert proc.returncode == 0, proc.stderr
    folders = dbstor.run_folders(tmp_path / "out")
    assert len(folders) == 2, "the second target ran after the first was killed"
    for folder in folders:
        data = dbstor.results(folder)
        first, killed = data["points"][0], data["points"][1]
        assert first["status"] == "ok"
        assert killed["status"] == "failed" and killed["load"]["value"] == 160
        assert killed["error"].startswith(
            "PostgreSQL was killed by the 96.0 MiB memory cap at 160 users ("
        ), killed["error"]
        assert "OOM kill" in killed["error"] and "raise --memory-limit" in killed["error"]
        assert len(data["points"]) == 2, "no point above the killed one was measured"
        assert any(
            n.startswith("skipped users 200: killed by the 96.0 MiB memory cap")
            for n in data["notes"]
        ), data["notes"]
        report = visible_text((folder / "report.html").read_text())
        assert "the knee lies beyond" not in report
        # the results table says which point failed and why, whatever the knee's sentence
        # (the document states no knee on points flagged "from memory")
        assert "160 users failed: PostgreSQL was killed by the 96.0 MiB memory cap" in report
        if "every finished point within the SLO" in report:
            assert "the point at 160 users failed (PostgreSQL was killed by the 96.0 MiB" in report
    summary = json.loads(proc.stdout)
    assert len(summary["runs"]) == 2


def test_the_smallest_cap_runs_and_one_below_is_refused(dbstor, tmp_path, server_dir):
    usable("postgres")
    target = server_dir / "lun"
    target.mkdir()
    common = ("run", "--engine", "postgres", "--target", target, "--users", "2",
              "--duration", "2", "--warmup", "1", "--scale", "1000", "--out", "out")  # fmt: skip
    below = dbstor(*common, "--memory-limit", "95MiB")
    dbstor.assert_user_error(
        below, "--memory-limit 95.0 MiB is too small", "at least 96.0 MiB", "--memory-limit 96MiB"
    )
    assert list(target.iterdir()) == [], "refused before anything started"
    proc = dbstor(*common, "--memory-limit", "96MiB", timeout=600)
    assert proc.returncode == 0, proc.stderr
    data = dbstor.results(dbstor.only_run_folder(tmp_path / "out"))
    assert data["points"][0]["status"] == "ok" and data["points"][0]["tps"] > 0
    assert "memory.limit_in_bytes=100663296" in data["engine"]["memory_cap"]


@pytest.mark.parametrize(
    ("engine", "workload", "least"),
    [("sqlite", "brokerage", "16.0 MiB"), ("duckdb", "dss", "48.0 MiB")],
)
def test_an_embedded_engines_cap_below_its_minimum_is_refused(
    dbstor, tmp_path, engine, workload, least
):
    usable(engine)
    target = tmp_path / "lun"
    target.mkdir()
    proc = dbstor(
        "run", "--engine", engine, "--workload", workload, "--target", target,
        "--memory-limit", "1MiB", "--out", "out",
    )  # fmt: skip
    dbstor.assert_user_error(proc, "too small for", f"at least {least}")
    assert list(target.iterdir()) == [] and not (tmp_path / "out").exists()

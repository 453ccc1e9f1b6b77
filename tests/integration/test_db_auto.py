"""The load found for databases (issue 33 part 4) against real SQLite (a study's
`users = "auto"`) and PostgreSQL (`--users auto`): users doubled from 1 until throughput
stops rising or the latency limit is crossed, those points kept as the search's, then the
main series at fractions of the best load within the limit; the document shows both."""

from __future__ import annotations

import pytest
from needs import usable

from dbstor.runs.auto_search import load_fractions

pytestmark = pytest.mark.integration

STUDY = """\
[study]
name = "found load"
duration = "1s"
warmup = "0s"

[slo]
metric = "txn_lat_p99_ms"
limit = "{limit}"

[[databases]]
engine = "sqlite"
workload = "brokerage"
scale = 50
users = "auto"

[[targets]]
label = "t"
path = "{path}"
"""


def check_found_load(results: dict) -> list[int]:
    """The search's points double from 1; the main series is the fractions of the best
    search point within the limit; every point is kept and said which it is."""
    search = [p for p in results["points"] if p["series"] == "discovery"]
    main = [p for p in results["points"] if p["series"] == "main"]
    loads = [p["load"]["value"] for p in search]
    assert loads == [2**i for i in range(len(loads))] and len(loads) >= 2
    limit = results["slo"]["limit_ms"]
    within = [p for p in search if p["status"] == "ok" and (p["txn_lat_ms"]["p99"] or 0) <= limit]
    best = max(within, key=lambda p: p["tps"])
    assert [p["load"]["value"] for p in main] == load_fractions(best["load"]["value"])
    note = next(n for n in results["notes"] if n.startswith("auto: the best within the SLO"))
    assert f"users {best['load']['value']} (" in note and "the search stopped: " in note
    assert results["workload"]["series"]["auto"] is True
    return loads


def test_sqlite_study_finds_its_users(dbstor, tmp_path):
    target = tmp_path / "t"
    target.mkdir()
    (tmp_path / "s.toml").write_text(STUDY.format(limit="10s", path=target))
    proc = dbstor("run", "s.toml", "--out", "out", "--quiet", timeout=400)
    assert proc.returncode == 0, proc.stderr
    folder = dbstor.only_run_folder(tmp_path / "out")
    results = dbstor.results(folder)
    loads = check_found_load(results)
    html = (folder / "report.html").read_text()
    # the search's points are in the load-point table, flagged as the search's
    table = html[html.index("Load points</h3>") :]
    assert table[: table.index("</table>")].count(">search</span>") == len(loads)


def test_postgres_users_auto_on_the_command_line(dbstor, server_dir):
    usable("postgres")
    proc = dbstor(
        "run", "--engine", "postgres", "--target", server_dir, "--users", "auto",
        "--duration", "1", "--warmup", "0", "--scale", "50", "--buffer", "8MiB",
        "--slo", "10s", "--slo-metric", "txn_lat_p99_ms", "--quiet", "--out", "out", timeout=400,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    check_found_load(dbstor.results(dbstor.only_run_folder(dbstor.cwd / "out")))

"""docs/bad-input.md's table, run: every command in it gives one line, exit 2, holding the
fragment the table promises, and leaves the user's files as they were."""

from __future__ import annotations

import json
import os
import shlex
import shutil
from pathlib import Path

import pytest

pytestmark = [pytest.mark.integration, pytest.mark.skip_without_fio]

ROOT = Path(__file__).parents[2]
DOC = ROOT / "docs" / "bad-input.md"
GOLDEN_RUN = ROOT / "tests" / "golden" / "sqlite-brokerage"
NOTES = "my own notes, not dbstor's\n"


def _rows() -> list[tuple[str, str, str]]:
    text = DOC.read_text(encoding="utf-8")
    body = text.split("<!-- rows checked by", 1)[1].split("<!-- end of checked rows -->", 1)[0]
    rows = []
    for line in body.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 3 and cells[1].startswith("`dbstor "):
            rows.append((cells[0], cells[1].strip("`"), cells[2].strip("`")))
    return rows


ROWS = _rows()


def test_the_table_is_there():
    assert len(ROWS) >= 15, ROWS


def _fixtures(cwd: Path) -> None:
    (cwd / "target").mkdir()
    (cwd / "linked").mkdir()
    (cwd / "linked" / "dbstor-io-oltp-0.dat").symlink_to(cwd / "nowhere" / "victim.dat")
    (cwd / "foreign").mkdir()
    (cwd / "foreign" / ".dbstor-owned.json").write_text(NOTES, encoding="utf-8")
    (cwd / "theirs" / "dbstor-pg-0").mkdir(parents=True)
    for mine in ("dbstor-sqlite-0.db", "dbstor-pg-0/PG_VERSION"):
        (cwd / "theirs" / mine).write_text(NOTES, encoding="utf-8")
    data = json.loads((GOLDEN_RUN / "results.json").read_text(encoding="utf-8"))
    for name, change in (
        ("wrong-type-run", lambda d: d["points"][0].__setitem__("tps", "fast")),
        ("no-id-run", lambda d: d.pop("run_id")),
    ):
        shutil.copytree(GOLDEN_RUN, cwd / name)
        changed = json.loads(json.dumps(data))
        change(changed)
        (cwd / name / "results.json").write_text(json.dumps(changed), encoding="utf-8")
    (cwd / "corrupt-run").mkdir()
    (cwd / "corrupt-run" / "results.json").write_text('{"schema": 1, "points": [')
    target = '[[targets]]\nlabel = "A"\npath = "target"\n'
    (cwd / "bool-duration.toml").write_text(f"[study]\nduration = true\n{target}")
    (cwd / "long.toml").write_text(f'[study]\nduration = "2d"\n{target}')
    (cwd / "many.toml").write_text(f"[study]\nrepeats = 10000000\n{target}")
    (cwd / "raid.toml").write_text(f'[capacity]\ndrives = "4x1TB"\nraid = "raid9"\n{target}')
    (cwd / "tco.toml").write_text(f"[tco]\ncores_per_servr = 12\n{target}")
    (cwd / "snap-role.toml").write_text(f'[efficiency]\nsnapshots = {{ dat = "2h" }}\n{target}')
    _fixtures_issue25(cwd, target)
    _fixtures_issue35(cwd, target)
    _fixtures_values(cwd, target)


def _fixtures_issue35(cwd: Path, target: str) -> None:
    """Studies whose [mix] cannot run (docs/mix.md)."""
    two = (
        '[[databases]]\nengine = "sqlite"\nworkload = "brokerage"\nusers = [1]\n'
        '[[databases]]\nengine = "duckdb"\nworkload = "dss"\nstreams = [1]\n'
    )
    (cwd / "mix-unknown.toml").write_text(
        f'{two}[mix]\nworkloads = ["brokerage", "orders"]\n{target}'
    )
    (cwd / "mix-two-devices.toml").write_text(  # /dev/shm: a tmpfs, not the folder's device
        f'{two}[mix]\nworkloads = ["brokerage", "dss"]\n{target}log = "/dev/shm"\n'
    )


def _fixtures_issue25(cwd: Path, target: str) -> None:
    """Names fio reads differently, links and foreign files where dbstor writes, values
    that are no figures (issue 25's classes)."""
    for name in ("semi;1", "cost$ncpus", "hash#1", "journal"):
        (cwd / name).mkdir()
    (cwd / "journal" / "dbstor-sqlite-0.db-journal").write_text(NOTES, encoding="utf-8")
    shutil.copytree(GOLDEN_RUN, cwd / "linked-report-run")
    (cwd / "linked-report-run" / "report.html").unlink(missing_ok=True)
    (cwd / "linked-report-run" / "report.html").symlink_to(cwd / "nowhere" / "report.html")
    shutil.copytree(GOLDEN_RUN, cwd / "baseline-run")  # check's baseline: not the run itself
    (cwd / "notes.html").write_text(NOTES, encoding="utf-8")
    shutil.copy(ROOT / "tests" / "fixtures" / "h6080_filestats.csv", cwd / "filestats.csv")
    (cwd / "page-link.html").symlink_to(cwd / "nowhere" / "page.html")
    bad = "p\\nexec_prerun=touch nowhere"
    (cwd / "newline-profile.toml").write_text(
        f'[study]\nprofiles = ["{bad}"]\n[profiles."{bad}"]\nbased_on = "io-oltp"\n{target}'
    )
    for name, distribution in (("zipf1", "zipf:1"), ("dist-comment", "zipf:1.2;x")):
        (cwd / f"{name}.toml").write_text(
            f'[study]\nprofiles = ["z"]\n[profiles.z]\ndistribution = "{distribution}"\n{target}'
        )
    (cwd / "nan-facts.toml").write_text(f"{target}facts = {{ ratio = nan }}\n")
    (cwd / "unused-profile.toml").write_text(f'[profiles.mine]\nbased_on = "io-oltp"\n{target}')
    (cwd / "jobs-twice.toml").write_text(
        f'[load]\nkind = "jobs"\nvalues = [1, 2]\njobs = 4\n{target}'
    )
    db = '[[databases]]\nengine = "sqlite"\nworkload = "brokerage"\nusers = [1]\n'
    (cwd / "upi.toml").write_text(f"{db}users_per_instance = 2\n{target}")
    for name, table in (
        ("preset-alone", 'db_host_preset = "node-exporter"'),
        ("prom-alone", 'prometheus = "http://127.0.0.1:9"'),
        ("prom-not-url", 'prometheus = "a;b"\nhost = "instance=\\"x\\""'),
        ("blank-storage", 'prometheus = "http://127.0.0.1:9"\nstorage = " "'),
    ):
        (cwd / f"{name}.toml").write_text(f"{target}[telemetry]\n{table}\n")
    (cwd / "linkdb").mkdir()
    (cwd / "linkdb" / "dbstor-sqlite-0.db-wal").symlink_to(cwd / "nowhere" / "x.db-wal")
    (cwd / "linkdb" / "dbstor-duckdb-0.db").symlink_to(cwd / "nowhere" / "x.db")
    (cwd / "eq=1").mkdir()  # a folder whose name has '=': LABEL=PATH reads it otherwise
    (cwd / "theirs-file").mkdir()
    (cwd / "theirs-file" / "dbstor-pg-0").write_text(NOTES, encoding="utf-8")
    (cwd / "journal.xml").symlink_to(cwd / "nowhere" / "j.xml")
    _fixtures_issue38(cwd, target)


def _fixtures_issue38(cwd: Path, target: str) -> None:
    """Issue 38's leftovers: a role an io-only study never uses, a folder given twice, a
    from: path read from the study file's folder, a from: source without data, a CSV
    header with one column twice."""
    (cwd / "io-log.toml").write_text(f'{target}log = "journal"\n')
    (cwd / "paths-twice.toml").write_text(
        '[[targets]]\nlabel = "A"\npaths = ["target", "target"]\n'
    )
    (cwd / "studies").mkdir()
    (cwd / "studies" / "from.toml").write_text(
        '[study]\ndata = "from:nosuch"\n[[targets]]\nlabel = "A"\npath = "../target"\n'
    )
    (cwd / "empty-source").mkdir()
    (cwd / "empty-source" / "table.dat").write_bytes(b"")
    lines = (ROOT / "tests" / "fixtures" / "h6080_filestats.csv").read_text().splitlines()
    twice = [lines[0] + ",Number Reads", *(line + ",1" for line in lines[1:])]
    (cwd / "twice.csv").write_text("\n".join(twice) + "\n", encoding="utf-8")


def _fixtures_values(cwd: Path, target: str) -> None:
    """Study files whose values each pass their type but not their range, their units or
    a check against another value (issue 38, class 8)."""
    (cwd / "fast").mkdir()  # a fast role's own folder: the data folder itself is refused
    for name, text in (
        ("placement-latency", '[placement]\nfast_capacity = "10GB"\nfast_latency = "-1ms"\n'),
        ("placement-zero", '[placement]\nfast_capacity = "0GB"\n'),
        ("tco-after", '[tco]\nservers = 10\ncores_per_server = 12\nafter = "A"\n'),
        ("jobs-iodepth", '[load]\nkind = "jobs"\nvalues = [1, 2]\niodepth = 40000\n'),
        ("block-one", '[study]\nprofiles = ["b"]\n[profiles.b]\nblock_size = "1"\n'),
        ("block-huge", '[study]\nprofiles = ["b"]\n[profiles.b]\nblock_size = "1PiB"\n'),
        ("fast-twice", f'{target}fast = ["journal", "journal"]\n'),
        ("long-series", f"[[databases]]\nusers = {list(range(1, 1002))}\n"),
    ):
        (cwd / f"{name}.toml").write_text(text + ("" if "fast-twice" in name else target))
    (cwd / "tco-after.toml").write_text(
        (cwd / "tco-after.toml").read_text() + '[[targets]]\nlabel = "B"\npath = "journal"\n'
    )


@pytest.mark.parametrize(("what", "command", "fragment"), ROWS, ids=[r[0] for r in ROWS])
def test_row(dbstor, tmp_path, what, command, fragment):
    _fixtures(tmp_path)
    before = sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*"))
    args = shlex.split(command)[1:]
    proc = dbstor(*args)
    dbstor.assert_user_error(proc, fragment)
    assert not (tmp_path / "nowhere").exists(), "written through a link"
    assert os.readlink(tmp_path / "linked" / "dbstor-io-oltp-0.dat")
    assert (tmp_path / "foreign" / ".dbstor-owned.json").read_text() == NOTES
    assert (tmp_path / "notes.html").read_text() == NOTES
    assert (tmp_path / "journal" / "dbstor-sqlite-0.db-journal").read_text() == NOTES
    for mine in ("dbstor-sqlite-0.db", "dbstor-pg-0/PG_VERSION"):
        assert (tmp_path / "theirs" / mine).read_text() == NOTES
    made = [
        p
        for p in tmp_path.rglob("*")
        if str(p.relative_to(tmp_path)) not in before and not p.is_dir()
    ]
    assert made == [], f"a refused command left {made}"


@pytest.mark.parametrize("name", ["x\ny", "x\rY", "tab\there", "rtl\u202ex", "bell\x07"])
def test_a_refused_value_with_a_control_character_stays_one_line_and_shows_it(
    dbstor, tmp_path, name
):
    """A newline in a path is not shown as a line break or a space (which would name
    another path): it is escaped, as the value really is."""
    proc = dbstor("io", "--target", tmp_path / name, "--duration", "1", "--size", "16MiB")
    escaped = name.encode("unicode_escape").decode("ascii")
    dbstor.assert_user_error(proc, escaped)

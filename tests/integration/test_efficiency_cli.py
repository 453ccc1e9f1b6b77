"""The real `dbstor efficiency` and `dbstor capacity` commands, run as a user would."""

import json
import os
import random
import sqlite3
import subprocess
import sys

import pytest

MB = 1024 * 1024

pytestmark = pytest.mark.integration


def dbstor(*args, env=None, cwd=None):
    return subprocess.run(
        [sys.executable, "-m", "dbstor", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        cwd=cwd,
    )


def one_line_error(proc):
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("dbstor: error: "), proc.stderr
    assert "Traceback" not in proc.stderr
    return lines[0]


@pytest.fixture(scope="module")
def datadir(tmp_path_factory):
    d = tmp_path_factory.mktemp("data")
    rng = random.Random(5)
    con = sqlite3.connect(d / "orders.db")
    con.execute("PRAGMA page_size=8192")
    con.execute("CREATE TABLE o(id INTEGER PRIMARY KEY, cust INT, item TEXT, qty INT, note TEXT)")
    con.executemany(
        "INSERT INTO o VALUES (?,?,?,?,?)",
        (
            (
                i,
                rng.randrange(9999),
                f"item-{rng.randrange(300)}",
                rng.randrange(50),
                "ok" * rng.randrange(9),
            )
            for i in range(60_000)
        ),
    )
    con.commit()
    con.close()
    (d / "empty.dat").write_bytes(bytes(2 * MB))
    (d / "log").mkdir()
    (d / "log" / "redo.log").write_bytes(rng.randbytes(MB))
    return d


def test_help_for_both_commands():
    for cmd in ("efficiency", "capacity"):
        proc = dbstor(cmd, "--help")
        assert proc.returncode == 0 and "usage: dbstor " + cmd in proc.stdout


def test_json_fields(datadir):
    proc = dbstor("efficiency", str(datadir), "--json")
    assert proc.returncode == 0, proc.stderr
    r = json.loads(proc.stdout)
    for key in (
        "bytes_scanned",
        "zero_block_pct",
        "dedup_ratio",
        "compression_ratio",
        "total_ratio",
        "per_file",
    ):
        assert key in r
    sizes = sum(f.stat().st_size for f in datadir.rglob("*") if f.is_file())
    assert r["bytes_scanned"] == sizes
    assert isinstance(r["compression_ratio"], float) and r["compression_ratio"] > 1.0
    assert r["zero_block_pct"] > 20  # the 2 MiB of zeros
    assert len(r["per_file"]) == 3
    assert r["array"]["name"] == "ontap-adaptive" and r["compressor"] == "lz4"


def test_terminal_table_and_snapshots(datadir):
    proc = dbstor(
        "efficiency",
        f"data={datadir / 'orders.db'}",
        f"log={datadir / 'log'}",
        "--snapshots",
        "data=2h,log=15m",
        "--retention",
        "24h",
        "--change-rate",
        "5%/h",
        "--array",
        "ontap-secondary",
        "--compressor",
        "zstd",
    )
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "total data reduction" in out and "snapshots vs full copies" in out
    assert "12 copies, 10.0% changed each" in out  # 2 h at 5%/h for 24 h
    assert "96 copies, 1.2% changed each" in out  # 15 m at 5%/h
    assert "log: " in out


def test_custom_array_full_scan(datadir):
    proc = dbstor(
        "efficiency",
        str(datadir / "orders.db"),
        "--array",
        "custom:block=4K,group=16K",
        "--full",
        "--json",
        "--no-matrix",
        "--workers",
        "2",
    )
    r = json.loads(proc.stdout)
    assert r["mode"] == "full" and r["compression_group"] == 16384
    assert [m["group"] for m in r["compression"]] == [16384]


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["efficiency", "/no/such/place"], "no such file"),
        (["efficiency", ".", "--array", "custom:block=4K,group=6K"], "--array"),
        (["efficiency", ".", "--array", "emc"], "--array"),
        (["efficiency", ".", "--snapshots", "data=2q", "--change-rate", "5%/h"], "--snapshots"),
        (["efficiency", ".", "--snapshots", "data=2h"], "--change-rate"),
        (["efficiency", ".", "--snapshots", "data=2h", "--change-rate", "lots"], "--change-rate"),
        (["efficiency", ".", "--compressor", "gzip"], "--compressor"),
        (["efficiency", ".", "--sample", "120%"], "--sample"),
        (["capacity", "--drives", "48x800"], "--drives"),
        (["capacity", "--drives", "10x1TB", "--raid", "raid6", "--raid-group", "9"], "too small"),
    ],
)
def test_bad_input_is_one_line_exit_2(args, fragment, datadir):
    line = one_line_error(dbstor(*args, cwd=datadir))
    assert fragment in line


def test_run_folder_scans_recorded_paths(datadir, tmp_path):
    run = tmp_path / "results" / "run-1"
    run.mkdir(parents=True)
    paths = {"data": [str(datadir / "orders.db")], "log": str(datadir / "log")}
    (run / "results.json").write_text(json.dumps({"schema": 1, "target": {"paths": paths}}))
    r = json.loads(dbstor("efficiency", str(run), "--json").stdout)
    assert {f["role"] for f in r["per_file"]} == {"data", "log"}
    gone = tmp_path / "results" / "run-2"
    gone.mkdir()
    (gone / "results.json").write_text(json.dumps({"target": {"paths": {"data": ["/gone/db"]}}}))
    assert "gone" in one_line_error(dbstor("efficiency", str(gone)))


def test_unreadable_entry_is_reported_and_skipped(datadir, tmp_path):
    (tmp_path / "good.bin").write_bytes(b"x" * 100_000)
    dangling = tmp_path / "dangling"
    dangling.symlink_to(tmp_path / "missing")
    proc = dbstor("efficiency", str(tmp_path / "good.bin"), str(dangling), "--json")
    assert proc.returncode == 0
    assert "skipped" in proc.stderr and "dangling" in proc.stderr
    r = json.loads(proc.stdout)
    assert r["files"] == 1 and r["files_skipped"][0]["path"] == str(dangling)


def test_missing_compressors_name_the_install(tmp_path, datadir):
    fake = tmp_path / "fake"
    (fake / "lz4").mkdir(parents=True)
    (fake / "lz4" / "__init__.py").write_text("raise ImportError('no lz4 here')\n")
    env = {**os.environ, "PYTHONPATH": f"{fake}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    line = one_line_error(dbstor("efficiency", str(datadir), env=env))
    assert "pip install 'dbstor[efficiency]'" in line


def test_capacity_json_tr4403():
    proc = dbstor(
        "capacity",
        "--drives",
        "48x800GB",
        "--raid",
        "raid-dp",
        "--raid-group",
        "23",
        "--spares",
        "2",
        "--partitioning",
        "root-data",
        "--json",
    )
    assert proc.returncode == 0, proc.stderr
    r = json.loads(proc.stdout)
    assert r["raw_tb"] == 38.4
    assert r["usable_tib"] == pytest.approx(25.5, abs=0.05)
    assert r["usable_tb"] == pytest.approx(28.05, abs=0.01)
    assert [d["step"] for d in r["deductions"]][-1] == "usable"
    text = dbstor(
        "capacity",
        "--drives",
        "48x800GB",
        "--raid",
        "raid-dp",
        "--raid-group",
        "23",
        "--spares",
        "2",
        "--partitioning",
        "root-data",
    ).stdout
    assert "source:" in text and "usable 28.05 TB (25.51 TiB" in text


def test_snapshot_copies_given_directly(datadir):
    """TR-4403's "up to an additional 16x": 16 copies of the data every 2 h, given as
    --copies 16 rather than as a retention of 32 h."""
    args = ["efficiency", f"data={datadir / 'orders.db'}", "--snapshots", "data=2h"]
    args += ["--change-rate", "5%/h", "--json", "--no-matrix"]
    proc = dbstor(*args, "--copies", "16")
    assert proc.returncode == 0, proc.stderr
    role = json.loads(proc.stdout)["snapshots"]["roles"][0]
    assert (role["copies"], role["copies_given"]) == (16, True)
    assert role["retention_s"] == 16 * 7200 and role["changed_per_snapshot_pct"] == 10.0
    assert json.loads(proc.stdout)["snapshots"]["savings_vs_full_copies"] == 10.0
    line = one_line_error(dbstor(*args, "--copies", "16", "--retention", "24h", cwd=datadir))
    assert "--copies or --retention, not both" in line
    line = one_line_error(dbstor(*args, "--copies", "0", cwd=datadir))
    assert "--copies" in line and "from 1 to 100,000" in line


@pytest.mark.parametrize("drive", ["600GB", "36GB", "72GB", "144GB"])
def test_capacity_right_size_never_adds(drive):
    proc = dbstor("capacity", "--drives", f"10x{drive}", "--right-size", "netapp")
    assert proc.returncode == 0, proc.stderr
    line = next(x for x in proc.stdout.splitlines() if x.startswith("right-size"))
    takes = float(line.split()[1])
    assert takes < 0 and "--" not in proc.stdout
    assert "groups of 23: 21 data + 2 parity" not in proc.stdout  # 10 drives: 1 x 10


def test_run_folder_whose_files_are_gone_is_one_line_not_a_table(tmp_path):
    """The run's folder is still there but the files it built were removed: one line,
    exit 2, never a table of 1.00:1 ratios."""
    target = tmp_path / "target"
    target.mkdir()
    run = tmp_path / "results" / "run-1"
    run.mkdir(parents=True)
    (run / "results.json").write_text(json.dumps({"target": {"paths": {"data": [str(target)]}}}))
    line = one_line_error(dbstor("efficiency", str(run)))
    assert "the files this run built are gone" in line and "--keep" in line
    assert "1.00:1" not in line


def test_a_real_kept_run_whose_files_were_removed_is_one_line(tmp_path):
    """A real io run with --keep, then its test files removed by hand (rm target/*): the
    manifest dbstor left beside them is its own record, not data, so the scan finds
    nothing and says so in one line (it was a table of 0.06:1 from the manifest's bytes)."""
    target = tmp_path / "target"
    target.mkdir()
    out = tmp_path / "results"
    run = dbstor(
        "io", "--target", f"T={target}", "--iodepth", "1", "--duration", "2s",
        "--warmup", "1s", "--size", "16MiB", "--data", "1.8:1", "--keep", "--quiet",
        "--out", str(out),
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    kept = [p for p in target.iterdir() if not p.name.startswith(".")]
    assert kept and any(p.name.startswith(".") for p in target.iterdir())
    folder = next(out.iterdir())
    assert dbstor("efficiency", "--quiet", str(folder)).returncode == 0
    for path in kept:
        path.unlink()
    line = one_line_error(dbstor("efficiency", str(folder)))
    assert "the files this run built are gone" in line and ":1" not in line

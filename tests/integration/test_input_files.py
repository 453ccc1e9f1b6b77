"""Every reader of a file a user names (a study file for `study` and `run`, a
consolidation file for `tco`, a CSV for `advise`, results.json for `report`, `compare`,
`check` and `advise`, a kept histogram for `export --hdr`) given what is not a regular
file of its kind: a FIFO (would hang), /dev/zero (never ends), a folder, a file past the
size limit (sparse), a file nested thousands of levels deep. Each is one line, exit 2,
within the subprocess timeout, naming the file. And `serve` answers a 5,000-character
path with 414 and keeps serving."""

from __future__ import annotations

import os
import shutil
import socket
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration

GOLDEN = Path(__file__).parents[1] / "golden"
KINDS = ("fifo", "dev-zero", "folder", "too large", "deep")


def _plant(path: Path, kind: str, deep: str) -> None:
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "dev-zero":
        path.symlink_to("/dev/zero")  # the user's own link to a device
    elif kind == "folder":
        path.mkdir()
    elif kind == "too large":
        with open(path, "wb") as handle:
            handle.truncate(600 * 1024 * 1024)  # sparse: past every limit, no space used
    else:
        path.write_text(deep)


def _run_with(root: Path, name: str) -> Path:
    run = root / name
    shutil.copytree(GOLDEN / "sqlite-brokerage", run)
    (run / "results.json").unlink()
    return run


TOML_DEEP = "a = " + "[" * 50000
JSON_DEEP = "[" * 100000
# reader: (the file's name under the test folder, its deep text, the command)
READERS = {
    "study (study file)": ("s.toml", TOML_DEEP, lambda r: ["study", str(r / "s.toml")]),
    "run (study file)": ("s.toml", TOML_DEEP, lambda r: ["run", str(r / "s.toml")]),
    "tco (consolidation file)": ("c.toml", TOML_DEEP, lambda r: ["tco", str(r / "c.toml")]),
    "advise (statistics CSV)": ("f.csv", "a,b\n" * 3, lambda r: ["advise", "--sqlserver", str(r / "f.csv"),
                                                               "--fast-capacity", "1GB"]),
    "report (results.json)": ("r1/results.json", JSON_DEEP, lambda r: ["report", str(r / "r1")]),
    "compare (results.json)": ("r1/results.json", JSON_DEEP,
                               lambda r: ["compare", str(r / "r1"), str(GOLDEN / "sqlite-brokerage")]),
    "advise (results.json)": ("r1/results.json", JSON_DEEP, lambda r: ["advise", str(r / "r1"),
                                                                      "--fast-capacity", "1GB"]),
    "export --hdr (histogram)": ("res/r2/histograms/point-01.json", JSON_DEEP,
                                 lambda r: ["export", str(r / "res"), "--hdr", str(r / "hdr")]),
}  # fmt: skip


# every reader with every kind, but a CSV has no nesting to be deep in
CASES = [
    (reader, kind)
    for reader in READERS
    for kind in KINDS
    if not (kind == "deep" and reader == "advise (statistics CSV)")
]


@pytest.mark.parametrize(("reader", "kind"), CASES)
def test_every_reader_refuses_what_is_not_a_regular_file_of_its_kind(
    dbstor, tmp_path, reader, kind
):
    name, deep, args = READERS[reader]
    if name.startswith("r1/"):
        _run_with(tmp_path, "r1")
    if name.startswith("res/"):
        run = _run_with(tmp_path / "res", "r2")
        shutil.copy(GOLDEN / "sqlite-brokerage" / "results.json", run / "results.json")
        (run / "histograms").mkdir()
    _plant(tmp_path / name, kind, deep)
    proc = dbstor(*args(tmp_path), timeout=60)
    dbstor.assert_user_error(proc, Path(name).name)


def test_serve_answers_a_very_long_path_and_keeps_serving(dbstor, tmp_path):
    shutil.copytree(GOLDEN / "sqlite-brokerage", tmp_path / "res" / "r1")
    proc = dbstor.start("serve", tmp_path / "res", "--port", "0")
    port = None
    deadline = time.monotonic() + 60
    while port is None and time.monotonic() < deadline:
        line = proc.stderr.readline() if proc.stderr else ""
        if "127.0.0.1:" in line:
            port = int(line.split("127.0.0.1:")[1].split("/")[0].split()[0])
    assert port, "serve never said its address"

    def get(path: str) -> str:
        with socket.create_connection(("127.0.0.1", port), timeout=10) as conn:
            conn.sendall(f"GET {path} HTTP/1.0\r\n\r\n".encode())
            return conn.recv(200).decode(errors="replace").split("\r\n")[0]

    assert " 414 " in get("/" + "a" * 5000)
    assert " 414 " in get("/" + "b" * 300 + "/report.html")
    assert " 200 " in get("/")  # still serving
    proc.terminate()
    _, err = proc.communicate(timeout=30)
    assert "Traceback" not in err, err

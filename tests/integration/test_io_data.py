"""io runs write the data asked for (--data), record intended and achieved ratios measured
with dbstor's efficiency scanner on the real test file, and keep job files that plain fio
can rerun without touching the results."""

from __future__ import annotations

import hashlib
import json
import random
import subprocess
from pathlib import Path

import pytest

pytestmark = [pytest.mark.integration, pytest.mark.skip_without_fio]

SHORT = ("--iodepth", "1", "--duration", "1", "--warmup", "0", "--size", "64MiB", "--quiet")


def io_run(dbstor, tmp_path: Path, *extra: str) -> tuple[Path, dict]:
    target = tmp_path / "lun"
    target.mkdir(exist_ok=True)
    out = tmp_path / "out"
    proc = dbstor("io", "--target", target, *SHORT, *extra, "--out", out)
    assert proc.returncode == 0, proc.stderr
    (folder,) = sorted(out.iterdir())
    return folder, json.loads((folder / "results.json").read_text())


def test_a_compression_ratio_is_written_and_checked(dbstor, tmp_path):
    folder, run = io_run(dbstor, tmp_path, "--data", "1.8:1", "--keep")
    data = run["workload"]["data"]
    assert data["kind"] == "ratio" and data["fio"]["buffer_compress_percentage"] == "44"
    written = data["written"]
    assert written["intended"]["compression"] == 1.8
    assert abs(written["achieved"]["compression"] - 1.8) <= 0.1
    # what dbstor efficiency's default array model stores the files at, and a warning
    # exactly when that is more than 0.1 from the ratio asked for
    on_array = written["on_array"]
    assert on_array["array"] == "ontap-adaptive" and on_array["compression"] >= 1.0
    far = abs(on_array["compression"] - 1.8) > 0.1
    assert (written["warning"] is not None) == far
    if far:
        assert "under the ontap-adaptive array model" in written["warning"]
        assert f"compression {on_array['compression']:.2f}:1 where 1.80:1" in written["warning"]
    assert "buffer_compress_percentage=44" in (folder / "jobs" / "layout.fio").read_text()
    assert "buffer_compress_percentage=44" in (folder / "jobs" / "point-01.fio").read_text()
    assert run["study"]["data"]["compression"] == 1.8
    assert "<td>data compressible 1.80:1" in (folder / "report.html").read_text()  # method


def test_a_dedup_share_is_written_and_measured(dbstor, tmp_path):
    _, run = io_run(dbstor, tmp_path, "--data", "2:1,dedupe=20%")
    achieved = run["workload"]["data"]["written"]["achieved"]
    assert achieved["dedup"] == pytest.approx(1.25, abs=0.1)
    assert achieved["compression"] == pytest.approx(2.0, abs=0.1)


def test_the_default_is_incompressible_and_says_so(dbstor, tmp_path):
    folder, run = io_run(dbstor, tmp_path)
    data = run["workload"]["data"]
    assert data["kind"] == "incompressible" and data["fio"] == {}
    assert data["written"]["achieved"] == {"compression": 1.0, "dedup": 1.0}
    assert "buffer_compress" not in (folder / "jobs" / "layout.fio").read_text()


def test_data_from_files_takes_their_ratio(dbstor, tmp_path):
    source = tmp_path / "db.dat"
    noise = random.Random(7)
    source.write_bytes(b"".join(noise.randbytes(4096) + b"A" * 4096 for _ in range(2048)))
    _, run = io_run(dbstor, tmp_path, "--data", f"from:{source}")
    data = run["workload"]["data"]
    assert data["kind"] == "from" and data["source"] == str(source)
    assert 1.8 <= data["compression"] <= 2.1  # half of every 8K repeats
    assert abs(data["written"]["achieved"]["compression"] - data["compression"]) <= 0.1


def test_data_from_files_reproduces_each_block_class(dbstor, tmp_path):
    """A source with a quarter zero blocks and compressible other blocks: its classes are
    recorded, the test files get the same share of zero blocks (written by dbstor after
    fio's layout) and the same compression of the others, each class checked."""
    source = tmp_path / "db.dat"
    noise = random.Random(11)
    blocks = [
        bytes(8192) if i % 4 == 0 else noise.randbytes(4096) + b"A" * 4096 for i in range(2048)
    ]
    source.write_bytes(b"".join(blocks))
    _, run = io_run(dbstor, tmp_path, "--data", f"from:{source}")
    data = run["workload"]["data"]
    assert data["source_figures"]["zero_block_pct"] == pytest.approx(25.0, abs=0.5)
    classes = {c["class"]: c for c in data["written"]["classes"]}
    assert set(classes) == {"zero blocks", "compression of the non-zero blocks", "dedup"}
    zero = classes["zero blocks"]
    assert zero["source"] == "25.0%" and zero["reproduced"], zero
    assert any("zeroed after layout" in n for n in run["notes"])
    assert classes["compression of the non-zero blocks"]["reproduced"], classes
    warning = data["written"]["warning"] or ""
    for name, figures in classes.items():  # each class not reproduced is named, and why
        named = f"{name} {figures['written']} where the source has {figures['source']}"
        assert (named in warning) == (not figures["reproduced"]), (name, figures, warning)


def test_bad_data_is_refused_before_anything(dbstor, tmp_path):
    proc = dbstor("io", "--target", tmp_path, *SHORT, "--data", "1.8", "--out", tmp_path / "out")
    assert proc.returncode == 2 and "--data" in proc.stderr
    assert "Traceback" not in proc.stderr and not (tmp_path / "out").exists()


def digest(folder: Path) -> dict[str, str]:
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def test_a_kept_job_reruns_with_plain_fio_without_touching_the_results(dbstor, tmp_path):
    folder, _ = io_run(dbstor, tmp_path, "--keep")
    before = digest(folder)
    elsewhere = tmp_path / "rerun"
    elsewhere.mkdir()
    job = folder / "jobs" / "point-01.fio"
    subprocess.run(["fio", "--output=/dev/null", str(job)], cwd=elsewhere, check=True)
    assert digest(folder) == before
    assert list(elsewhere.glob("point-01_iops.*.log"))  # its log went where it was run

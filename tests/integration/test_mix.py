"""A [mix] against the real thing (issue 35 part 3): managed PostgreSQL running brokerage
and DuckDB running dss on one ext4 loop device, first each alone, then together, every
point started at one instant; each workload's own I/O (its cgroups) as a share of what
the device moved, the document's "Workloads together" section, and the refusals that come
before anything runs."""

from __future__ import annotations

import json
import shutil
import tempfile
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

import pytest
from loopfs import LoopFs, mounted_loop_fs
from needs import usable

pytestmark = pytest.mark.integration

STUDY = """
[study]
name = "mix"
duration = "2s"
warmup = "1s"
steady = "off"

[[targets]]
label = "LOOP"
path = "{path}"
{extra}

[[databases]]
engine = "postgres"
workload = "brokerage"
scale = 50
users = [2]
buffer = "1MiB"

[[databases]]
engine = "duckdb"
workload = "dss"
scale = 0.01
streams = [1]
cold = true

[mix]
workloads = [{names}]
"""


@pytest.fixture
def loop() -> Iterator[LoopFs]:
    base = Path(tempfile.mkdtemp(prefix="dbstor-mix-"))
    base.chmod(0o711)  # the server's account walks through to its data directory
    try:
        with mounted_loop_fs(base, "200M") as fs:
            fs.path.chmod(0o711)
            yield fs
    finally:
        shutil.rmtree(base, ignore_errors=True)


def _write(dbstor, path: Path, names: str = '"brokerage", "dss"', extra: str = "") -> Path:
    study = dbstor.cwd / "mix.toml"
    study.write_text(STUDY.format(path=path, names=names, extra=extra))
    return study


def test_brokerage_and_dss_together_on_one_loop_device_each_with_its_share(dbstor, loop):
    usable("postgres")
    usable("duckdb")
    proc = dbstor("run", _write(dbstor, loop.path), "--out", "out", "--quiet", timeout=300)
    assert proc.returncode == 0, proc.stderr
    (folder,) = [p for p in (dbstor.cwd / "out").iterdir() if p.is_dir()]
    listed = json.loads((folder / "study.json").read_text())["runs"]
    assert len(listed) == 4 and sum(r.endswith("-mix") for r in listed) == 2
    runs = {r: json.loads((folder / r / "results.json").read_text()) for r in listed}
    members = {r["together"]["workload"]: r for r in runs.values() if "together" in r}
    assert set(members) == {"brokerage", "dss"}
    for name, run in members.items():
        alone = runs[run["together"]["alone"]]
        assert alone["workload"]["name"] == name and "together" not in alone
        assert run["status"] == "complete" and run["points"][0]["status"] == "ok"
    # every member's measured window began at one instant: the transactions' after their
    # 1 s warm-up, the query stream (no warm-up) started as that warm-up ended
    db, dss = members["brokerage"]["points"][0], members["dss"]["points"][0]
    devices = (db["own_io"]["device"], dss["own_io"]["device"], db["device"], dss["device"])
    assert db["own_io"]["device"] == loop.device.name, devices
    # the query stream at this scale lasts well under a second, shorter than a device
    # sample at times (its device is then null); its own I/O is counted on the loop device
    assert dss["own_io"]["device"] in (loop.device.name, None), devices
    assert set(dss["own_io"]["devices"]) == {loop.device.name}, dss["own_io"]
    starts = [datetime.fromisoformat(p["started_at"]).timestamp() for p in (db, dss)]
    assert 0 <= starts[1] - starts[0] <= 2.5, starts  # seconds in the stamps; 1 s apart
    comparison = json.loads((folder / "comparison.json").read_text())
    (group,) = comparison["mix"]
    (total,) = group["device"]
    assert total["device_bytes"] > 1 << 20 and total["why_null"] is None
    shares = total["shares"]
    # brokerage's commits write the WAL through its server's own fsyncs; the cold dss
    # stream reads its database file from the device: both counted in their own groups
    assert shares["brokerage"] > 0.02 and shares["dss"] > 0.02, total
    # shares of one whole: the windows begin at one instant up to each sampler's start (a
    # few tens of ms), so a front-loaded cold scan can reach past the widest window's edge
    # (1.11 seen on a quiet CI host): the sum is stored as it is and, above 102%, the
    # document says why instead of naming a rest
    together = shares["brokerage"] + shares["dss"]
    assert total["sum"] == pytest.approx(together) and total["sum"] <= 2.0, total
    by_name = {m["workload"]: m for m in group["members"]}
    for name, member in by_name.items():
        (point,) = member["points"]
        assert point["alone"]["throughput"] and point["together"]["throughput"]
        assert (
            point["latency_factor"] is not None or point["why_null"] or (point["latency_why_null"])
        ), point
        own = point["device"]["own_bytes"]
        assert own == pytest.approx(shares[name] * total["device_bytes"])
    html = (folder / "report.html").read_text()
    section = html[html.index('id="mix"') :]
    section = section[: section.index("</section>")]
    assert "brokerage + dss together on LOOP" in section
    assert "share of the device" in section and "The device moved" in section
    if together > 1.02:
        assert "the members&#x27; windows and counters differ a little" in section
        assert total["rest"] == 0.0
    else:
        assert total["rest"] == pytest.approx(max(0.0, 1.0 - together), abs=1e-9)


def test_a_mix_naming_an_unknown_workload_is_refused_before_anything_runs(dbstor, tmp_path):
    target = tmp_path / "t"
    target.mkdir()
    proc = dbstor("run", _write(dbstor, target, '"brokerage", "orders"'), "--out", "out")
    dbstor.assert_user_error(proc, "mix.workloads", "'orders' is not a workload of this study")
    assert not (dbstor.cwd / "out").exists()


def test_a_mix_on_a_target_that_is_not_one_storage_is_refused(dbstor, loop, tmp_path):
    usable("postgres")
    data = tmp_path / "data"
    data.mkdir()
    study = _write(dbstor, data, extra=f'log = "{loop.path}"')
    proc = dbstor("run", study, "--out", "out")
    dbstor.assert_user_error(proc, "target 'LOOP' is not one storage", "different devices")
    assert not (dbstor.cwd / "out").exists()
    assert not list(loop.path.iterdir()) or [p.name for p in loop.path.iterdir()] == ["lost+found"]

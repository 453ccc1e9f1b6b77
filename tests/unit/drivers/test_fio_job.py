from pathlib import Path

import pytest

from dbstor.drivers.fio_job import PointSpec, build_layout_job, build_point_job
from dbstor.study.profiles import BUILTIN_PROFILES


def _options(text: str) -> dict[str, str]:
    return dict(line.split("=", 1) for line in text.splitlines() if "=" in line)


def test_oltp_point_job():
    spec = PointSpec(
        BUILTIN_PROFILES["io-oltp"],
        (Path("/t/a.dat"), Path("/t/b:c.dat")),
        1 << 20,
        iodepth=8,
        jobs=2,
        duration_s=30,
        warmup_s=5,
    )
    opts = _options(build_point_job(spec))
    assert opts["rw"] == "randrw" and opts["rwmixread"] == "90" and opts["bs"] == "8192"
    assert opts["iodepth"] == "8" and opts["numjobs"] == "2" and opts["direct"] == "1"
    assert opts["runtime"] == "30s" and opts["ramp_time"] == "5s" and opts["time_based"] == "1"
    assert opts["filename"] == "/t/a.dat:/t/b\\:c.dat"
    assert opts["allow_file_create"] == "0" and opts["file_service_type"] == "random"
    assert "rate_iops" not in opts


def test_rate_is_split_by_mix_and_jobs():
    spec = PointSpec(
        BUILTIN_PROFILES["io-oltp"], (Path("/t/a"),), 1 << 20, 64, 2, 10, 0, rate_iops=10000
    )
    opts = _options(build_point_job(spec))
    assert opts["rate_iops"] == "4500,500"  # per job: 5000 x 90% reads, 10% writes
    assert opts["rate_process"] == "poisson"
    assert "ramp_time" not in opts


def test_log_profile_is_synchronous_and_sliced_per_job():
    spec = PointSpec(BUILTIN_PROFILES["io-log"], (Path("/t/log"),), 64 << 20, 1, 4, 10, 1)
    opts = _options(build_point_job(spec))
    assert opts["rw"] == "write" and opts["fdatasync"] == "1" and opts["ioengine"] == "psync"
    assert "iodepth" not in opts and opts["bssplit"].startswith("4096/40")
    assert opts["offset_increment"] == str(16 << 20)


def test_layout_writes_each_file_in_full():
    text = build_layout_job((Path("/t/a"), Path("/t/b")), 8 << 20, direct=True)
    assert text.count("[layout") == 2 and "rw=write" in text and "filesize=8388608" in text


def test_held_until_steady_uses_fios_steadystate_with_dbstors_drift_limit():
    """The window is the point's duration; fio's slope limit per second times the window's
    seconds less one is trust.py's drift limit; runtime is the maximum less the warm-up."""
    from dbstor.analysis.trust import STEADY_MAX_DRIFT_PCT

    spec = PointSpec(
        BUILTIN_PROFILES["io-oltp"], (Path("/t/a.dat"),), 1 << 20, iodepth=4, jobs=1,
        duration_s=11, warmup_s=4, steady_max_s=60,
    )  # fmt: skip
    opts = _options(build_point_job(spec))
    assert opts["ss_dur"] == "11s" and opts["ss_ramp"] == "0" and opts["ramp_time"] == "4s"
    limit = float(opts["steadystate"].removeprefix("iops_slope:").rstrip("%"))
    assert limit * (11 - 1) == pytest.approx(STEADY_MAX_DRIFT_PCT)
    assert opts["runtime"] == "56s"
    fixed = _options(build_point_job(PointSpec(**{**spec.__dict__, "steady_max_s": None})))
    assert "steadystate" not in fixed and fixed["runtime"] == "11s"


def test_a_window_too_short_for_fios_test_runs_its_duration_only():
    spec = PointSpec(
        BUILTIN_PROFILES["io-oltp"], (Path("/t/a.dat"),), 1 << 20, iodepth=4, jobs=1,
        duration_s=2, warmup_s=1, steady_max_s=9,
    )  # fmt: skip
    opts = _options(build_point_job(spec))
    assert "steadystate" not in opts and opts["runtime"] == "2s"

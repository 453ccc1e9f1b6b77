"""Every seed study in examples/ passes the checks of its [capacity], [efficiency],
[placement] and [tco] tables, and `dbstor study FILE --shrink DIR` turns it into a study
of seconds on this machine that keeps every table and target."""

import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from dbstor.commands.study_analyses import StudyAnalyses
from dbstor.engines.shrunk import small_memory
from dbstor.study.load import load_study, study_from_dict
from dbstor.study.shrink import shrink

ROOT = Path(__file__).resolve().parents[3]
EXAMPLES = sorted((ROOT / "examples").glob("*.toml"))
SEEDS = ("tr-4403", "tr-4367", "tr-4415", "h6080", "tr-3476")


def test_every_seed_has_a_study_file():
    names = [p.name for p in EXAMPLES]
    for seed in SEEDS:
        assert any(n.startswith(seed) for n in names), seed


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.name)
def test_the_tables_of_every_example_pass_the_commands_checks(example):
    StudyAnalyses(load_study(example))


def test_the_seeds_sections_are_in_their_study_files():
    def tables(name):
        return set(tomllib.loads((ROOT / "examples" / name).read_text()))

    for name in ("tr-4403-brokerage.toml", "tr-4415-legacy.toml"):
        data = tomllib.loads((ROOT / "examples" / name).read_text())
        assert {"efficiency", "tco", "consolidation"} <= set(data)
        # the flash array's capacity is the flash target's own: the legacy array's 120
        # HDDs are another array (a study-wide table would give LEGACY its 48 SSDs)
        assert "capacity" not in data
        by_label = {t["label"]: t for t in data["targets"]}
        assert "capacity" not in by_label["LEGACY"]
        assert by_label["FLASH"]["capacity"]["drives"].startswith("48x")
        assert by_label["FLASH"]["facts"]["drives"] == 48
    assert "placement" in tables("h6080-placement.toml")


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.name)
def test_a_shrunk_example_keeps_its_tables_and_targets_under_one_dir(example, tmp_path):
    data = tomllib.loads(example.read_text())
    small, dirs = shrink(data, tmp_path)
    study = study_from_dict(small, source="small.toml", base_dir=tmp_path)
    StudyAnalyses(study)
    assert study.duration_s == 5 and study.warmup_s == 2
    assert [t.label for t in study.targets] == [t["label"] for t in data["targets"]]
    assert all(p.is_relative_to(tmp_path) for t in study.targets for p in t.paths)
    assert dirs and all(d.is_relative_to(tmp_path) for d in dirs)
    for name in ("capacity", "efficiency", "tco"):
        assert small.get(name) == data.get(name)
    placement = dict(small.get("placement") or {})
    assert placement.pop("fast_capacity", None) == (data.get("placement") or {}).get(
        "fast_capacity"
    )  # a share of the database ("50%"): it follows the database as it is
    assert placement == {
        k: v for k, v in (data.get("placement") or {}).items() if k != "fast_capacity"
    }
    for db in study.databases:
        assert len(db.series.values) <= 2


def test_dbstor_study_shrink_prints_a_study_that_loads(tmp_path):
    example = ROOT / "examples" / "tr-4403-brokerage.toml"
    out = subprocess.run(
        [sys.executable, "-m", "dbstor", "study", str(example), "--shrink", str(tmp_path / "t")],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    (tmp_path / "small.toml").write_text(out)
    study = load_study(tmp_path / "small.toml")
    assert study.name.endswith("(shrunk)")
    assert all(p.is_dir() for t in study.targets for p in (*t.paths, *t.log))


def test_a_shrunk_managed_server_gets_less_memory_than_its_database(tmp_path):
    """A seed's 2 GiB around a 50 MiB shrunk database makes every point 'from memory', and
    then no factor, per-disk figure or cost case may be stated: shrunk, the reads must
    reach the storage. Every role's path moves under the directory, fast too."""
    data = tomllib.loads((ROOT / "examples" / "h6080-placement.toml").read_text())
    data["targets"][1]["fast"] = "/mnt/flash/fast"
    data["databases"].append({"engine": "postgres", "dsn": "postgresql://u@db/x", "scale": 5})
    small, dirs = shrink(data, tmp_path, memory=small_memory)
    managed, external = small["databases"]
    assert managed["users"] == [8, 16]  # 16 connections: 96 MiB + 6 MiB each
    assert (managed["buffer"], managed["memory_limit"]) == ("16MiB", "192MiB")
    assert managed["scale"] == 1000  # about 245 MiB on disk, more than the cap leaves
    blocks = tomllib.loads((ROOT / "examples" / "tr-4415-legacy.toml").read_text())
    (small_blocks,) = shrink(blocks, tmp_path, memory=small_memory)[0]["databases"]
    assert small_blocks["users"] == [32, 64] and small_blocks["memory_limit"] == "480MiB"
    assert small_blocks["scale"] == 2000  # 16 MiB of rows a user against 6 MiB of cap
    assert "memory_limit" not in external  # another machine's server: not dbstor's to cap
    assert small["targets"][1]["fast"] == str(tmp_path / "FLASH" / "fast")
    assert tmp_path / "FLASH" / "fast" in dirs


def test_a_fast_tier_given_as_a_size_shrinks_with_the_database(tmp_path):
    """The shrunk study moves the same share of its database: 300GB for scale 20000 is
    3GB for scale 200; a share ("50%") is left as it is."""
    data = {
        "databases": [{"engine": "postgres", "workload": "brokerage", "scale": 20000}],
        "targets": [{"label": "HDD", "path": "/x", "placement": {"fast_capacity": "30GB"}}],
        "placement": {"fast_capacity": "300GB", "fast": "FLASH"},
    }
    small, _ = shrink(data, tmp_path)
    assert small["placement"] == {"fast_capacity": "3000000000B", "fast": "FLASH"}
    assert small["targets"][0]["placement"]["fast_capacity"] == "300000000B"
    assert data["placement"]["fast_capacity"] == "300GB"  # the study itself is not changed
    share = {**data, "placement": {"fast_capacity": "50%"}}
    assert shrink(share, tmp_path)[0]["placement"]["fast_capacity"] == "50%"
    no_scale = {**data, "databases": [{"engine": "postgres", "workload": "brokerage"}]}
    assert shrink(no_scale, tmp_path)[0]["placement"]["fast_capacity"] == "300GB"

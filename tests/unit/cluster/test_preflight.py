"""Checks a host runs on itself before a cluster run starts."""

from dbstor import __version__
from dbstor.cluster.preflight import run_checks, target_problem, version_problem


def test_version_must_match_the_coordinators():
    assert version_problem("db1", __version__) is None
    assert "host db1 has no dbstor" in version_problem("db1", None)
    other = version_problem("db1", "0.0.1")
    assert f"host db1 runs dbstor 0.0.1, this host {__version__}" in other
    assert f"install dbstor {__version__} on db1" in other


def test_target_must_exist_be_a_directory_and_have_room(tmp_path):
    assert target_problem(str(tmp_path), 0) is None
    assert "does not exist there" in target_problem(str(tmp_path / "nope"), 0)
    afile = tmp_path / "f"
    afile.write_text("x")
    assert "is not a directory" in target_problem(str(afile), 0)
    assert "GiB free there, the run needs" in target_problem(str(tmp_path), 1 << 62)
    assert [p.name for p in tmp_path.iterdir()] == ["f"]  # the write check left nothing


def test_run_checks_lists_only_problems(tmp_path):
    assert run_checks({"target": str(tmp_path), "min_free_bytes": 0}) == []
    assert len(run_checks({"target": str(tmp_path / "nope"), "engine": "no-such-engine"})) == 2

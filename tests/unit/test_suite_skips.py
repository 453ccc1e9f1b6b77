"""The test suite cannot skip what CI should run: under DBSTOR_REQUIRE_ALL=1 (which .ci/run
sets) a skip fails unless it says it is optional or does not apply, and an engine module
that fails to import is an error of the engine tests, never a skip. Each runs a real
pytest in a subprocess."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
ROOT = TESTS.parent

CASES = """
import pytest
from needs import not_applicable, optional

def test_ran():
    pass

def test_missing_tool():
    pytest.skip("fio is not installed")

def test_missing_module():
    pytest.importorskip("dbstor_no_such_module")

@pytest.mark.skipif(True, reason="chromium is not installed")
def test_marked():
    pass

def test_optional():
    optional("an array's exporter")

def test_not_applicable():
    not_applicable("SQLite is embedded")
"""


def _pytest(folder: Path, *args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider", *args],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def _suite(tmp_path: Path) -> Path:
    (tmp_path / "conftest.py").write_text((TESTS / "conftest.py").read_text())
    (tmp_path / "test_cases.py").write_text(CASES)
    return tmp_path


def _env(require: bool) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "DBSTOR_REQUIRE_ALL"}
    env["PYTHONPATH"] = str(TESTS / "integration")
    return {**env, "DBSTOR_REQUIRE_ALL": "1"} if require else env


def test_without_the_switch_skips_stay_skips(tmp_path):
    done = _pytest(_suite(tmp_path), env=_env(False))
    assert done.returncode == 0, done.stdout
    assert "1 passed, 5 skipped" in done.stdout, done.stdout


def test_under_the_switch_a_skip_of_what_ci_installs_fails(tmp_path):
    done = _pytest(_suite(tmp_path), env=_env(True))
    assert done.returncode == 1, done.stdout
    assert "2 failed, 1 passed, 2 skipped, 1 error" in done.stdout, done.stdout  # skipif: setup
    assert done.stdout.count("CI installs what this test needs") == 3, done.stdout
    for why in ("fio is not installed", "dbstor_no_such_module", "chromium is not installed"):
        assert why in done.stdout, done.stdout
    assert "optional: an array's exporter" in done.stdout  # listed by -rs
    assert "not applicable: SQLite is embedded" in done.stdout


def test_under_the_switch_a_module_that_skips_as_a_whole_fails(tmp_path):
    suite = _suite(tmp_path)
    (suite / "test_cases.py").write_text(
        "import pytest\npytest.skip('psycopg is missing', allow_module_level=True)\n"
    )
    done = _pytest(suite, env=_env(True))
    assert done.returncode != 0 and "psycopg is missing" in done.stdout, done.stdout


def test_an_engine_module_that_does_not_import_is_an_error_not_skips(tmp_path):
    """A broken dbstor.engines.mariadb (made so by a sitecustomize in the subprocess): the
    server engine tests fail to collect, loudly."""
    (tmp_path / "sitecustomize.py").write_text(
        "import sys\n"
        "class Broken:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name == 'dbstor.engines.mariadb':\n"
        "            raise ImportError('planted: a syntax error in the engine module')\n"
        "sys.meta_path.insert(0, Broken())\n"
    )
    env = _env(False)
    env["PYTHONPATH"] = f"{tmp_path}{os.pathsep}{env['PYTHONPATH']}"
    done = _pytest(ROOT, "--collect-only", "tests/integration/test_brokerage_servers.py", env=env)
    assert done.returncode != 0, done.stdout
    assert "planted: a syntax error in the engine module" in done.stdout, done.stdout
    assert "skipped" not in done.stdout, done.stdout

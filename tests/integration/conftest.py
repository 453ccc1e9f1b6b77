"""Shared helpers for the integration tests: the real CLI in a subprocess, real fio.

Fixtures:
  dbstor    the CLI: dbstor(*args) -> CompletedProcess; dbstor.start(*args) -> Popen
            (killed at teardown if still running); helpers to read what a run left
  dbstor_class  the same for module-scoped fixtures: dbstor_class(cwd)
  loop_fs   a small ext4 file system on a loop device (root only; skipped otherwise)
  tmpfs     tmpfs(name, size) -> a fresh tmpfs of that size at tmp_path/name (root only)
  server_dir  a temporary directory a database server's unprivileged account can reach

Marker:
  skip_without_fio  skip the test when fio is not on PATH
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from loopfs import LoopFs, mounted_loop_fs

DBSTOR = (sys.executable, "-m", "dbstor")
LOOP_FS_SIZE = "48M"


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "skip_without_fio: skip the test when fio is not on PATH")


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """One line naming the engines whose registry-driven items were not generated: no
    server here and no DBSTOR_TEST_DSN_<ENGINE> (tests/integration/needs.py)."""
    from needs import DSN_VARIABLE, NO_SERVER

    if NO_SERVER:
        variable = DSN_VARIABLE.format("<ENGINE>")
        terminalreporter.write_line(
            f"engines with no server here, their items not generated: "
            f"{', '.join(sorted(NO_SERVER))} (give {variable} to run them)"
        )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if shutil.which("fio") is not None:
        return
    skip = pytest.mark.skip(reason="fio is not installed (apt-get install fio)")
    for item in items:
        if item.get_closest_marker("skip_without_fio"):
            item.add_marker(skip)


def _env(env: dict[str, str] | None) -> dict[str, str]:
    base = dict(os.environ if env is None else env)
    base.setdefault("COLUMNS", "200")  # rich: no wrapping of progress and error lines
    base.pop("FORCE_COLOR", None)
    return base


def _default_interrupt() -> None:
    """Give the child Ctrl-C's (and SIGHUP's) default handling: a harness started in the
    background (nohup ... &) passes them on as ignored, and the signal tests would then hang."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGHUP, signal.SIG_DFL)


class Dbstor:
    """The dbstor CLI as a subprocess, plus what tests need to look at what it left.

    `dbstor(*args)` runs it to the end; `dbstor.start(*args)` starts it in the background
    in its own session (like a terminal job); the fixture kills what is still running.
    """

    def __init__(self, cwd: Path):
        self.cwd = cwd
        self.started: list[subprocess.Popen[str]] = []

    def __call__(
        self,
        *args: str | Path,
        cwd: Path | None = None,
        env: dict[str, str] | None = None,
        timeout: float = 120,
    ) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [*DBSTOR, *map(str, args)],
            cwd=cwd or self.cwd,
            env=_env(env),
            capture_output=True,
            text=True,
            timeout=timeout,
            stdin=subprocess.DEVNULL,
            check=False,
        )

    def start(self, *args: str | Path, cwd: Path | None = None) -> subprocess.Popen[str]:
        proc = subprocess.Popen(
            [*DBSTOR, *map(str, args)],
            cwd=cwd or self.cwd,
            env=_env(None),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
            preexec_fn=_default_interrupt,
        )
        self.started.append(proc)
        return proc

    def stop_all(self) -> None:
        for proc in self.started:
            if proc.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGKILL)
            with contextlib.suppress(subprocess.TimeoutExpired, ValueError):
                proc.communicate(timeout=10)

    # --- what a run left behind ------------------------------------------------------

    @staticmethod
    def run_folders(out: Path) -> list[Path]:
        """The run folders (holding results.json) anywhere under OUT, sorted."""
        return sorted(p.parent for p in out.rglob("results.json"))

    @classmethod
    def only_run_folder(cls, out: Path) -> Path:
        folders = cls.run_folders(out)
        assert len(folders) == 1, f"expected one run folder under {out}, found {folders}"
        return folders[0]

    @staticmethod
    def results(folder: Path) -> dict[str, Any]:
        return json.loads((folder / "results.json").read_text(encoding="utf-8"))

    @classmethod
    def wait_for_points(
        cls, out: Path, count: int, proc: subprocess.Popen[str], timeout: float = 60
    ) -> dict[str, Any]:
        """Poll OUT/*/results.json until it holds `count` finished points; return it."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for folder in cls.run_folders(out):
                try:
                    data = cls.results(folder)
                except (OSError, ValueError):
                    continue  # being replaced right now
                if sum(p.get("status") == "ok" for p in data.get("points", [])) >= count:
                    return data
            if proc.poll() is not None:
                _, stderr = proc.communicate()
                pytest.fail(
                    f"dbstor exited ({proc.returncode}) before {count} point(s) finished:\n{stderr}"
                )
            time.sleep(0.05)
        pytest.fail(f"no results.json with {count} finished point(s) under {out} after {timeout} s")

    @staticmethod
    def leftovers(directory: Path) -> list[str]:
        """dbstor's test files and ownership manifest still in a target directory."""
        return sorted(
            p.name
            for p in directory.iterdir()
            if (p.name.startswith("dbstor-") and p.name.endswith(".dat"))
            or p.name == ".dbstor-owned.json"
        )

    @staticmethod
    def assert_user_error(proc: subprocess.CompletedProcess[str], *needles: str) -> str:
        """Exit 2, exactly one non-empty stderr line 'dbstor: error: ...', no traceback.

        Returns the line; every needle must appear in it (case-insensitive).
        """
        assert "Traceback" not in proc.stderr, proc.stderr
        lines = [ln for ln in proc.stderr.splitlines() if ln.strip()]
        assert len(lines) == 1, f"expected one line on stderr, got {len(lines)}:\n{proc.stderr}"
        line = lines[0]
        assert line.startswith("dbstor: error:"), line
        assert proc.returncode == 2, (proc.returncode, proc.stderr)
        for needle in needles:
            assert needle.lower() in line.lower(), f"{needle!r} not in: {line}"
        return line


@pytest.fixture
def dbstor(tmp_path: Path) -> Iterator[Dbstor]:
    """The dbstor CLI, run with the test's tmp dir as its working directory."""
    cli = Dbstor(tmp_path)
    yield cli
    cli.stop_all()


@pytest.fixture(scope="session")
def dbstor_class() -> type[Dbstor]:
    """For module-scoped fixtures that run dbstor once for several tests: Dbstor(cwd)."""
    return Dbstor


@pytest.fixture
def loop_fs(tmp_path: Path) -> Iterator[LoopFs]:
    """A 48 MiB ext4 file system mounted on a loop device; unmounted and removed at teardown."""
    with mounted_loop_fs(tmp_path, LOOP_FS_SIZE) as fs:
        yield fs


@pytest.fixture
def tmpfs(tmp_path: Path) -> Iterator[Any]:
    """tmpfs(name, size) -> a fresh tmpfs of that size mounted at tmp_path/name."""
    if os.geteuid() != 0:
        pytest.skip("needs root to mount a tmpfs")
    mounted: list[Path] = []

    def mount(name: str, size: str) -> Path:
        path = tmp_path / name
        path.mkdir()
        done = subprocess.run(
            ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(path)],
            capture_output=True,
            text=True,
        )
        if done.returncode != 0:
            pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip()}")
        mounted.append(path)
        return path

    yield mount
    for path in mounted:
        for _ in range(20):
            if subprocess.run(["umount", str(path)], capture_output=True).returncode == 0:
                break
            time.sleep(0.25)


@pytest.fixture
def server_dir() -> Iterator[Path]:
    """A directory a database server's unprivileged account can reach (pytest's own tmp
    directories are private to root)."""
    path = Path(tempfile.mkdtemp(prefix="dbstor-dbrun-"))
    path.chmod(0o711)
    yield path
    shutil.rmtree(path, ignore_errors=True)

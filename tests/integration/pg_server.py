"""A throwaway PostgreSQL server on loopback for integration tests.

    pg_server = _sibling("pg_server")  # pytest runs with --import-mode=importlib: load
                                        # this file by path, see test_advise_cli._sibling

    @pytest.fixture(scope="module")
    def pg():
        with pg_server.running_server(settings={"shared_buffers": "1MB"}) as server:
            yield server          # server.dsn("app"), server.sql("...", "app")

`running_server` skips the test (pytest.skip, with the reason) when no PostgreSQL
binaries are found under /usr/lib/postgresql/*/bin (or on PATH). It initdb's a new
cluster in a fresh temporary directory (owned by the `postgres` user and run through
`runuser` when the tests run as root, because PostgreSQL refuses to run as root),
starts it on 127.0.0.1 at a free port with its socket in that directory, trusts local
connections (any password in a DSN is accepted and ignored), and at exit stops the
server (immediate mode) and removes the directory.
"""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

BINARIES = ("initdb", "pg_ctl", "postgres", "psql")
DEFAULT_SETTINGS = {
    "fsync": "off",
    "synchronous_commit": "off",
    "full_page_writes": "off",
    "max_connections": "20",
}


def find_bindir() -> Path | None:
    """The newest PostgreSQL bin directory that has every binary needed, or None."""
    candidates = sorted(
        glob.glob("/usr/lib/postgresql/*/bin"),
        key=lambda p: [int(x) if x.isdigit() else 0 for x in Path(p).parent.name.split(".")],
        reverse=True,
    )
    for directory in candidates:
        if all(os.access(Path(directory, b), os.X_OK) for b in BINARIES):
            return Path(directory)
    found = shutil.which("pg_ctl")
    if found and all(shutil.which(b) for b in BINARIES):
        return Path(os.path.realpath(found)).parent
    return None


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class PgServer:
    """A running cluster: where it lives and how to reach it."""

    bindir: Path
    base: Path  # temporary directory holding data/, sock/ and server.log
    port: int
    as_postgres: bool  # commands run through runuser -u postgres
    host: str = "127.0.0.1"
    user: str = "postgres"
    netns: str | None = None  # the network namespace it runs in (tests/integration/netns.py)

    @property
    def datadir(self) -> Path:
        return self.base / "data"

    @property
    def sockdir(self) -> Path:
        return self.base / "sock"

    @property
    def log(self) -> Path:
        return self.base / "server.log"

    def dsn(self, dbname: str = "postgres", password: str | None = None) -> str:
        """A postgresql:// URI to the server (the password is accepted and ignored)."""
        secret = f":{password}" if password else ""
        return f"postgresql://{self.user}{secret}@{self.host}:{self.port}/{dbname}"

    def psql(
        self, *args: str, dbname: str = "postgres", timeout: float = 60
    ) -> subprocess.CompletedProcess[str]:
        """psql against the server (stops at the first error, unaligned output) with args
        (`-c SQL` or `-f FILE`); the finished process, whatever its exit status."""
        command = [
            *self.in_netns(),
            str(self.bindir / "psql"),
            *("-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1"),
            *("-h", self.host, "-p", str(self.port), "-U", self.user, "-d", dbname),
            *args,
        ]
        return subprocess.run(command, capture_output=True, text=True, timeout=timeout, check=False)

    def sql(self, statements: str, dbname: str = "postgres", timeout: float = 60) -> str:
        """Run SQL with psql (stops at the first error); returns its unaligned output."""
        done = self.psql("-c", statements, dbname=dbname, timeout=timeout)
        if done.returncode != 0:
            raise RuntimeError(f"psql failed ({done.returncode}): {done.stderr.strip()}")
        return done.stdout

    def create_database(self, name: str) -> None:
        self.sql(f'CREATE DATABASE "{name}"')

    def in_netns(self) -> list[str]:
        """The prefix that runs a command in the server's network namespace, if it has one."""
        return ["ip", "netns", "exec", self.netns] if self.netns else []

    def _cmd(self, *args: str) -> list[str]:
        account = ["runuser", "-u", "postgres", "--"] if self.as_postgres else []
        return [*self.in_netns(), *account, *args]

    def stop(self) -> None:
        subprocess.run(
            self._cmd(
                str(self.bindir / "pg_ctl"),
                "-D",
                str(self.datadir),
                "-m",
                "immediate",
                "-w",
                "-t",
                "30",
                "stop",
            ),
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )


def _run(cmd: list[str], what: str, timeout: float = 120) -> None:
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"{what} failed ({done.returncode}): {done.stderr.strip()[-2000:]}")


@contextlib.contextmanager
def running_server(
    settings: dict[str, str] | None = None, host: str = "127.0.0.1", netns: str | None = None
) -> Iterator[PgServer]:
    """Start a fresh cluster (skipping the test if that cannot be done); stop it after.
    With `netns` it runs inside that network namespace, listening on `host` there."""
    bindir = find_bindir()
    if bindir is None:
        pytest.skip(
            "PostgreSQL binaries not found under /usr/lib/postgresql/*/bin "
            "(apt-get install postgresql)"
        )
    as_postgres = os.geteuid() == 0
    if as_postgres:
        try:
            owner = pwd.getpwnam("postgres")
        except KeyError:
            pytest.skip("running as root and there is no 'postgres' user to run the server")
        if shutil.which("runuser") is None:
            pytest.skip("running as root and runuser is missing (util-linux)")
    base = Path(tempfile.mkdtemp(prefix="dbstor-pg-"))
    server = PgServer(
        bindir=bindir,
        base=base,
        port=free_port(),
        as_postgres=as_postgres,
        host=host,
        netns=netns,
    )
    started = False
    try:
        server.sockdir.mkdir()
        if as_postgres:
            for path in (base, server.sockdir):
                os.chown(path, owner.pw_uid, owner.pw_gid)
        _run(
            server._cmd(
                str(bindir / "initdb"),
                "-D",
                str(server.datadir),
                "-U",
                server.user,
                "--auth=trust",
                "-E",
                "UTF8",
                "--no-sync",
                "--no-instructions",
            ),
            "initdb",
        )
        if netns:  # clients come from the namespace's own link, not from 127.0.0.1
            with (server.datadir / "pg_hba.conf").open("a", encoding="utf-8") as hba:
                hba.write("host all all samenet trust\n")
        options = {
            **DEFAULT_SETTINGS,
            **(settings or {}),
            "listen_addresses": server.host,
            "port": str(server.port),
            "unix_socket_directories": str(server.sockdir),
        }
        opts = " ".join(f"-c {k}={v}" for k, v in options.items())
        started = True  # from here on, stop whatever may have started
        try:
            _run(
                server._cmd(
                    str(bindir / "pg_ctl"),
                    "-D",
                    str(server.datadir),
                    "-l",
                    str(server.log),
                    "-w",
                    "-t",
                    "60",
                    "-o",
                    opts,
                    "start",
                ),
                "pg_ctl start",
            )
        except RuntimeError as exc:
            log = server.log.read_text(errors="replace")[-2000:] if server.log.exists() else ""
            raise RuntimeError(f"{exc}\nserver log:\n{log}") from None
        yield server
    finally:
        if started:
            server.stop()
        shutil.rmtree(base, ignore_errors=True)

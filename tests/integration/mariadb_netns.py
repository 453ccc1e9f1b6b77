"""A throwaway MariaDB server inside a network namespace, for tests of a cut network.

    with netns.private_link() as link, mariadb_netns.running_server(link) as server:
        server.dsn("bench", SECRET)  # mysql://bench:SECRET@198.18.0.2:3306/

The server runs as the `mysql` account (MariaDB refuses root), from a fresh temporary
directory, listening on the namespace's veth address only (and on a socket in that
directory, through which the test sets up its user). At exit it is stopped (SIGKILL: its
data is thrown away) and the directory removed. Skips the test, saying why, when MariaDB's
binaries or the `mysql` account are missing.
"""

from __future__ import annotations

import contextlib
import os
import pwd
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import netns
import pytest

PORT = 3306  # the namespace is the server's own: nothing else listens there
START_TIMEOUT_S = 120


@dataclass
class MariaServer:
    base: Path
    host: str
    port: int = PORT

    @property
    def socket(self) -> Path:
        return self.base / "mysqld.sock"

    def dsn(self, user: str, password: str) -> str:
        return f"mysql://{user}:{password}@{self.host}:{self.port}/"


def _binaries() -> tuple[str, str]:
    server = shutil.which("mariadbd") or shutil.which("mariadbd", path="/usr/sbin")
    install = shutil.which("mariadb-install-db")
    if not server or not install:
        pytest.skip("MariaDB server binaries not found (apt-get install mariadb-server)")
    return server, install


def _root(server: MariaServer) -> object:
    import MySQLdb

    return MySQLdb.connect(unix_socket=str(server.socket), user="root", password="")


@contextlib.contextmanager
def running_server(link: netns.Link, user: str, password: str) -> Iterator[MariaServer]:
    """mariadbd in link.server_ns on link.server_addr, with `user`@link.client_addr
    allowed everything on the server (the password `password`)."""
    mariadbd, install = _binaries()
    try:
        account = pwd.getpwnam("mysql")
    except KeyError:
        pytest.skip("there is no 'mysql' account to run MariaDB as")
    pytest.importorskip("MySQLdb")
    base = Path(tempfile.mkdtemp(prefix="dbstor-maria-"))
    os.chmod(base, 0o755)
    os.chown(base, account.pw_uid, account.pw_gid)
    server = MariaServer(base=base, host=link.server_addr)
    as_mysql = ["runuser", "-u", "mysql", "--"]
    process: subprocess.Popen[bytes] | None = None
    try:
        done = subprocess.run(
            [*as_mysql, install, "--no-defaults", f"--datadir={base / 'data'}",
             "--auth-root-authentication-method=normal", "--skip-test-db",
             "--skip-name-resolve"],
            capture_output=True, text=True, timeout=180, check=False,
        )  # fmt: skip
        if done.returncode != 0:
            raise RuntimeError(f"mariadb-install-db failed: {done.stderr[-2000:]}")
        process = subprocess.Popen(
            [*link.run_in(link.server_ns), *as_mysql, mariadbd, "--no-defaults",
             f"--datadir={base / 'data'}", f"--socket={server.socket}", f"--port={PORT}",
             f"--bind-address={link.server_addr}", "--skip-name-resolve",
             f"--pid-file={base / 'server.pid'}", f"--log-error={base / 'server.log'}",
             "--innodb-buffer-pool-size=64M", "--max-connections=60"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        deadline = time.monotonic() + START_TIMEOUT_S
        while True:
            try:
                conn = _root(server)
                break
            except Exception:
                if process.poll() is not None or time.monotonic() > deadline:
                    log = (base / "server.log").read_text(errors="replace")[-2000:]
                    raise RuntimeError(f"mariadbd did not start:\n{log}") from None
                time.sleep(0.3)
        with conn.cursor() as cur:  # type: ignore[attr-defined]
            cur.execute("CREATE USER %s@%s IDENTIFIED BY %s", (user, link.client_addr, password))
            cur.execute("GRANT ALL ON *.* TO %s@%s", (user, link.client_addr))
        conn.close()  # type: ignore[attr-defined]
        yield server
    finally:
        if process is not None and process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(process.pid, signal.SIGKILL)  # runuser; the server follows below
            process.wait(timeout=30)
        with contextlib.suppress(OSError, ValueError):
            pid = int((base / "server.pid").read_text().strip())
            os.kill(pid, signal.SIGKILL)
        shutil.rmtree(base, ignore_errors=True)

"""The OS account a managed server runs as, and running commands as that account.

PostgreSQL and MariaDB refuse to run as root. When dbstor runs as root the server runs as
an unprivileged account: the distro's (`postgres`, `mysql`) when it exists, else a system
user `dbstor` created with useradd. Otherwise the server runs as dbstor's own user.
"""

from __future__ import annotations

import contextlib
import os
import pwd
import shutil
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dbstor.engines.messages import last_line
from dbstor.errors import UserError

FALLBACK_ACCOUNT = "dbstor"


@dataclass(frozen=True)
class Account:
    """The OS account a server runs as."""

    name: str
    uid: int
    gid: int

    def popen_ids(self) -> dict[str, Any]:
        """subprocess keyword arguments that switch to this account (when root)."""
        if os.geteuid() == 0 and self.uid != 0:
            return {"user": self.uid, "group": self.gid, "extra_groups": []}
        return {}


def service_account(preferred: Sequence[str]) -> Account:
    """Ourselves unless root; as root the first preferred account, else `dbstor` (created)."""
    if os.geteuid() != 0:
        entry = pwd.getpwuid(os.geteuid())
        return Account(entry.pw_name, entry.pw_uid, entry.pw_gid)
    for name in (*preferred, FALLBACK_ACCOUNT):
        with contextlib.suppress(KeyError):
            entry = pwd.getpwnam(name)
            return Account(entry.pw_name, entry.pw_uid, entry.pw_gid)
    useradd = shutil.which("useradd") or "/usr/sbin/useradd"
    cmd = [useradd, "--system", "--user-group", "--no-create-home", "--home-dir", "/nonexistent"]
    cmd += ["--shell", "/usr/sbin/nologin", FALLBACK_ACCOUNT]
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=60, check=False)
    except OSError as exc:
        raise UserError(
            f"cannot create the '{FALLBACK_ACCOUNT}' account ({exc.strerror}): "
            f"create an unprivileged user '{FALLBACK_ACCOUNT}' or run dbstor as a normal user"
        ) from None
    if done.returncode not in (0, 9):  # 9: exists already (created concurrently)
        raise UserError(
            f"useradd {FALLBACK_ACCOUNT} failed: {last_line(done.stderr)}; "
            f"create an unprivileged user '{FALLBACK_ACCOUNT}' or run dbstor as a normal user"
        )
    entry = pwd.getpwnam(FALLBACK_ACCOUNT)
    return Account(entry.pw_name, entry.pw_uid, entry.pw_gid)


def chown_tree(path: Path, account: Account) -> None:
    """Give a directory tree to the account (no-op unless root)."""
    if os.geteuid() != 0:
        return
    os.lchown(path, account.uid, account.gid)
    for root, dirs, files in os.walk(path):
        for name in (*dirs, *files):
            os.lchown(os.path.join(root, name), account.uid, account.gid)


def server_env(home: Path) -> dict[str, str]:
    """A small, predictable environment for server commands."""
    path = (
        os.environ.get("PATH", "") + ":/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
    )
    return {"PATH": path, "HOME": str(home), "LANG": "C", "LC_ALL": "C", "TZ": "UTC"}


def run_as(
    cmd: Sequence[str], account: Account, cwd: Path, timeout: float = 300, stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    """Run a command to its end as the account; output captured as text."""
    try:
        return subprocess.run(
            list(cmd),
            cwd=cwd,
            env=server_env(cwd),
            input=stdin,
            text=True,
            capture_output=True,
            timeout=timeout,
            check=False,
            **account.popen_ids(),
        )
    except subprocess.TimeoutExpired:
        raise UserError(f"{Path(cmd[0]).name} did not finish within {timeout:.0f} s") from None
    except OSError as exc:
        raise UserError(f"cannot run {cmd[0]}: {exc.strerror}") from None


def can_write(path: Path, account: Account) -> bool:
    """Whether the account can reach and write a directory (checked as that account)."""
    if not account.popen_ids():
        return os.access(path, os.W_OK | os.X_OK)
    test = shutil.which("test") or "/usr/bin/test"
    return (
        run_as([test, "-w", str(path), "-a", "-x", str(path)], account, Path("/"), 30).returncode
        == 0
    )

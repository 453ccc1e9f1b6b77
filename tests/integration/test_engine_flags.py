"""A managed server's memory flags that no server can start with are refused before it is
started, naming the flag and a value that works (real PostgreSQL and MariaDB)."""

from __future__ import annotations

import pytest
from needs import usable

pytestmark = pytest.mark.integration

FAST = ("--users", "1", "--duration", "1", "--warmup", "0", "--scale", "50", "--quiet")


@pytest.mark.parametrize("engine", ["postgres", "mariadb"])
@pytest.mark.parametrize(
    ("flags", "needles"),
    [
        (("--memory-limit", "1KiB"), ("--memory-limit 1.0 KiB is too small", "at least ")),
        (
            ("--buffer", "1PiB"),
            ("--buffer 1.0 PiB is more than this host's memory", "e.g. --buffer"),
        ),
        (
            ("--buffer", "1GiB", "--memory-limit", "512MiB"),
            ("does not fit in --memory-limit 512.0 MiB", "e.g. --buffer 128MiB"),
        ),
    ],
)
def test_memory_flags_no_server_starts_with(dbstor, server_dir, engine, flags, needles):
    usable(engine)
    target = server_dir / "lun"
    target.mkdir()
    proc = dbstor("run", "--engine", engine, "--target", target, *FAST, *flags, "--out", "out")
    dbstor.assert_user_error(proc, *needles)
    assert list(target.iterdir()) == []

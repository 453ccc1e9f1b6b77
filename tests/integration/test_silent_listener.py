"""Every engine's connect against a silent listener (a real TCP socket that accepts and
never answers: a wrong port, a hung server): `engines --check` and `run` each end in one
line, exit 2, naming the bound they waited and the DSN parameter that changes it, never
the password. (The drivers are the real ones; the bound is set small in the DSN.)"""

from __future__ import annotations

import os
import socket
import threading
from collections.abc import Iterator

import pytest

from dbstor.engines.registry import ENGINES, engine_class

pytestmark = pytest.mark.integration

SECRET = "S3cr3tPw"
# every server engine from its declaration (ServerEngine.dsn_form, connect_bound,
# password_env), its connect bound at 2 s (the parameter the message names)
SERVERS = {n: c for n in ENGINES if (c := engine_class(n)).is_server and c.dsn_form}
ENV = {c.password_env: SECRET for c in SERVERS.values() if c.password_env}


def dsn_of(engine: str, port: int) -> tuple[str, str]:
    """A DSN of the engine to 127.0.0.1:port bounded at 2 s, and its bound's parameter."""
    cls = SERVERS[engine]
    base = cls.dsn_form.format(user="u", password=SECRET, host="127.0.0.1", port=port)
    return f"{base}?{cls.connect_bound}=2", cls.connect_bound


@pytest.fixture
def silent_port() -> Iterator[int]:
    """A listener on 127.0.0.1 that accepts every connection and never sends a byte."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(16)
    held: list[socket.socket] = []

    def accept() -> None:
        while True:
            try:
                held.append(server.accept()[0])
            except OSError:
                return

    threading.Thread(target=accept, daemon=True).start()
    yield server.getsockname()[1]
    server.close()
    for conn in held:
        conn.close()


@pytest.mark.parametrize("command", ["check", "run"])
@pytest.mark.parametrize("engine", list(SERVERS))
def test_every_engine_gives_up_on_a_silent_listener_naming_the_bound(
    dbstor, tmp_path, silent_port, engine, command
):
    dsn, parameter = dsn_of(engine, silent_port)
    if command == "check":
        args = ["engines", "--check", "--engine", engine, "--dsn", dsn]
    else:
        args = ["run", "--engine", engine, "--dsn", dsn, "--users", "1", "--duration", "1s",
                "--warmup", "0s", "--out", str(tmp_path / "o")]  # fmt: skip
    proc = dbstor(*args, env={**os.environ, **ENV}, timeout=60)
    line = dbstor.assert_user_error(proc, "2 s", parameter, f"127.0.0.1:{silent_port}")
    assert SECRET not in proc.stderr + proc.stdout
    assert "cannot connect" in line, line
    assert not (tmp_path / "o").exists() or not any((tmp_path / "o").rglob("results.json"))


@pytest.mark.skip_without_fio
def test_a_silent_listener_as_the_ray_head_is_refused_naming_the_bound(
    dbstor, tmp_path, silent_port
):
    (tmp_path / "t").mkdir()
    proc = dbstor(
        "io", "--target", tmp_path / "t", "--size", "4MiB", "--duration", "1", "--warmup", "0",
        "--iodepth", "1", "--cluster", f"127.0.0.1:{silent_port}", "--hosts", "a",
        "--out", tmp_path / "o", timeout=60,
    )  # fmt: skip
    dbstor.assert_user_error(proc, f"127.0.0.1:{silent_port} is not a Ray head", "within 5 s")

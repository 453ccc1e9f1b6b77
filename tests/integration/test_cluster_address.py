"""A cluster address on which something other than a Ray head answers: one line, exit 2, in
seconds (ray.init() alone would retry for minutes), for every command that takes --cluster."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator

import pytest

pytestmark = pytest.mark.integration

BOUND_S = 30  # the probe gives up after 5 s; the rest is Python and Ray's import


def _serve(answer: bytes | None) -> Iterator[str]:
    """A TCP server on 127.0.0.1 that accepts and then says nothing (answer None) or sends
    `answer` to whatever it is sent; yields its HOST:PORT."""
    server = socket.create_server(("127.0.0.1", 0))
    server.settimeout(0.2)
    held: list[socket.socket] = []
    done = threading.Event()

    def accept() -> None:
        while not done.is_set():
            try:
                conn, _ = server.accept()
            except TimeoutError:
                continue
            held.append(conn)
            if answer is not None:
                conn.recv(4096)
                conn.sendall(answer)

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield f"127.0.0.1:{server.getsockname()[1]}"
    finally:
        done.set()
        thread.join()
        for conn in held:
            conn.close()
        server.close()


@pytest.fixture
def silent_port() -> Iterator[str]:
    yield from _serve(None)


@pytest.fixture
def http_port() -> Iterator[str]:
    yield from _serve(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")


COMMANDS = [
    pytest.param(("hosts",), id="hosts"),
    pytest.param(
        ("io", "--hosts", "h1", "--target", "/tmp", "--iodepth", "1", "--duration", "1"), id="io"
    ),
    pytest.param(("run", "--hosts", "h1", "--engine", "postgres", "--target", "/tmp"), id="run"),
]


def _refused(dbstor, address: str, command: tuple[str, ...], why: str) -> None:
    pytest.importorskip("ray", reason="the cluster extra: pip install 'dbstor[cluster]'")
    began = time.monotonic()
    proc = dbstor(*command, "--cluster", address, timeout=BOUND_S * 3)
    took = time.monotonic() - began
    line = dbstor.assert_user_error(proc, f"{address} is not a Ray head", why)
    assert "ray start --head --port=PORT" in line
    assert took < BOUND_S, f"{took:.0f} s"


@pytest.mark.parametrize("command", COMMANDS)
def test_a_port_that_accepts_and_says_nothing_is_one_line(dbstor, silent_port, command):
    _refused(dbstor, silent_port, command, "said nothing within 5 s")


@pytest.mark.parametrize("command", COMMANDS)
def test_a_web_server_on_the_port_is_one_line(dbstor, http_port, command):
    _refused(dbstor, http_port, command, "answered as a web server")

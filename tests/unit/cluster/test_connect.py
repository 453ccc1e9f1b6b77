"""The cluster address: a public one is warned about (Ray's port runs anyone's code); a
port that answers but is not Ray is told apart from a Ray head by its first answer."""

from __future__ import annotations

import contextlib
import socket
import threading

import pytest

from dbstor.cluster.connect import not_ray_reason, public_address_warning


@pytest.mark.parametrize(
    "address",
    [
        "127.0.0.1:6379",
        "localhost:6379",
        "10.0.0.5:6379",
        "172.16.3.4:6379",
        "192.168.1.20:6379",
        "100.64.0.7:6379",  # shared (carrier-grade NAT, overlay networks)
        "169.254.0.3:6379",
        "[::1]:6379",
        "[fd00::5]:6379",
    ],
)
def test_loopback_and_private_addresses_are_not_warned_about(address):
    assert public_address_warning(address) is None


@pytest.mark.parametrize("address", ["8.8.8.8:6379", "1.1.1.1:1", "[2606:4700::1111]:6379"])
def test_a_public_address_is_one_line_naming_the_risk(address):
    line = public_address_warning(address)
    assert line is not None and "\n" not in line
    assert "can run any code on every host" in line
    assert "loopback or a private network" in line


def _answering(answer: bytes | None):
    """A one-connection server on 127.0.0.1 sending `answer` after it reads (None: silent)."""
    server = socket.create_server(("127.0.0.1", 0))

    def serve() -> None:
        conn, _ = server.accept()
        with conn, contextlib.suppress(OSError):  # the client may hang up first
            conn.recv(64)
            if answer is not None:
                conn.sendall(answer)
            conn.recv(64)  # hold it open until the client is done

    threading.Thread(target=serve, daemon=True).start()
    return server


@pytest.mark.parametrize(
    ("answer", "words"),
    [
        (None, "said nothing within 0.5 s"),
        (b"HTTP/1.1 400 Bad Request\r\n\r\n", "web server"),
        (b"\x00\x00\x00\x07\x00\x00\x00\x00\x00", "not Ray's"),  # an HTTP/2 GOAWAY first
        (b"\x00\x00\x00\x04\x00\x00\x00\x00\x00", None),  # SETTINGS, as gRPC answers
    ],
)
def test_the_first_answer_tells_a_ray_head_apart(answer, words):
    server = _answering(answer)
    with server, socket.create_connection(server.getsockname()) as conn:
        why = not_ray_reason(conn, 0.5)
    assert why is None if words is None else words in why, why

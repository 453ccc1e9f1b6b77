"""`dbstor serve`: the index and every report of a results folder over HTTP, read-only,
with Python's own server. Only regular files inside the folder are served (never through
a link, never above it); `/` rebuilds the index (only new or changed runs are read);
`/compare?runs=A,B&baseline=A` renders the comparison of runs through the same code as
`dbstor compare --report`."""

from __future__ import annotations

import contextlib
import ipaddress
import mimetypes
import os
from collections.abc import Callable
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from dbstor.catalog.comparisons import inside, page_of
from dbstor.errors import UserError


def is_loopback(address: str) -> bool:
    try:
        return ipaddress.ip_address(address).is_loopback
    except ValueError:
        return address == "localhost"


def handler_for(root: Path, refresh: Callable[[], Any]) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        server_version = "dbstor"

        def log_message(self, format: str, *args: Any) -> None:
            pass  # quiet: the terminal shows the address once, not every request

        def send_text(self, status: HTTPStatus, body: bytes, kind: str) -> None:
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("X-Content-Type-Options", "nosniff")
            self.end_headers()
            self.wfile.write(body)

        def refuse(self, status: HTTPStatus, why: str) -> None:
            self.send_text(status, why.encode() + b"\n", "text/plain; charset=utf-8")

        def do_GET(self) -> None:
            url = urlsplit(self.path)
            try:
                if url.path in ("/", "/index.html"):
                    refresh()
                    self.send_file(root / "index.html")
                elif url.path == "/compare":
                    query = parse_qs(url.query)
                    names = [n for n in ",".join(query.get("runs", [])).split(",") if n]
                    page = page_of(root, names, (query.get("baseline") or [None])[0])
                    self.send_text(HTTPStatus.OK, page.encode(), "text/html; charset=utf-8")
                else:
                    path = inside(root, url.path)
                    if path is not None and path.is_dir():
                        path = path / "report.html"
                    if path is None:
                        self.refuse(HTTPStatus.FORBIDDEN, "outside the results folder")
                    else:
                        self.send_file(path)
            except UserError as exc:
                self.refuse(HTTPStatus.BAD_REQUEST, str(exc))

        def send_file(self, path: Path) -> None:
            try:
                fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
            except OSError:
                self.refuse(HTTPStatus.NOT_FOUND, "no such file")
                return
            with open(fd, "rb") as handle:
                if not os.path.isfile(path):
                    self.refuse(HTTPStatus.NOT_FOUND, "not a file")
                    return
                body = handle.read()
            kind = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
            if kind.startswith("text/") or kind == "application/json":
                kind += "; charset=utf-8"
            self.send_text(HTTPStatus.OK, body, kind)

    return Handler


def serve(root: Path, address: str, port: int, refresh: Callable[[], Any]) -> ThreadingHTTPServer:
    """A server bound to address:port (not yet serving); port 0 picks a free one."""
    server = ThreadingHTTPServer((address, port), handler_for(root, refresh))
    server.daemon_threads = True
    return server


def close(server: ThreadingHTTPServer) -> None:
    with contextlib.suppress(OSError):
        server.server_close()

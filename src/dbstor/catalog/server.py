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
import stat
from collections.abc import Callable
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from dbstor.catalog.comparisons import inside, page_of
from dbstor.errors import UserError

MAX_PATH_CHARS = 4096  # PATH_MAX: a longer request path names no file
MAX_FILE_BYTES = 1 << 30  # a report with every chart is a few MiB


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
            if len(url.path) > MAX_PATH_CHARS or any(
                len(part.encode()) > 255 for part in url.path.split("/")
            ):  # checked before the path is resolved: no file of a results folder is longer
                self.refuse(HTTPStatus.REQUEST_URI_TOO_LONG, "the path is too long")
                return
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
            except (OSError, ValueError) as exc:  # a path the file system refuses
                self.refuse(
                    HTTPStatus.BAD_REQUEST, f"cannot serve that path ({exc.__class__.__name__})"
                )

        def send_file(self, path: Path) -> None:
            try:  # without blocking: a FIFO in the folder never holds the request
                fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK)
            except OSError:
                self.refuse(HTTPStatus.NOT_FOUND, "no such file")
                return
            with open(fd, "rb") as handle:
                info = os.fstat(fd)
                if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_FILE_BYTES:
                    self.refuse(HTTPStatus.NOT_FOUND, "not a file dbstor serves")
                    return
                body = handle.read(MAX_FILE_BYTES)
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

"""A Kubernetes API on 127.0.0.1 that answers from stored exchanges, for `dbstor kube run`
through the real `kubernetes` client (its HTTP, its (de)serialisation), and a recording
proxy in front of a real kube-apiserver that writes such exchanges.

An exchange is {"method", "path", "status", "body"} and optionally "query" (a part of the
query string it answers, such as a label selector); a request takes the first unused
exchange that fits, and once they are used up the last one again (a Job polled until it
ends sees its last state).
"""

from __future__ import annotations

import json
import threading
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "kube"


def load_exchanges(name: str) -> dict[str, Any]:
    return json.loads((FIXTURES / f"{name}.json").read_text())


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def log_message(self, *args: object) -> None:
        pass

    def _answer(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        path = self.path.split("?", 1)[0]
        status, payload = self.server.respond(self.command, path, self.path, body)
        data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
        self.send_response(status)
        kind = "text/plain" if path.endswith("/log") else "application/json"
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = _answer


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, exchanges: list[dict[str, Any]], upstream: str | None):
        super().__init__(("127.0.0.1", 0), _Handler)
        self.exchanges = exchanges
        self.used: set[int] = set()
        self.requests: list[dict[str, Any]] = []
        self.upstream = upstream
        self.lock = threading.Lock()

    def respond(self, method: str, path: str, full: str, body: bytes) -> tuple[int, Any]:
        with self.lock:
            sent = json.loads(body) if body and body[:1] == b"{" else None
            self.requests.append({"method": method, "path": path, "url": full, "body": sent})
            if self.upstream is not None:
                return self.forward(method, path, full, body)
            matching = [
                i
                for i, e in enumerate(self.exchanges)
                if e["method"] == method
                and e["path"] == path
                and e.get("query", "") in full.replace("%3D", "=")
            ]
            if not matching:
                return 404, {"kind": "Status", "code": 404, "message": f"no exchange {path}"}
            unused = [i for i in matching if i not in self.used]
            index = unused[0] if unused else matching[-1]
            self.used.add(index)
            found = self.exchanges[index]
            body_out = found["body"]
            return found["status"], body_out.encode() if isinstance(body_out, str) else body_out

    def forward(self, method: str, path: str, full: str, body: bytes) -> tuple[int, Any]:
        request = urllib.request.Request(
            f"{self.upstream}{full}",
            data=body or None,
            method=method,
            headers={"Content-Type": "application/json", "Accept": "application/json"},
        )
        try:
            with urllib.request.urlopen(request, timeout=30) as answer:
                status, raw = answer.status, answer.read()
        except urllib.error.HTTPError as exc:
            status, raw = exc.code, exc.read()
        text = raw.decode()
        try:
            parsed: Any = json.loads(text)
        except json.JSONDecodeError:
            parsed = text
        self.exchanges.append({"method": method, "path": path, "status": status, "body": parsed})
        return status, raw


@contextmanager
def api_server(exchanges: list[dict[str, Any]], upstream: str | None = None) -> Iterator[_Server]:
    """Serve the exchanges (or forward to upstream, recording) on 127.0.0.1."""
    server = _Server(exchanges, upstream)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


def kubeconfig(folder: Path, server: _Server) -> Path:
    """A kubeconfig naming the server (plain HTTP on 127.0.0.1, no credentials)."""
    host, port = server.server_address[:2]
    path = folder / "kubeconfig"
    path.write_text(
        json.dumps(
            {
                "apiVersion": "v1",
                "kind": "Config",
                "clusters": [{"name": "local", "cluster": {"server": f"http://{host}:{port}"}}],
                "users": [{"name": "tester", "user": {}}],
                "contexts": [{"name": "local", "context": {"cluster": "local", "user": "tester"}}],
                "current-context": "local",
            }
        )
    )
    return path

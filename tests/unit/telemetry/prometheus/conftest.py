"""Fixtures: a local HTTP server on 127.0.0.1 answering Prometheus API paths from canned JSON.

For unit tests of the client and the source on exporters that cannot run here: the
answers are the fixture files in tests/fixtures/prometheus (see their "about").

  fake_prometheus(answer or fixture dict) -> (url, requests seen)   a context manager
  recorded(name) -> dict                             one fixture file
"""

from __future__ import annotations

import contextlib
import json
import threading
import urllib.parse
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

FIXTURES = Path(__file__).parents[3] / "fixtures" / "prometheus"

Answer = Callable[[str, dict[str, str], dict[str, str]], tuple[int, Any]]


@contextlib.contextmanager
def serve(answer: Answer) -> Iterator[tuple[str, list[dict[str, str]]]]:
    """Serve answer(path, params, headers) -> (status, JSON body); yields (url, requests)."""
    seen: list[dict[str, str]] = []

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            parts = urllib.parse.urlsplit(self.path)
            params = dict(urllib.parse.parse_qsl(parts.query))
            headers = {k.lower(): v for k, v in self.headers.items()}
            seen.append({"path": parts.path, **params, **{f"h:{k}": v for k, v in headers.items()}})
            status, body = answer(parts.path, params, headers)
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}", seen
    finally:
        server.shutdown()
        server.server_close()


def fixture_answer(fixture: dict[str, Any]) -> Answer:
    """Answers from one fixture file: query_range by query text, range-vector instant
    queries with the same samples, metadata from its "metadata"."""

    def answer(path: str, params: dict[str, str], headers: dict[str, str]) -> tuple[int, Any]:
        if path == "/api/v1/query_range":
            body = fixture["query_range"].get(params["query"])
            if body is None:
                return 200, {"status": "success", "data": {"resultType": "matrix", "result": []}}
            return 200, body
        if path == "/api/v1/query":
            expr = params["query"].rsplit("[", 1)[0]
            body = fixture["query_range"].get(expr)
            result = body["data"]["result"] if body else []
            return 200, {"status": "success", "data": {"resultType": "matrix", "result": result}}
        if path == "/api/v1/metadata":
            name = params.get("metric", "")
            return 200, {"status": "success", "data": {name: fixture["metadata"].get(name, [])}}
        return 404, {"status": "error", "error": f"no {path}"}

    return answer


@pytest.fixture
def fake_prometheus() -> Callable[[Answer | dict[str, Any]], Any]:
    """serve() for an answer function, or for a fixture file's dict (fixture_answer)."""
    return lambda answer: serve(fixture_answer(answer) if isinstance(answer, dict) else answer)


@pytest.fixture
def recorded() -> Callable[[str], dict[str, Any]]:
    return lambda name: json.loads((FIXTURES / f"{name}.json").read_text())

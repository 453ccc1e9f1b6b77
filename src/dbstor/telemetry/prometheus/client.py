"""A small client for Prometheus's HTTP API (query, query_range, metadata) on urllib.

Credentials come from the environment only: DBSTOR_PROMETHEUS_TOKEN (a bearer token) or
DBSTOR_PROMETHEUS_USER and DBSTOR_PROMETHEUS_PASSWORD (basic auth). A URL carrying
credentials is refused, so the URL can be shown and stored as it is. No message this
module raises, and no repr, ever contains a credential: errors are PrometheusError with one
line naming the server and what went wrong.
"""

from __future__ import annotations

import base64
import json
import os
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Mapping
from typing import Any

from dbstor.errors import UserError

TOKEN_ENV = "DBSTOR_PROMETHEUS_TOKEN"
USER_ENV = "DBSTOR_PROMETHEUS_USER"
PASSWORD_ENV = "DBSTOR_PROMETHEUS_PASSWORD"


class PrometheusError(Exception):
    """Prometheus did not answer, or answered with an error: one line, no credentials.
    `code` is the HTTP status when it answered one (400: the query is wrong)."""

    def __init__(self, message: str, code: int | None = None) -> None:
        super().__init__(message)
        self.code = code


class PrometheusClient:
    """Queries one Prometheus server at `url` (http or https, no credentials in it)."""

    def __init__(
        self, url: str, *, env: Mapping[str, str] | None = None, timeout: float = 10.0
    ) -> None:
        parts = urllib.parse.urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise UserError(
                f"--prometheus {url!r} is not an http(s) URL; give e.g. http://prom:9090"
            )
        if parts.username is not None or parts.password is not None:
            raise UserError(
                "--prometheus URL carries credentials; give the URL without them and set "
                f"{TOKEN_ENV}, or {USER_ENV} and {PASSWORD_ENV}, in the environment"
            )
        self.url = url.rstrip("/")
        self.timeout = timeout
        env = os.environ if env is None else env
        self._secrets: tuple[str, ...] = ()
        self._authorization: str | None = None
        token = env.get(TOKEN_ENV)
        user, password = env.get(USER_ENV), env.get(PASSWORD_ENV)
        if token:
            self._authorization = f"Bearer {token}"
            self._secrets = (token,)
        elif user is not None or password is not None:
            if not user or password is None:
                raise UserError(f"set both {USER_ENV} and {PASSWORD_ENV} for basic auth")
            pair = base64.b64encode(f"{user}:{password}".encode()).decode("ascii")
            self._authorization = f"Basic {pair}"
            self._secrets = tuple(s for s in (password, pair) if s)

    def __repr__(self) -> str:
        auth = "with credentials" if self._authorization else "without credentials"
        return f"PrometheusClient({self.url!r}, {auth})"

    @property
    def authenticated(self) -> bool:
        return self._authorization is not None

    # --- the API -------------------------------------------------------------------

    def query(self, expr: str, at: float | None = None) -> dict[str, Any]:
        """An instant query: {"resultType": ..., "result": [...]}."""
        params = {"query": expr}
        if at is not None:
            params["time"] = _fmt(at)
        return self._get("/api/v1/query", params)

    def query_range(self, expr: str, start: float, end: float, step: float) -> list[dict[str, Any]]:
        """A range query: a list of {"metric": {labels}, "values": [[t, "v"], ...]}."""
        params = {"query": expr, "start": _fmt(start), "end": _fmt(end), "step": _fmt(step)}
        data = self._get("/api/v1/query_range", params)
        return list(data.get("result") or [])

    def metadata(self, metric: str) -> list[dict[str, Any]]:
        """What the targets say of `metric` (type, help, unit); [] when none say anything."""
        data = self._get("/api/v1/metadata", {"metric": metric})
        return list(data.get(metric, [])) if isinstance(data, dict) else []

    # --- plumbing ------------------------------------------------------------------

    def _get(self, path: str, params: Mapping[str, str]) -> Any:
        request = urllib.request.Request(f"{self.url}{path}?{urllib.parse.urlencode(params)}")
        if self._authorization:
            request.add_header("Authorization", self._authorization)
        what = f"Prometheus at {self.url}"
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                body = response.read()
        except urllib.error.HTTPError as exc:
            detail = _error_text(exc.read()) or exc.reason
            message = self._clean(f"{what} answered {exc.code}: {detail}")
            raise PrometheusError(message, exc.code) from None
        except (urllib.error.URLError, OSError) as exc:
            reason = getattr(exc, "reason", exc)
            raise PrometheusError(
                self._clean(f"{what} did not answer within {self.timeout:g} s: {reason}")
            ) from None
        try:
            payload = json.loads(body)
        except ValueError:
            raise PrometheusError(f"{what} answered something that is not JSON") from None
        if not isinstance(payload, dict) or payload.get("status") != "success":
            detail = payload.get("error") if isinstance(payload, dict) else None
            raise PrometheusError(self._clean(f"{what} answered an error: {detail}"))
        return payload.get("data")

    def _clean(self, message: str) -> str:
        """The message with any credential masked (servers can echo what they were sent)."""
        for secret in self._secrets:
            message = message.replace(secret, "***")
        return " ".join(message.split())


def _fmt(value: float) -> str:
    return f"{value:.3f}"


def _error_text(body: bytes) -> str | None:
    try:
        payload = json.loads(body)
    except ValueError:
        return None
    return payload.get("error") if isinstance(payload, dict) else None

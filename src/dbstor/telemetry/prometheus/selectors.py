"""Label selections ('volume="sqldata",svm=~"sv.*"') parsed, checked and merged into PromQL selectors."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from dbstor.errors import UserError

_MATCHER = re.compile(r'\s*([A-Za-z_][A-Za-z0-9_]*)\s*(=~|!~|!=|=)\s*"((?:[^"\\]|\\.)*)"\s*')
_METRIC = re.compile(r"[A-Za-z_:][A-Za-z0-9_:]*")


@dataclass(frozen=True)
class Matcher:
    """One label matcher: `label op "value"` with op one of = != =~ !~."""

    label: str
    op: str
    value: str  # as written between the quotes (escapes kept)

    def __str__(self) -> str:
        return f'{self.label}{self.op}"{self.value}"'


def parse_matchers(text: str, what: str = "selection") -> tuple[Matcher, ...]:
    """'a="x",b=~"y.*"' -> matchers; UserError naming `what` when it does not parse."""
    text = text.strip()
    if text.startswith("{") and text.endswith("}"):
        text = text[1:-1]
    out: list[Matcher] = []
    pos = 0
    while pos < len(text):
        m = _MATCHER.match(text, pos)
        if m is None:
            raise UserError(
                f"{what} {text!r} does not parse at {text[pos:]!r}; "
                'write label matchers like volume="sqldata",svm=~"sv.*"'
            )
        out.append(Matcher(m.group(1), m.group(2), m.group(3)))
        pos = m.end()
        if pos < len(text):
            if text[pos] != ",":
                raise UserError(f"{what} {text!r}: separate matchers with commas")
            pos += 1
    return tuple(out)


def selector(metric: str, *groups: Iterable[Matcher], drop: Iterable[str] = ()) -> str:
    """metric{matchers...}: the groups' matchers in order, without labels named in `drop`."""
    if not _METRIC.fullmatch(metric):
        raise ValueError(f"not a metric name: {metric!r}")
    dropped = set(drop)
    seen: list[str] = []
    for group in groups:
        for matcher in group:
            text = str(matcher)
            if matcher.label not in dropped and text not in seen:
                seen.append(text)
    return f"{metric}{{{','.join(seen)}}}" if seen else metric


def is_metric_name(name: str) -> bool:
    return bool(_METRIC.fullmatch(name))


_PLAIN = re.compile(r"\s*([A-Za-z_:][A-Za-z0-9_:]*)\s*(\{.*\})?\s*", re.DOTALL)


def plain_selector(expr: str) -> str | None:
    """The metric name when `expr` is a plain selector (`name` or `name{matchers}`): its
    raw samples can then be read with `expr[range]`, and its name tells its unit."""
    m = _PLAIN.fullmatch(expr)
    if m is None:
        return None
    if m.group(2):
        try:
            parse_matchers(m.group(2))
        except UserError:
            return None
    return m.group(1)

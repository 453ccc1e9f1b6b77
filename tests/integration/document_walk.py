"""Walk a rendered report as a reader would, by its sections (html.parser, not string
cuts): the issue-21 rules every run kind must keep. Used by the unit tests on the golden
folders (golden_runs) and by the integration tests on fresh runs of each kind.

document_problems(html) -> a list of what breaks the rules ('' free when none):
- top-level sections in the seeds' order, each once, none empty;
- outside the appendix: no machine path (/tmp, /var, /work, /home, /root, /sys/fs/cgroup),
  no cgroup, pid or port, no Python repr ({' ': None True False [] nan inf), no
  1.004e+04 (tooltips included), no latency of '0 ms';
- every summary finding has a number and a link to an id that exists;
- with the runs it was rendered from, the claim checks of document_claims.py: no knee
  beaten by a measured point within the same limit, no sentence with a dash or an empty
  value, no figure stated from a point the document refuses (and any further checks).
"""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path

from document_claims import CLAIM_CHECKS, Check

from dbstor.report.document.frame import SECTION_IDS
from dbstor.results.model import Run
from dbstor.results.store import load_run

GOLDEN = Path(__file__).resolve().parents[1] / "golden"

_BLOCKS = frozenset({"p", "li", "ul", "ol", "figcaption", "div", "h1", "h2", "h3", "h4", "section"})
_NOT_PROSE = frozenset({"table", "svg", "style", "title", "script", "pre", "code"})
_VOID = frozenset({"br", "img", "meta", "hr", "input", "link", "wbr", "col", "area", "source"})
_INTERNALS = (
    (re.compile(r"(?<![\w.])/(?:tmp|var|work|home|root)/"), "a machine path"),
    (re.compile(r"/sys/fs/cgroup|\bcgroup\b", re.I), "a cgroup"),
    (re.compile(r"\b(?:pid|PID|port)\b\s*[:=]?\s*\d"), "a process id or port"),
    (re.compile(r"\{'|\[\]|\bNone\b|\bTrue\b|\bFalse\b|'\w+': "), "a Python repr"),
    (re.compile(r"(?<![\w-])(?:nan|inf|NaN)(?![\w-])"), "nan or inf"),
    (re.compile(r"\d\.\d+e[+-]\d\d"), "a number in e-notation"),
    (re.compile(r"(?<![\d.,])0(?:\.0+)? ms\b"), "a latency of 0 ms"),
)


def golden_runs() -> list[list[Run]]:
    """The stored run kinds, each as the runs of one report."""
    study = GOLDEN / "default-study"
    ids = json.loads((study / "study.json").read_text())["runs"]
    singles = ["fc-io-oltp", "iscsi-io-oltp", "sqlite-brokerage", "postgres-instances"]
    cluster = GOLDEN.parent / "fixtures" / "cluster"
    return [
        [load_run(study / i) for i in ids],
        *([load_run(GOLDEN / n)] for n in singles),
        [load_run(GOLDEN / "tmpfs-interrupted")],
        [load_run(cluster / "io"), load_run(cluster / "database")],
    ]


class _Sections(HTMLParser):
    """Each top-level <section id=...>: its text (with tooltips' <title>) and its <li>s."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[str] = []
        self.order: list[str] = []
        self.text: dict[str, list[str]] = {}
        self.findings: list[tuple[str, list[str]]] = []
        self.ids: set[str] = set()
        self.current: str | None = None
        self.depth = 0
        self.item: tuple[list[str], list[str], int] | None = None
        self.prose: list[tuple[str, str]] = []  # (section, text of one block outside tables)
        self.buffer: list[str] = []
        self.hidden = 0  # depth inside tables, charts and code

    def _flush(self) -> None:
        text = " ".join("".join(self.buffer).split())
        if text and self.current:
            self.prose.append((self.current, text))
        self.buffer = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if tag in _BLOCKS:
            self._flush()
        if tag in _NOT_PROSE:
            self.hidden += 1
        if found.get("id"):
            self.ids.add(str(found["id"]))
        if tag in _VOID:
            return
        self.stack.append(tag)
        if tag == "section" and self.current is None and found.get("id"):
            self.current, self.depth = str(found["id"]), len(self.stack)
            self.order.append(self.current)
            self.text[self.current] = []
        if self.current == "summary" and tag == "li":
            self.item = ([], [], len(self.stack))
        if self.item and tag == "a":
            self.item[1].append(str(found.get("href") or ""))

    def handle_endtag(self, tag: str) -> None:
        if tag in _VOID:
            return
        if tag in _BLOCKS:
            self._flush()
        if tag in _NOT_PROSE and self.hidden:
            self.hidden -= 1
        while self.stack:
            top = self.stack.pop()
            if self.item and len(self.stack) < self.item[2]:
                self.findings.append(("".join(self.item[0]), self.item[1]))
                self.item = None
            if self.current and len(self.stack) < self.depth:
                self.current = None
            if top == tag:
                break

    def handle_data(self, data: str) -> None:
        if self.current and not self.hidden:
            self.buffer.append(data)
        if self.current:
            self.text[self.current].append(data)
            if self.item:
                self.item[0].append(data)


def section_texts(html: str) -> tuple[list[str], dict[str, str]]:
    """The top-level sections' ids in order and each one's text."""
    parser = _Sections()
    parser.feed(html)
    return parser.order, {k: " ".join(v) for k, v in parser.text.items()}


def document_problems(
    html: str, runs: list[Run] | None = None, checks: tuple[Check, ...] = ()
) -> list[str]:
    """What in a rendered report breaks the document's rules; empty when nothing does.
    With the runs it was rendered from, the claim checks too (and `checks`, each
    (html, prose, runs) -> problems)."""
    parser = _Sections()
    parser.feed(html)
    order = [re.sub(r"^comparison-\d+$", "comparison", sid) for sid in parser.order]
    compared = [sid for sid in order if sid == "comparison"]
    problems = []
    unique = list(dict.fromkeys(order))
    if unique != [i for i in SECTION_IDS if i in unique]:
        problems.append(f"sections out of the seeds' order or unknown: {order}")
    if len(order) - len(compared) + min(1, len(compared)) != len(unique):
        problems.append(f"a section twice: {order}")
    if not order or order[0] != "summary" or order[-1] != "appendix":
        problems.append(f"does not open with the summary and end with the appendix: {order}")
    for sid in parser.order:
        text = re.sub(r"\s+", " ", " ".join(parser.text[sid])).strip()
        if len(text) < 40:
            problems.append(f"{sid}: (almost) empty: {text!r}")
        if sid == "appendix":
            continue
        for pattern, what in _INTERNALS:
            for match in pattern.finditer(text):
                around = text[max(0, match.start() - 50) : match.end() + 30]
                problems.append(f"{sid}: {what} outside the appendix: ...{around}...")
    for text, links in parser.findings:
        targets = [h[1:] for h in links if h.startswith("#")]
        if not re.search(r"\d", text):
            problems.append(f"summary: a finding without a number: {text[:120]}")
        if not targets or not set(targets) <= parser.ids:
            problems.append(f"summary: a finding without a link to its table: {text[:120]}")
    prose = [(sid, text) for sid, text in parser.prose if sid != "appendix"]
    for check in (*CLAIM_CHECKS, *checks) if runs is not None else checks:
        problems += check(html, prose, runs or [])
    return problems

"""The document walker's claim checks (document_walk.document_problems calls them): what a
reader would catch by setting the document's sentences against its own runs.

- a headline figure (a knee) beaten by a measured point within the same limit;
- a sentence with a dash or an empty value where a figure should be;
- a figure stated from a point the same document refuses ('could not be stated (QD8
  flagged not steady)' and, elsewhere, 'sustains 54,770 IOPS', a ringed knee, or a
  comparison's row at that knee with no word of its flags);
- a device named for a role that is not the device its files are on (document_roles.py);
- a re-render that differs from the study's own document (rerender_problems).

A check is a callable (html, prose, runs) -> problems; more can be passed to
document_problems (document_roles.host_role_problems: the host itself as a witness).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from html import unescape

from document_roles import role_device_problems

from dbstor.analysis.curve import curve_points, slo_value
from dbstor.analysis.layers import device_points
from dbstor.report.kit.figures import run_names
from dbstor.results.model import Run

Check = Callable[[str, list[tuple[str, str]], Sequence[Run]], list[str]]

_NUMBER = r"(\d[\d,]*(?:\.\d+)?[KM]?)"
_DASH_VALUE = re.compile(r"(?:^|[\s(])[–—-](?=[\s.,;:)]|$)")
_EMPTY_VALUE = re.compile(
    r"\b(?:of|is|was|were|at|to|by|from|with|than)\s*[.,;:)](?!\d)|\(\s*\)|:\s*[.,;]"
)
_REFUSED = re.compile(
    r"(?:(?P<name>[^.:;]+?): (?:the knee could not be stated|no peak is stated|"
    r"no size can be drawn from its knee)|(?P<card>Knee|Peak): not stated) \((?P<why>[^)]*)\)"
)


def number(text: str) -> float:
    """'84,943' -> 84943; '1.2K' -> 1200; '3.4M' -> 3400000."""
    scale = {"K": 1e3, "M": 1e6}.get(text[-1], 1.0)
    return float(text.rstrip("KM").replace(",", "")) * scale


def sentences(prose: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """(section, sentence) for every sentence of the document's prose (not its tables)."""
    out = []
    for sid, text in prose:
        for sentence in re.split(r"(?<=[.!?])\s+(?=[A-Z])", re.sub(r"\s+", " ", text).strip()):
            if sentence:
                out.append((sid, sentence))
    return out


def dash_problems(html: str, prose: list[tuple[str, str]], runs: Sequence[Run]) -> list[str]:
    """A sentence with a dash or nothing where its figure should be ('with a p99
    transaction latency of –.')."""
    problems = []
    for sid, sentence in sentences(prose):
        if _DASH_VALUE.search(sentence) or _EMPTY_VALUE.search(sentence):
            problems.append(f"{sid}: a sentence with a dash or an empty value: {sentence[:160]}")
    return problems


def _within(run: Run) -> tuple[float | None, float | None]:
    """The highest TPS and IOPS measured at a point within the run's SLO (None: none)."""
    slo = run.slo or {}
    if not slo.get("limit_ms") or not slo.get("metric"):
        return None, None
    points, _ = device_points(run.points)
    inside = [
        p
        for p in curve_points(points)
        if (v := slo_value(p, str(slo["metric"]))) is not None and v <= float(slo["limit_ms"])
    ]
    tps = [p.tps for p in inside if p.tps is not None]
    iops = [p.iops for p in inside if p.iops is not None]
    return (max(tps) if tps else None), (max(iops) if iops else None)


def _stated_knees(html: str, name: str, single: bool) -> list[tuple[str, float]]:
    """The knee figures the document states for one run: its summary sentence, its card,
    its ring on a chart."""
    text = unescape(re.sub(r"<[^>]+>", " ", html))
    text = re.sub(r"\s+", " ", text)
    found = []
    for match in re.finditer(re.escape(name) + rf" sustains {_NUMBER} (IOPS|TPS)", text):
        found.append((match.group(2), number(match.group(1))))
    for card in re.findall(r'<div class="card">(.*?)</div>', html, re.S):
        heading = re.search(r"<h3>(?:<a [^>]*>)?([^<]*)", card)
        if heading is None or unescape(heading.group(1)).strip() != name:
            continue
        words = unescape(re.sub(r"<[^>]+>", " ", card))
        knee = re.search(rf"Knee: (?:{_NUMBER} TPS, )?{_NUMBER} (?:device )?IOPS", words)
        if knee and knee.group(1):
            found.append(("TPS", number(knee.group(1))))
        if knee:
            found.append(("IOPS", number(knee.group(2))))
    prefix = "knee" if single else f"{re.escape(name)} knee"
    for match in re.finditer(rf"<text[^>]*>{prefix} {_NUMBER} IOPS</text>", html):
        found.append(("IOPS", number(match.group(1))))
    return found


def headline_problems(html: str, prose: list[tuple[str, str]], runs: Sequence[Run]) -> list[str]:
    """A knee stated below a measured point within the same limit: the highest throughput
    within the SLO is the figure a storage engineer quotes."""
    problems = []
    names = run_names(runs)
    for run, name in zip(runs, names, strict=True):
        best_tps, best_iops = _within(run)
        uses_tps = any(p.tps is not None for p in run.points)
        for unit, figure in _stated_knees(html, name, len(runs) == 1):
            best = best_tps if unit == "TPS" else best_iops
            if unit == "IOPS" and uses_tps:
                continue  # a database's knee is its transactions; its IOPS are the device's
            if best is not None and figure < best * 0.995:
                problems.append(
                    f"{name}: a knee of {figure:,.0f} {unit} is stated while a point within "
                    f"the same limit measured {best:,.0f} {unit}"
                )
    return problems


def refused_problems(html: str, prose: list[tuple[str, str]], runs: Sequence[Run]) -> list[str]:
    """A figure the document refuses in one place and states in another."""
    text = re.sub(r"\s+", " ", " ".join(t for _, t in prose))
    problems = []
    names = run_names(runs)
    refusals = [m for _, unit in prose for m in _REFUSED.finditer(re.sub(r"\s+", " ", unit))]
    for match in refusals:
        refusal = match.group(0)
        said = (match.group("name") or "").strip()
        name = next((n for n in sorted(names, key=len, reverse=True) if said.endswith(n)), said)
        if "knee" in refusal or match.group("card") == "Knee":
            for said in (f"{name} sustains", f"{name} stayed within the SLO"):
                if name in names and said in text:
                    problems.append(f"{name}: its knee is refused ({refusal}) and stated: {said}")
        if "peak" in refusal and name in names and f"{name} peaked at" in text:
            problems.append(f"{name}: its peak is refused ({refusal}) and stated")
        for point in re.findall(r"([^,;]+?) flagged (?:mostly other processes' I/O|shared device)",
                                match.group("why")):  # fmt: skip
            for at in (p.strip() for p in point.split(",")):
                if re.search(rf"\bAt {re.escape(at)} the database drove", text, re.I):
                    problems.append(f"the database's IOPS are stated at {at}, which is refused")
    for ring in re.findall(r"<text[^>]*>(?:[^<]* )?knee not stated[^<]*</text>", html):
        problems.append(f"a chart rings a knee the document does not state: {unescape(ring)}")
    return problems


def _refused_runs(prose: list[tuple[str, str]], runs: Sequence[Run]) -> dict[str, str]:
    """Run name -> 'knee' or 'peak' for each figure the document's prose refuses."""
    names = sorted(run_names(runs), key=len, reverse=True)
    out = {}
    for _, text in prose:
        for match in _REFUSED.finditer(re.sub(r"\s+", " ", text)):
            said = (match.group("name") or "").strip()
            name = next((n for n in names if said.endswith(n)), None)
            if name is not None:
                out[name] = "peak" if "peak" in match.group(0) else "knee"
    return out


def compared_refused_problems(
    html: str, prose: list[tuple[str, str]], runs: Sequence[Run]
) -> list[str]:
    """A comparison row standing, without a word, on a knee or peak the document refuses
    ('A io-oltp: the knee could not be stated (QD1 flagged not steady)' and, in the
    comparison's table, 'A | io-oltp | knee | 25,540')."""
    refused = _refused_runs(prose, runs)
    by_name = dict(zip(run_names(runs), runs, strict=True))
    problems = []
    for table in re.findall(r"<table>(.*?)</table>", html, re.S):
        head = [
            unescape(h) for h in re.findall(r"<th[^>]*>([^<]*)</th>", table.split("</thead>")[0])
        ]
        if head[:3] != ["run", "workload", "at"]:
            continue
        for label, workload, basis in re.findall(
            r"<tr><th>([^<]*)</th><td>([^<]*)</td><td>([^<]*)</td>", table
        ):
            label, workload, basis = unescape(label), unescape(workload), unescape(basis)
            for name, what in refused.items():
                run = by_name[name]
                same = (run.target or {}).get("label") == label or name == label
                if not same or str((run.workload or {}).get("name")) != workload:
                    continue
                if basis.split(" (")[0] in (what, "highest load", "peak") and "(" not in basis:
                    problems.append(
                        f"{name}: its {what} is refused and a comparison stands on it "
                        f"without a word: {label} | {workload} | {basis}"
                    )
    return problems


CLAIM_CHECKS: tuple[Check, ...] = (
    dash_problems,
    headline_problems,
    refused_problems,
    compared_refused_problems,
    role_device_problems,
)


def rerender_problems(study_html: str, rerendered_html: str) -> list[str]:
    """A re-render (dbstor report DIR) that differs from the study's own document (its
    'report generated' time aside)."""
    stamp = re.compile(r"report generated [^<]*? by dbstor")
    study_html, rerendered_html = (stamp.sub("", h) for h in (study_html, rerendered_html))
    if study_html == rerendered_html:
        return []
    a, b = study_html.splitlines(), rerendered_html.splitlines()
    first = next(
        (i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b))
    )
    return [f"the re-render differs from the study's document from line {first + 1}"]

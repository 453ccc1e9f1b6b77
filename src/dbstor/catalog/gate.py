"""`dbstor check`: a run against its baseline, metric by metric, for a pipeline. A metric
regresses when it moved the wrong way by more than the allowed bound AND by more than the
runs' own measured spread (their repeats): noise alone never fails a build."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any
from xml.etree import ElementTree

# name -> (index row field, higher is better)
METRICS = {
    "knee": ("knee", True),
    "peak": ("peak", True),
    "latency_at_load": ("latency_at_load", False),
}
ALIASES = {
    "knee_iops": "knee",
    "knee_tps": "knee",
    "peak_iops": "peak",
    "peak_tps": "peak",
    "p99_at_load": "latency_at_load",
}
DEFAULT_METRICS = ("knee", "peak", "latency_at_load")


@dataclass
class Verdict:
    metric: str
    baseline: float | None
    value: float | None
    change_pct: float | None
    allowed_pct: float  # the larger of the bound and the runs' spread
    status: str  # ok | regression | improved | missing | not measured in the baseline
    why: str


def figure(value: float) -> str:
    return f"{value:,.0f}" if abs(value) >= 100 else f"{value:.4g}"


def metric_name(text: str) -> str:
    name = ALIASES.get(text, text)
    if name not in METRICS:
        known = ", ".join([*METRICS, *ALIASES])
        raise ValueError(f"unknown metric {text!r}: choose from {known}")
    return name


def judge(run: dict[str, Any], base: dict[str, Any], metric: str, bound_pct: float) -> Verdict:
    field, higher_better = METRICS[metric]
    value, reference = run.get(field), base.get(field)
    spreads = [s for s in (run.get("spread_pct"), base.get("spread_pct")) if s is not None]
    allowed = max([bound_pct, *spreads])
    noise = (
        f"the runs' spread {max(spreads):.1f}%" if spreads else "spread not measured (repeats = 1)"
    )
    unit = "ms" if metric == "latency_at_load" else str(run.get("unit") or "")
    if reference is None:
        return Verdict(metric, None, value, None, allowed, "not measured in the baseline",
                       "the baseline has no such figure: nothing to hold the run to")  # fmt: skip
    if value is None:
        return Verdict(metric, reference, None, None, allowed, "missing",
                       f"the baseline has {figure(reference)} {unit}; this run has none")  # fmt: skip
    change = (value - reference) / abs(reference) * 100 if reference else 0.0
    worse = -change if higher_better else change
    if worse > allowed:
        status = "regression"
    elif -worse > allowed:
        status = "improved"
    else:
        status = "ok"
    why = (
        f"{figure(reference)} -> {figure(value)} {unit} ({change:+.1f}%); allowed {allowed:.1f}% "
        f"(bound {bound_pct:g}%, {noise})"
    )
    return Verdict(metric, reference, value, change, allowed, status, why)


def failed(verdicts: list[Verdict]) -> bool:
    return any(v.status in ("regression", "missing") for v in verdicts)


def as_json(run: dict[str, Any], base: dict[str, Any], verdicts: list[Verdict]) -> dict[str, Any]:
    return {
        "run": run["folder"],
        "baseline": base["folder"],
        "key": run["key"],
        "passed": not failed(verdicts),
        "metrics": [asdict(v) for v in verdicts],
    }


def junit_xml(run: dict[str, Any], base: dict[str, Any], verdicts: list[Verdict]) -> str:
    """A JUnit report CI systems show: one test case per metric."""
    suite = ElementTree.Element(
        "testsuite",
        name=f"dbstor check {run['folder']}",
        tests=str(len(verdicts)),
        failures=str(sum(v.status in ("regression", "missing") for v in verdicts)),
        skipped=str(sum(v.status.startswith("not measured") for v in verdicts)),
    )
    for v in verdicts:
        case = ElementTree.SubElement(
            suite, "testcase", classname=f"dbstor.{run['key']}", name=v.metric
        )
        if v.status in ("regression", "missing"):
            failure = ElementTree.SubElement(case, "failure", message=f"{v.metric}: {v.status}")
            failure.text = f"{v.why} (baseline {base['folder']})"
        elif v.status.startswith("not measured"):
            ElementTree.SubElement(case, "skipped", message=v.why)
        else:
            ElementTree.SubElement(case, "system-out").text = v.why
    return ElementTree.tostring(suite, encoding="unicode", xml_declaration=True) + "\n"

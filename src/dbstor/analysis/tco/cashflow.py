"""The consolidation cost case: servers needed, licences retired, yearly cash flows, ROI,
NPV and payback, in the manner of TR-4403 and TR-4415 (Realize: cash flows over 3 years).

Two scenarios over the same years: keep everything (old storage, N servers) or buy the
new storage and consolidate onto M servers. What they share (the M servers kept) cancels;
the rest is a benefit (a cost no longer paid) or a cost (the new storage, the migration).

- servers after  M = ceil(N x CPU after / ceiling), at least 1, at most N
- net_t          = benefits_t - costs_t, year 0 for purchases, years 1..Y at year end
- NPV            = sum over t = 0..Y of net_t / (1 + r)^t
- ROI            = (sum of benefits - sum of costs) / sum of costs, undiscounted
- payback        = months until the cumulative net reaches 0, each year's net spread
                   evenly over its 12 months; 0 when year 0 is not negative
"""

from __future__ import annotations

import math
from typing import Any

from dbstor.analysis.tco.fields import BY_NAME
from dbstor.analysis.tco.licences import get_model, licences_per_server
from dbstor.analysis.tco.model import TcoInputs


def npv(flows: list[float], rate: float) -> float:
    """Net present value of flows at years 0, 1, 2 ... (rate as a fraction, 0.08)."""
    return sum(f / (1.0 + rate) ** t for t, f in enumerate(flows))


def roi(benefits: float, costs: float) -> float | None:
    """(benefits - costs) / costs as a fraction; None when nothing is spent."""
    if costs <= 0:
        return None
    return (benefits - costs) / costs


def payback_months(flows: list[float]) -> float | None:
    """Months until the cumulative net cash flow reaches 0 (year 0 at once, later years
    spread evenly over their months); None if not within the years given."""
    cumulative = flows[0]
    if cumulative >= 0:
        return 0.0
    for year, flow in enumerate(flows[1:], start=1):
        if flow > 0 and cumulative + flow >= 0:
            return 12.0 * (year - 1) + 12.0 * (-cumulative) / flow
        cumulative += flow
    return None


def servers_needed(servers: int, cpu_after: float, ceiling: float) -> tuple[int, float]:
    """-> (whole servers after consolidation, the exact fraction) for the same hardware."""
    exact = servers * cpu_after / ceiling
    return max(1, math.ceil(round(exact, 9))), exact


SENSITIVITY_CEILINGS = (60.0, 70.0, 80.0, 90.0, 100.0)


def after_by_ceiling(servers: int, cpu_after: float, ceiling: float) -> dict[str, int]:
    """Servers after consolidation at the usual ceilings and the one given: '80%' -> 5.
    TR-4403's 10 -> 5 is the 80% entry at 40% CPU after (each server then runs two of the
    old servers' loads, 2 x 40%)."""
    ceilings = sorted({*SENSITIVITY_CEILINGS, ceiling})
    return {f"{c:g}%": min(servers, servers_needed(servers, cpu_after, c)[0]) for c in ceilings}


def compute(inp: TcoInputs, cpu_note: str | None = None) -> dict[str, Any]:
    """The whole cost case as a JSON-ready dict."""
    n, years, rate = inp.servers, inp.years, inp.discount_rate / 100.0
    needed, exact = servers_needed(n, inp.cpu_after, inp.ceiling)
    after = min(n, needed)
    retired = n - after
    model = get_model(inp.licence)
    each = licences_per_server(inp.licence, inp.sockets, inp.cores, inp.core_factor)
    lic_retired = retired * each
    support_each = inp.licence_price * inp.support_rate / 100.0
    benefits = _benefits(inp, retired, lic_retired, model.unit, support_each)
    costs = _costs(inp)
    flows = _cash_flows(benefits, costs, years, rate)
    nets = [f["net"] for f in flows]
    total_b, total_c = sum(f["benefits"] for f in flows), sum(f["costs"] for f in flows)
    ratio = roi(total_b, total_c)
    needs = missing_inputs(inp)
    notes, examples = _case_notes(inp, needed, ratio, needs)
    return {
        "kind": "tco",
        "currency": inp.currency,
        "servers": {
            "before": n,
            "after": after,
            "needed_exact": round(exact, 3),
            "retired": retired,
            "sockets_each": inp.sockets,
            "cores_each": inp.cores,
            "cpu_before_pct": inp.cpu_before,
            "cpu_after_pct": inp.cpu_after,
            "ceiling_pct": inp.ceiling,
            "cpu_consolidated_pct": round(n * inp.cpu_after / after, 2),
            "after_by_ceiling": after_by_ceiling(n, inp.cpu_after, inp.ceiling),
            "headroom_factor": (
                round(inp.cpu_after / inp.cpu_before, 2) if inp.cpu_before else None
            ),
        },
        "licences": {
            "model": model.name,
            "unit": model.unit,
            "rule": model.rule,
            "per_server": each,
            "before": n * each,
            "after": after * each,
            "retired": lic_retired,
        },
        "licence_savings": licence_savings(lic_retired, inp.licence_price, support_each, years),
        "benefits": benefits,
        "costs": costs,
        "cash_flows": flows,
        "totals": {"benefits": total_b, "costs": total_c, "net": total_b - total_c},
        "roi_pct": None if ratio is None or needs else 100.0 * ratio,
        "npv": None if needs else npv(nets, rate),
        "payback_months": None if needs else payback_months(nets),
        "needs": needs,  # why ROI, NPV and payback are not computed (no storage price)
        "example_prices": examples,  # inputs filled with documented example values
        "years": years,
        "discount_rate_pct": inp.discount_rate,
        "notes": notes,
        "assumptions": assumptions(inp, cpu_note),
    }


def _benefits(
    inp: TcoInputs, retired: int, lic_retired: int, unit: str, support_each: float
) -> list[dict[str, Any]]:
    """What consolidating gains: licence support, retired servers, the old storage, and
    purchases or replacements avoided where the case counts them."""
    per_server_year = inp.server_support + inp.power + inp.space + inp.admin
    benefits = [
        _line(
            f"licence support for {lic_retired} retired {unit}s",
            0.0,
            lic_retired * support_each,
        ),
        _line(
            f"{retired} servers retired: maintenance, power, space, administration",
            0.0,
            retired * per_server_year,
        ),
        _line(
            "old storage support, power and space no longer paid",
            0.0,
            inp.legacy_support,
            _not_given(inp, "legacy_support"),
        ),
    ]
    if inp.licence_purchase:
        benefits.append(
            _line(
                f"purchase of {lic_retired} {unit}s avoided",
                lic_retired * inp.licence_price,
                0.0,
            )
        )
    if inp.server_refresh:
        benefits.append(
            _line(f"{retired} server replacements avoided", retired * inp.server_price, 0.0)
        )
    return benefits


def _costs(inp: TcoInputs) -> list[dict[str, Any]]:
    """What it costs: the new storage, the migration, the new storage's support."""
    costs = [
        _line("new storage purchase", inp.storage_price, 0.0, _not_given(inp, "storage_price")),
        _line(
            "migration and consolidation services",
            inp.migration,
            0.0,
            _not_given(inp, "migration"),
        ),
        _line(
            "new storage support, power and space",
            0.0,
            inp.storage_support,
            _not_given(inp, "storage_support"),
        ),
    ]
    return costs


def _cash_flows(
    benefits: list[dict[str, Any]], costs: list[dict[str, Any]], years: int, rate: float
) -> list[dict[str, Any]]:
    """Year 0 (purchases) and each year after (yearly lines), discounted and cumulated."""
    flows = []
    cumulative = 0.0
    for t in range(years + 1):
        b = sum(x["year0"] if t == 0 else x["yearly"] for x in benefits)
        c = sum(x["year0"] if t == 0 else x["yearly"] for x in costs)
        cumulative += b - c
        flows.append(
            {
                "year": t,
                "benefits": b,
                "costs": c,
                "net": b - c,
                "discounted": (b - c) / (1.0 + rate) ** t,
                "cumulative": cumulative,
            }
        )
    return flows


def _case_notes(
    inp: TcoInputs, needed: int, ratio: float | None, needs: str | None
) -> tuple[list[str], list[str]]:
    """The case's notes (no consolidation, no headroom freed, what is missing, example
    prices first) and the inputs filled with example prices."""
    n = inp.servers
    notes = []
    if needed > n:
        notes.append(
            f"at {inp.cpu_after:g}% CPU and a {inp.ceiling:g}% ceiling the workload "
            f"needs {needed} servers, more than the {n} of today: no consolidation"
        )
    if inp.cpu_before is not None and inp.cpu_after <= inp.cpu_before:
        notes.append(
            "CPU after the change is not above CPU before: the storage change freed "
            "no CPU headroom to consolidate"
        )
    if needs:
        notes.append(needs)
    elif ratio is None:
        notes.append(
            "nothing is spent (no storage price, migration or support given): ROI is not defined"
        )
    examples = sorted(k for k, v in inp.sources.items() if str(v).startswith("example"))
    if examples:
        notes.insert(
            0,
            "example prices, not quotes, for: "
            + ", ".join(examples)
            + " (--example-prices; replace them with your own)",
        )
    return notes, examples


def licence_savings(retired: int, price: float, support: float, years: int) -> dict[str, Any]:
    """What the retired licences save over the case's years, the purchase avoided beside
    the support no longer paid (TR-4403: "more than $1 million in SQL Server 2014 license
    costs over a three-year period"): the seeds' figure, whether or not the cash flow
    counts the purchase (licences already owned are sunk)."""
    avoided, support_total = retired * price, retired * support * years
    return {
        "years": years,
        "retired": retired,
        "purchase_avoided": avoided,
        "support": support_total,
        "total": avoided + support_total,
    }


def missing_inputs(inp: TcoInputs) -> str | None:
    """What the case needs before it has an ROI, NPV or payback: without the new storage's
    price there is nothing to pay back ('payback 0.0 months' would be a claim of nothing)."""
    if str(inp.sources.get("storage_price", "")).startswith("not given"):
        return (
            "no storage price: give --storage-price (storage_price in the TOML) for ROI, "
            "NPV and payback"
        )
    return None


def _line(item: str, year0: float, yearly: float, not_given: str | None = None) -> dict[str, Any]:
    """One line item; `not_given` names the input it needs when that input was not given
    (the line then counts as 0 in the flows, and shows as not given, never as 0)."""
    line: dict[str, Any] = {"item": item, "year0": year0, "yearly": yearly}
    if not_given:
        line["not_given"] = not_given
    return line


def _not_given(inp: TcoInputs, name: str) -> str | None:
    """The flag a price needs when it was not given (taken as 0), else None."""
    if str(inp.sources.get(name, "")).startswith("not given"):
        return BY_NAME[name].flag
    return None


def assumptions(inp: TcoInputs, cpu_note: str | None = None) -> list[str]:
    """Every input with its value and where it came from, one line each."""
    from dbstor.analysis.tco.model import FIELDS

    out = []
    for spec in FIELDS:
        value = inp.values.get(spec.name)
        if value is None or spec.kind == "path" or spec.name == "example_prices":
            continue
        shown = (
            f"{value:g}%"
            if spec.kind == "pct"
            else (
                f"{value:,.2f} {inp.currency}"
                if spec.kind == "money"
                else str(value).lower()
                if spec.kind == "bool"
                else str(value)
            )
        )
        source = inp.sources.get(spec.name, "")
        out.append(f"{spec.toml} = {shown}" + (f" ({source})" if source else ""))
    if cpu_note:
        out.append(f"CPU utilisation: {cpu_note}")
    out.extend(
        [
            "servers after consolidation are the same model as today; the workload's CPU demand "
            "is the measured CPU after the storage change (the old CPU was held back by I/O waits)",
            "licences already owned are sunk: retiring them saves their yearly support"
            + ("" if inp.licence_purchase else " only (no resale, no purchase avoided)"),
            "yearly flows fall at year end; purchases at year 0; payback spreads each year's net "
            "evenly over its months",
            "ROI = (benefits - costs) / costs over the whole period, undiscounted",
        ]
    )
    return out

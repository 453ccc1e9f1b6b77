"""The cost section: the servers and licences the measured CPU headroom would retire,
and the cost case (dbstor tco). Example prices are labelled as examples wherever they
appear; without a price for the new storage there is no ROI or payback line, and the
section says which input it needs."""

from __future__ import annotations

from html import escape
from typing import Any

from dbstor.analysis.tco.uncertainty import interval_words
from dbstor.report.document.analyses import missing
from dbstor.report.document.frame import pairs_table
from dbstor.report.kit.fmt import fmt_num, fmt_pct
from dbstor.report.tools.tco import cash_flow_svg

NEEDS_PRICE = (
    "ROI, NPV and payback need the price of the new storage: give storage_price in the "
    "study's [tco] table (or dbstor tco --storage-price)."
)


def storage_priced(result: dict[str, Any]) -> bool:
    """Whether the cost case was given a purchase price for the new storage (its own
    `needs` field when it has one, else a storage purchase above zero)."""
    if "needs" in result:
        return not result["needs"]
    return any(
        "storage purchase" in str(c.get("item")) and (c.get("year0") or 0) > 0
        for c in result.get("costs") or []
        if isinstance(c, dict)
    )


def example_prices(result: dict[str, Any]) -> list[str]:
    """The inputs filled with documented example prices, as the result states them."""
    lines = [str(a) for a in result.get("assumptions") or [] if "(example" in str(a)]
    named = result.get("example_prices")
    if not lines and isinstance(named, list):
        lines = [str(n) for n in named]
    return lines


def _money(value: Any, currency: str, example: bool) -> str:
    if not isinstance(value, int | float):
        return "–"
    return f"{currency} {value:,.0f}" + (" (example prices)" if example else "")


def _cpu_from(result: dict[str, Any]) -> str:
    """Where the CPU figures came from, as the cost case recorded it: ': host-wide CPU
    measured by the runs at the baseline's peak load (iodepth 4)' ('' when given as flags)."""
    lead = "CPU utilisation: "
    for line in result.get("assumptions") or []:
        if str(line).startswith(lead) and "measured by the runs" in str(line):
            return ": " + str(line).removeprefix(lead).split(": ", 1)[0]
    return ""


def _rows(result: dict[str, Any], example: bool) -> list[tuple[str, str]]:
    servers, lic = result.get("servers") or {}, result.get("licences") or {}
    rows = [
        (
            "servers",
            f"{servers.get('before')} → {servers.get('after')} ({servers.get('retired')} retired; "
            f"{fmt_num(servers.get('needed_exact'))} needed at a "
            f"{fmt_pct(servers.get('ceiling_pct'))} CPU ceiling)" + interval_words(servers),
        ),
        (
            "CPU",
            f"{fmt_pct(servers.get('cpu_before_pct'))} before, "
            f"{fmt_pct(servers.get('cpu_after_pct'))} after the storage change" + _cpu_from(result),
        ),
    ]
    if lic:
        rows.append(
            (
                "licences",
                f"{lic.get('before')} → {lic.get('after')} {lic.get('unit', 'licence')}s "
                f"({lic.get('retired')} retired: {lic.get('rule', '')})",
            )
        )
    currency = str(result.get("currency") or "")
    years = result.get("years")
    saved = result.get("licence_savings")
    if isinstance(saved, dict) and saved.get("retired"):
        counted = any(
            "purchase of" in str(b.get("item")) for b in result.get("benefits") or []
            if isinstance(b, dict)
        )  # fmt: skip
        rows.append(
            (
                f"licences saved over {saved.get('years')} years",
                f"{_money(saved.get('total'), currency, example)}: purchase of "
                f"{saved.get('retired')} {lic.get('unit', 'licence')}s avoided "
                f"{_money(saved.get('purchase_avoided'), currency, False)} + support "
                f"{_money(saved.get('support'), currency, False)}"
                + ("" if counted else " (the cash flow below counts the support only: "
                   "licences owned are sunk)"),
            )
        )  # fmt: skip
    yearly = sum(
        (b.get("yearly") or 0) for b in result.get("benefits") or [] if isinstance(b, dict)
    )
    rows.append(("savings each year", _money(yearly, currency, example)))
    if storage_priced(result):
        roi, payback = result.get("roi_pct"), result.get("payback_months")
        rate = result.get("discount_rate_pct")
        rows.append(("ROI", "not defined" if roi is None else f"{roi:.0f}% over {years} years"))
        rows.append(("NPV", f"{_money(result.get('npv'), currency, example)} at {fmt_num(rate)}%"))
        rows.append(
            ("payback", "not within the period" if payback is None else f"{payback:.1f} months")
        )
    return rows


def _headroom(entry: Any) -> str:
    """The new storage's peak over the baseline's knee, or why it is not stated."""
    if not isinstance(entry, dict):
        return ""
    text = entry.get("sentence") or f"not stated: {missing(entry)}."
    return f"<p><b>Headroom</b>: {escape(str(text))}</p>"


def _verified(entry: Any) -> str:
    """The consolidation re-run: its sentence and the three points side by side."""
    if not isinstance(entry, dict):
        return ""
    why = missing(entry)
    if why:
        return f"<h3>Consolidation verified</h3><p>Not run: {escape(why)}.</p>"
    head = (
        "<tr><th>point</th><th>target</th><th>load</th><th>TPS</th><th>CPU</th>"
        "<th>mean read latency</th></tr>"
    )
    body = ""
    for row in entry.get("points") or []:
        load = row.get("load") or {}
        shown = f"{load.get('kind', '')} {fmt_num(load.get('value'))}" if load else "not measured"
        body += (
            f"<tr><td>{escape(str(row.get('role')))}</td><td>{escape(str(row.get('label')))}</td>"
            f"<td>{escape(shown)}</td><td class=num>{escape(fmt_num(row.get('tps')))}"
            f"{' (flagged)' if row.get('flag') else ''}</td>"
            f"<td class=num>{escape(fmt_pct(row.get('cpu_pct')))}"
            f"{' (not compared)' if row.get('cpu_trust') else ''}</td>"
            f"<td class=num>{escape(fmt_num(row.get('read_lat_mean_ms')))} ms</td></tr>"
        )
    notes = "".join(f"<li>{escape(str(n))}</li>" for n in entry.get("notes") or [])
    whose = {str(r.get("cpu_whose")) for r in entry.get("points") or [] if r.get("cpu_whose")}
    return (
        f"<h3>Consolidation verified</h3><p>{escape(str(entry.get('sentence', '')))}</p>"
        f'<table class="pairs">{head}{body}</table>'
        f'<p class="meta">CPU of {escape(" and ".join(sorted(whose)))}; one host plays one '
        "database server, so the consolidated point runs the before load times "
        f"{escape(fmt_num((entry.get('servers') or {}).get('factor')))} on the new storage.</p>"
        + (f'<ul class="notes">{notes}</ul>' if notes else "")
    )


def cost_body(analyses: dict[str, Any]) -> str:
    """The consolidation and, when priced, the cost case; or what it lacks."""
    if "tco" not in analyses:
        return ""
    result = analyses["tco"]
    why = missing(result)
    verified = _headroom(analyses.get("headroom")) + _verified(analyses.get("consolidation"))
    if why:
        return f"<p>Not computed: {escape(why)}.</p>" + verified
    if not isinstance(result.get("servers"), dict):
        return "<p>Not shown: the cost case lacks its servers.</p>"
    examples = example_prices(result)
    parts = []
    if examples:
        items = "".join(f"<li>{escape(a)}</li>" for a in examples)
        parts.append(
            '<div class="callout warn"><b>Example prices</b>: the figures in money below use '
            "documented example prices, not quotes; replace them with your own.<ul>"
            f"{items}</ul></div>"
        )
    parts.append(pairs_table(_rows(result, bool(examples))))
    if storage_priced(result) and result.get("cash_flows"):
        label = " (example prices)" if examples else ""
        parts.append(
            f"<figure>{cash_flow_svg(result)}<figcaption>Net cash flow each year (bars) and the "
            f"cumulative net (line){label}.</figcaption></figure>"
        )
    else:
        parts.append(f'<p class="needs">{escape(NEEDS_PRICE)}</p>')
    said = tuple(x for x in (str(result.get("needs") or ""), "example prices") if x)
    notes = [
        str(n)
        for n in result.get("notes") or []
        if not str(n).startswith(said) and ("ROI" not in str(n) or storage_priced(result))
    ]
    if notes:
        parts.append(
            '<ul class="notes">' + "".join(f"<li>{escape(str(n))}</li>" for n in notes) + "</ul>"
        )
    return "".join(parts) + verified

"""The placement section: which tables and indexes belong on the fast tier (dbstor
advise on each run's measured objects), reusing the advise page's table and curve."""

from __future__ import annotations

import re
from html import escape
from typing import Any

from dbstor.report.document.analyses import missing, per_target
from dbstor.report.document.private import scrub
from dbstor.report.tools.placement import render_advise_section

_OPEN = re.compile(r'^<section class="dbstor-advise"><h2>[^<]*</h2>')


def placement_body(analyses: dict[str, Any]) -> str:
    """Each target's advice, or why there is none."""
    parts = []
    for label, entry in per_target(analyses, "placement").items():
        why = missing(entry)
        if why:
            parts.append(f"<h3>{escape(label)}</h3><p>Not measured: {escape(why)}.</p>")
            continue
        try:
            html = render_advise_section(entry)
        except (KeyError, TypeError, ValueError) as exc:
            parts.append(
                f"<h3>{escape(label)}</h3><p>Not shown: the advice lacks {escape(str(exc))}.</p>"
            )
            continue
        inner = _OPEN.sub("", html).removesuffix("</section>")
        parts.append(f'<div class="tool advise"><h3>{escape(label)}</h3>{scrub(inner)}</div>')
    return "".join(parts)

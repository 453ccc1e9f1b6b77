"""The method section says how long each point ran and why (held until steady or not)."""

from __future__ import annotations

import copy
import re
from html import unescape

from dbstor.report.document.method import method_body
from dbstor.results.model import Run


def text(html: str) -> str:
    return unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html)))


def test_a_golden_run_made_before_holding_says_its_points_ran_their_time(fc: Run):
    body = text(method_body([fc], ["FC"], False))
    assert "held until steady no: each point ran its time" in body
    assert "held for a fixed time after a warm-up" in body


def test_held_points_say_their_maximum_how_many_got_steady_and_which_did_not(fc: Run):
    run = copy.deepcopy(fc)
    ok = [p for p in run.points if p.ok]
    for point in ok:
        point.trust.max_s, point.trust.rounds, point.trust.ran_s = 60.0, 1, 21.4
        point.trust.steady = True
    ok[-1].trust.steady, ok[-1].trust.rounds, ok[-1].trust.ran_s = False, 4, 59.6
    body = text(method_body([run], ["FC"], False))
    steady = len(ok) - 1
    assert f"at most 60 s; {steady} of {len(ok)} steady (ran 21 s); not steady within it:" in body
    assert "(ran 60 s)" in body
    assert "run after a warm-up until its throughput was steady" in body

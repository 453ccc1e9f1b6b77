"""The switch CI sets: DBSTOR_REQUIRE_ALL=1 turns every skip into a failure, except skips
that say they are optional or do not apply (tests/integration/needs.py: optional(),
not_applicable()).

A test skips when something it needs is missing here: a tool, a server, a driver, root.
On a developer's machine that is fine; in CI, which installs all of it (.ci/run), a skip
would hide a test that never ran behind a green run. So under the switch a skip fails,
naming what was missing. What CI does not install (MySQL's own server, a storage array's
exporter) and what does not apply to a case (an embedded engine has no connection to cut)
stays a skip, and pytest -rs (pyproject's addopts) lists every one with its reason.
"""

from __future__ import annotations

import os

import pytest

SWITCH = "DBSTOR_REQUIRE_ALL"
ALLOWED = ("optional:", "not applicable:")  # the prefixes of needs.optional/not_applicable


def required() -> bool:
    return os.environ.get(SWITCH) == "1"


def _reason(report: pytest.TestReport | pytest.CollectReport) -> str:
    longrepr = report.longrepr
    if isinstance(longrepr, tuple) and len(longrepr) == 3:
        return str(longrepr[2]).removeprefix("Skipped: ")
    return str(longrepr)


def _fail_a_required_skip(report: pytest.TestReport | pytest.CollectReport) -> None:
    if not required() or not report.skipped or hasattr(report, "wasxfail"):
        return
    reason = _reason(report)
    if reason.startswith(ALLOWED):
        return
    report.outcome = "failed"
    report.longrepr = (
        f"{SWITCH}=1 (CI): skipped, but CI installs what this test needs: {reason}. Install "
        "it, or, if CI does not install it either, skip with needs.optional(reason)"
    )


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo) -> object:
    outcome = yield
    _fail_a_required_skip(outcome.get_result())


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector: pytest.Collector) -> object:
    outcome = yield
    _fail_a_required_skip(outcome.get_result())  # a module that skips as a whole

"""Label selections parse into matchers and merge into PromQL selectors."""

from __future__ import annotations

import pytest

from dbstor.errors import UserError
from dbstor.telemetry.prometheus.selectors import parse_matchers, selector


def test_parse_and_merge() -> None:
    sel = parse_matchers('instance="db:9100", device=~"sd[ab]"')
    assert [str(m) for m in sel] == ['instance="db:9100"', 'device=~"sd[ab]"']
    fixed = parse_matchers('mode!~"idle|iowait"')
    assert (
        selector("node_cpu_seconds_total", fixed, sel, drop=["device"])
        == 'node_cpu_seconds_total{mode!~"idle|iowait",instance="db:9100"}'
    )
    assert selector("up") == "up"
    assert parse_matchers('{a="x\\"y"}')[0].value == 'x\\"y'


@pytest.mark.parametrize("text", ["volume=sqldata", 'a="x" b="y"', 'a=="x"', '="x"'])
def test_bad_selections_are_one_line_user_errors(text: str) -> None:
    with pytest.raises(UserError) as info:
        parse_matchers(text, "--storage-select")
    assert "--storage-select" in str(info.value) and "\n" not in str(info.value)

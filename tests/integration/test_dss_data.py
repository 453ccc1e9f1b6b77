"""tpchgen-cli's data at scale factor 0.01: the same bytes every time, and the value lists
the query parameters are drawn from match what it generates."""

from __future__ import annotations

import csv
import hashlib
from pathlib import Path

import pytest

from dbstor.errors import UserError
from dbstor.workloads.dss import generate as gen
from dbstor.workloads.dss import params, schema

pytestmark = pytest.mark.integration
SCALE = 0.01

try:
    gen.find_generator()
except UserError as missing:
    pytest.skip(str(missing), allow_module_level=True)


def _rows(data: gen.Generated, table: str) -> list[dict[str, str]]:
    out: list[dict[str, str]] = []
    for path in data.files[table]:
        with path.open(newline="", encoding="utf-8") as source:
            out += list(csv.DictReader(source))
    return out


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> gen.Generated:
    return gen.generate(SCALE, "csv", tmp_path_factory.mktemp("one"))


def test_same_bytes_every_time_whatever_the_split(generated: gen.Generated, tmp_path: Path) -> None:
    again = gen.generate(SCALE, "csv", tmp_path, parts=2, threads=1)
    for table in schema.TABLES:
        assert len(generated.files[table.name]) == 1
        first = [r for r in _rows(generated, table.name)]
        second = [r for r in _rows(again, table.name)]
        digest = [hashlib.sha256(repr(rows).encode()).hexdigest() for rows in (first, second)]
        assert digest[0] == digest[1], table.name
    assert len(again.files["lineitem"]) == 2


def test_row_counts_match_tpch_for_the_scale(generated: gen.Generated) -> None:
    expected = schema.expected_rows(SCALE)
    for table in schema.TABLES:
        rows = len(_rows(generated, table.name))
        if expected[table.name] is not None:
            assert rows == expected[table.name], table.name
    lines, orders = len(_rows(generated, "lineitem")), expected["orders"]
    assert orders and 3.9 * orders < lines < 4.1 * orders


def test_parameter_value_lists_match_the_generated_data(generated: gen.Generated) -> None:
    nations = _rows(generated, "nation")
    assert {n["n_name"]: int(n["n_regionkey"]) for n in nations} == params.NATIONS
    assert [n["n_name"] for n in nations] == list(params.NATIONS)  # in nation key order
    assert [r["r_name"] for r in _rows(generated, "region")] == list(params.REGIONS)
    parts = _rows(generated, "part")
    words = {w for p in parts for w in p["p_name"].split()}
    assert words == set(params.COLORS)
    types = {tuple(p["p_type"].split()) for p in parts}
    assert all(len(t) == 3 for t in types)
    for k in range(3):
        assert {t[k] for t in types} == set(params.TYPE_SYLLABLES[k])
    containers = {tuple(p["p_container"].split()) for p in parts}
    for k in range(2):
        assert {c[k] for c in containers} == set(params.CONTAINER_SYLLABLES[k])
    customers = _rows(generated, "customer")
    assert {c["c_mktsegment"] for c in customers} == set(params.SEGMENTS)
    assert {int(c["c_phone"][:2]) - int(c["c_nationkey"]) for c in customers} == {10}
    modes = {li["l_shipmode"] for li in _rows(generated, "lineitem")}
    assert modes == set(params.SHIP_MODES)

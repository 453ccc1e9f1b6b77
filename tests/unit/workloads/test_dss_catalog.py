import pytest

from dbstor.errors import UserError
from dbstor.workloads.dss.catalog import (
    PERMUTATIONS,
    QUERIES,
    TR3476_ORDER,
    select_queries,
    stream_order,
)


def numbers(specs):
    return [q.number for q in specs]


def test_default_is_tr3476s_six_in_its_order_with_its_names():
    chosen = select_queries(None)
    assert numbers(chosen) == [6, 2, 9, 1, 3, 12] == list(TR3476_ORDER)
    assert [(q.tr3476, q.tr3476_code) for q in chosen] == [
        ("Profit Enhancement", "PE"),
        ("Cost-Efficient Suppliers", "CE"),
        ("Specified Product Profit", "SP"),
        ("Pricing Summary", "PS"),
        ("Unshipped Order Summary", "UO"),
        ("Late Received Orders", "LR"),
    ]
    assert [q.title for q in chosen] == [
        "Forecasting Revenue Change",
        "Minimum Cost Supplier",
        "Product Type Profit Measure",
        "Pricing Summary Report",
        "Shipping Priority",
        "Shipping Modes and Order Priority",
    ]
    assert select_queries("TR3476") == chosen


def test_all_and_lists():
    assert numbers(select_queries("all")) == list(range(1, 23))
    assert numbers(select_queries("1,6,Q12")) == [1, 6, 12]
    assert numbers(select_queries(" q22 , 3,LR,ps, 3")) == [22, 3, 12, 1]  # order kept, no repeats
    assert QUERIES[15].name == "Q15" and QUERIES[15].tr3476 is None
    assert "TR-3476: Pricing Summary, PS" in QUERIES[1].label


@pytest.mark.parametrize("bad", ["23", "Q0", "1,x", "q", "6;drop"])
def test_unknown_query_is_one_line_naming_the_valid_ones(bad):
    with pytest.raises(UserError) as error:
        select_queries(bad)
    message = str(error.value)
    assert "\n" not in message and "unknown query" in message
    assert "all" in message and "Q1-Q22" in message and "PS" in message


def test_appendix_a_rows_are_permutations_of_the_22():
    assert len(PERMUTATIONS) == 41
    for row in PERMUTATIONS:
        assert sorted(row) == list(range(1, 23))
    assert len(set(PERMUTATIONS)) == 41


def test_stream_zero_keeps_the_selection_order_others_follow_tpch():
    six = select_queries(None)
    assert numbers(stream_order(six, 0)) == [6, 2, 9, 1, 3, 12]
    assert numbers(stream_order(six, 1)) == [n for n in PERMUTATIONS[1] if n in {1, 2, 3, 6, 9, 12}]
    everything = select_queries("all")
    assert numbers(stream_order(everything, 2)) == list(PERMUTATIONS[2])
    assert stream_order(everything, 41) == stream_order(everything, 1)  # wraps past 40
    assert stream_order(everything, 40) != stream_order(everything, 1)
    with pytest.raises(ValueError):
        stream_order(six, -1)

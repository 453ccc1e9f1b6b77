"""A transaction's CALL arguments (hotpath.call_args, as Procedures sends them): each
field in the place the dialects' procedures take it."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal

import pytest
from dbstor.hotpath import call_args

from dbstor.dialects.postgres.orders import item_lines as pg_lines
from dbstor.dialects.procedures import item_lines as csv_lines
from dbstor.workloads.orders.inputs import (
    Customer,
    Delivery,
    NewOrder,
    OrderStatus,
    Payment,
    StockLevel,
)
from dbstor.workloads.orders.procedures import INPUT_TYPES

AT = datetime(2030, 1, 2, 3, 4, 5)


def test_new_order_s_lines_go_as_three_lists_in_the_dialect_s_text():
    order = NewOrder(3, 7, 1201, ((5, 3, 2), (90, 3, 10), (17, 4, 1)), AT)
    assert call_args(order, pg_lines, INPUT_TYPES) == (
        "New-Order",
        (3, 7, 1201, AT, "{5,90,17}", "{3,3,4}", "{2,10,1}"),
    )
    assert call_args(order, csv_lines, INPUT_TYPES)[1][4:] == ("5,90,17", "3,3,4", "2,10,1")


def test_the_other_transactions_flatten_their_customer():
    by_name = Customer(2, 9, 0, "BARPRIESE")
    payment = Payment(1, 4, by_name, Decimal("12.34"), AT)
    assert call_args(payment, pg_lines, INPUT_TYPES) == (
        "Payment",
        (1, 4, 2, 9, 0, "BARPRIESE", Decimal("12.34"), AT),
    )
    status = OrderStatus(Customer(1, 3, 77, None))
    assert call_args(status, pg_lines, INPUT_TYPES) == ("Order-Status", (1, 3, 77, None))
    assert call_args(Delivery(5, 8, AT), pg_lines, INPUT_TYPES) == ("Delivery", (5, 8, AT))
    assert call_args(StockLevel(5, 2, 14), pg_lines, INPUT_TYPES) == ("Stock-Level", (5, 2, 14))


def test_anything_else_is_refused():
    with pytest.raises(TypeError, match="not an orders transaction"):
        call_args((1, 2, 3), pg_lines, INPUT_TYPES)
    with pytest.raises(TypeError, match="a line must be"):
        call_args(NewOrder(1, 1, 1, ((1, 2),), AT), pg_lines, INPUT_TYPES)
    with pytest.raises(TypeError, match="customer"):
        call_args(OrderStatus((1, 2)), pg_lines, INPUT_TYPES)
    with pytest.raises(TypeError, match="sequence of ints|integer"):
        call_args(NewOrder(1, 1, 1, (("x", 1, 1),), AT), pg_lines, INPUT_TYPES)

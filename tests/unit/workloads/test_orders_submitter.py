"""The loop thread's submit (hotpath.Submitter): a transaction drawn and sent in one call.

What it sends must be what the inputs' path sends for the same user: the same stream
(a Submitter and a Terminal's draw() seeded alike give the same transactions, one after the
other), PostgreSQL's text as encode_all writes call_args' arguments, MySQL's statement as
the Sender writes it with mysqlclient's own literals (MySQLdb's converters the reference).
The send functions here record what they are given: the wire itself is the integration
tests' (test_orders_servers.py, the MariaDB orders tests)."""

from __future__ import annotations

import random
from datetime import datetime

import pytest
from dbstor.hotpath import (
    MYSQL_LITERALS,
    POSTGRES_TEXT,
    Submitter,
    call_args,
    encode_all,
    sql_literals,
)
from MySQLdb import _mysql
from MySQLdb.converters import conversions

from dbstor.dialects.mysql.orders import CALLS as MYSQL_CALLS
from dbstor.dialects.postgres.orders import item_lines as pg_lines
from dbstor.dialects.procedures import item_lines as csv_lines
from dbstor.workloads.orders.inputs import LAST_NAMES, TRANSACTIONS, Terminal
from dbstor.workloads.orders.procedures import INPUT_TYPES
from dbstor.workloads.orders.tpcc import Constants

PREPARED = {name: b"dbstor_%d" % n for n, name in enumerate(TRANSACTIONS)}
MIX = random.Random(7).choices(TRANSACTIONS, weights=(45, 43, 4, 4, 4), k=3000)


def literal(value: object) -> bytes:
    """mysqlclient's literal for a value (the connection's, without a connection)."""
    text = _mysql.escape(value, conversions)
    return text if isinstance(text, bytes) else text.encode()


def terminal(seed: int = 11, warehouses: int = 4, user: int = 5) -> Terminal:
    rng = random.Random(f"{seed}:session:0:{user}")
    return Terminal(warehouses, user, rng, Constants.from_seed(seed))


class Wire:
    """Records what a Submitter sends; its socket is 42."""

    def __init__(self) -> None:
        self.sent: list[tuple] = []

    def send(self, *args: object) -> None:
        self.sent.append(args)

    def socket(self) -> int:
        return 42


def same_moment(a: bytes, b: bytes) -> bool:
    """Two parameters' texts alike, a timestamp within the second that may tick between."""
    if a == b:
        return True
    stamps = [datetime.fromisoformat(t.decode().strip("'")) for t in (a, b)]
    return abs((stamps[0] - stamps[1]).total_seconds()) <= 1


def test_postgres_sends_the_inputs_paths_text_from_the_same_stream():
    wire, drawn = Wire(), terminal()
    names = tuple(name.encode() for name in LAST_NAMES)
    submitter = Submitter(terminal().drawer, POSTGRES_TEXT, PREPARED, wire.send, wire.socket, names)
    for name in MIX:
        assert submitter.submit(name) == 42 and submitter.sent == name
        expected = encode_all(call_args(drawn.draw(name), pg_lines, INPUT_TYPES)[1])
        statement, params = wire.sent.pop()
        assert statement == PREPARED[name] and len(params) == len(expected)
        for got, want in zip(params, expected, strict=True):
            assert got == want or same_moment(got, want), (name, params, expected)


def test_mysql_sends_the_senders_statement_from_the_same_stream():
    wire, drawn = Wire(), terminal(seed=3, warehouses=2)
    texts = {name: text.encode() for name, text in MYSQL_CALLS.items()}
    names = tuple(literal(name) for name in LAST_NAMES)
    submitter = Submitter(
        terminal(seed=3, warehouses=2).drawer, MYSQL_LITERALS, texts, wire.send, wire.socket, names
    )
    seen = set()
    for name in MIX:
        assert submitter.submit(name) == 42 and submitter.sent == name
        params = call_args(drawn.draw(name), csv_lines, INPUT_TYPES)[1]
        expected = texts[name] % sql_literals(params, literal)
        (statement,) = wire.sent.pop()
        if statement != expected:  # only the second may differ, if it ticked between
            stamp = sql_literals([params[3 if name == "New-Order" else -1]], literal)[0]
            assert stamp in expected and name in ("New-Order", "Payment", "Delivery")
            head, tail = expected.split(stamp)
            assert statement.startswith(head) and statement.endswith(tail)
        seen.update(p is None for p in params)
    assert seen == {True, False}  # customers by name (c_id 0, c_last) and by id (NULL)


def test_a_new_order_s_lines_and_a_payment_s_amount_are_written_as_the_procedures_read():
    wire = Wire()
    names = tuple(name.encode() for name in LAST_NAMES)
    submitter = Submitter(terminal().drawer, POSTGRES_TEXT, PREPARED, wire.send, wire.socket, names)
    submitter.submit("New-Order")
    _, (w, d, c, moment, items, supply, quantities) = wire.sent.pop()
    assert 1 <= int(d) <= 10 and 1 <= int(c) <= 3000
    columns = [column.strip(b"{}").split(b",") for column in (items, supply, quantities)]
    assert 5 <= len(columns[0]) <= 15 and len({len(column) for column in columns}) == 1
    assert all(1 <= int(q) <= 10 for q in columns[2]) and 1 <= int(w) <= 4
    pairs = [(int(s), int(i)) for i, s in zip(columns[0], columns[1], strict=True)]
    assert pairs == sorted(pairs)  # stock rows locked in (warehouse, item) order
    datetime.fromisoformat(moment.decode())
    submitter.submit("Payment")
    amount = wire.sent.pop()[1][6]
    whole, cents = amount.split(b".")
    assert len(cents) == 2 and 1 <= int(whole) <= 5000


def test_a_submitter_refuses_what_it_cannot_send():
    wire, drawer = Wire(), terminal().drawer
    names = tuple(name.encode() for name in LAST_NAMES)
    with pytest.raises(TypeError, match="Drawer"):
        Submitter(object(), POSTGRES_TEXT, PREPARED, wire.send, wire.socket, names)
    with pytest.raises(ValueError, match="1000 last names"):
        Submitter(drawer, POSTGRES_TEXT, PREPARED, wire.send, wire.socket, names[:10])
    with pytest.raises(ValueError, match="unknown orders transaction"):
        Submitter(drawer, POSTGRES_TEXT, {"Nope": b"x"}, wire.send, wire.socket, names)
    with pytest.raises(ValueError, match="needs 3 parameters"):
        Submitter(
            drawer, MYSQL_LITERALS, {"Delivery": b"CALL d(%s)"}, wire.send, wire.socket, names
        )
    with pytest.raises(ValueError, match="dialect"):
        Submitter(drawer, 7, PREPARED, wire.send, wire.socket, names)
    submitter = Submitter(drawer, POSTGRES_TEXT, {"Delivery": b"s"}, wire.send, wire.socket, names)
    with pytest.raises(ValueError, match="unknown orders transaction"):
        submitter.submit("Payment")
    assert submitter.sent is None and not wire.sent


def test_a_failed_send_raises_and_is_not_taken_for_sent():
    def lost(*args: object) -> None:
        raise ConnectionError("the connection is lost")

    names = tuple(name.encode() for name in LAST_NAMES)
    submitter = Submitter(terminal().drawer, POSTGRES_TEXT, PREPARED, Wire().send, int, names)
    assert submitter.submit("Payment") == 0 and submitter.sent == "Payment"
    failing = Submitter(terminal().drawer, POSTGRES_TEXT, PREPARED, lost, int, names)
    with pytest.raises(ConnectionError):
        failing.submit("New-Order")
    assert failing.sent is None


def test_draws_and_submits_share_one_stream():
    """Interleaved on one user, draw() and submit() take turns on the same stream: the
    Submitter's transaction is the one draw() would have drawn next."""
    wire, alone, shared = Wire(), terminal(), terminal()
    names = tuple(name.encode() for name in LAST_NAMES)
    submitter = Submitter(shared.drawer, POSTGRES_TEXT, PREPARED, wire.send, wire.socket, names)
    for n in range(300):
        name = ("Order-Status", "Stock-Level")[n % 2]  # no timestamp: exact
        expected = encode_all(call_args(alone.draw(name), pg_lines, INPUT_TYPES)[1])
        if n % 3:
            submitter.submit(name)
            assert wire.sent.pop()[1] == expected
        else:
            drawn = shared.draw(name)
            assert encode_all(call_args(drawn, pg_lines, INPUT_TYPES)[1]) == expected

"""One virtual user of the orders workload: a TPC-C terminal on its own connection.

run(txn) draws the transaction's inputs (inputs.Terminal) and executes them, by one stored
procedure CALL (procedures.py) or by client-side statements (client.py); draw() and
execute() are public so that tests can run the same requests through both paths.

A session whose dialect can send a CALL and read its reply apart (can_submit) also offers
submit() and collect() for the driver's loop thread (drivers/multiplex.py). Its submit is
the dialect Caller's compiled Submitter's own (hotpath.Submitter.submit: the transaction
drawn from the same stream as draw(), written in the dialect's parameter text and sent in
one C call, no inputs object made), set on the session when it is made; collect() counts
the committed transaction by the name the Submitter sent.

Client-side transactions need the connection in the engine's default mode (autocommit
off): psycopg and mysqlclient open the transaction at the first statement; on SQLite the
session opens it itself, BEGIN IMMEDIATE for the three writing transactions (a writer
takes SQLite's write lock before reading instead of failing to upgrade a read snapshot
later) and plain BEGIN for the two readers. Procedure sessions switch their connection to
autocommit: one CALL, one transaction.
"""

from __future__ import annotations

import contextlib
import random
from collections import Counter
from typing import Any

from dbstor.dialects import registry
from dbstor.workloads.base import Session
from dbstor.workloads.orders import procedures
from dbstor.workloads.orders.client import Client
from dbstor.workloads.orders.inputs import NAMES, WRITERS, Inputs, Terminal
from dbstor.workloads.orders.tpcc import Constants


class OrdersSession(Session):
    """Runs one transaction at a time on its own connection, with its own random stream."""

    def __init__(
        self,
        dialect: str,
        connection: Any,
        terminal: Terminal,
        use_procedures: bool,
    ):
        self.dialect, self.conn, self.terminal = dialect, connection, terminal
        self.use_procedures = use_procedures and procedures.procedural(dialect)
        if self.use_procedures:
            self.server = procedures.Procedures(connection, dialect)
        else:
            self.client = Client(connection.cursor(), dialect)
        # one CALL per transaction through libpq or libmariadb: submit() and collect() apart
        self.can_submit = self.use_procedures and self.server.can_submit
        self.outcomes: Counter[str] = Counter()  # committed transactions by type
        self.rolled_back = 0  # New-Orders rolled back by design
        if self.can_submit:
            self.submitter, self.receive = self.server.submitting(terminal.drawer)
            self.submit = self.submitter.submit  # the compiled one, no Python frame

    @classmethod
    def create(
        cls,
        dialect: str,
        connection: Any,
        user: int,
        warehouses: int,
        seed: int,
        stream: int,
        use_procedures: bool = True,
        all_warehouses: bool = False,
    ) -> OrdersSession:
        rng = random.Random(f"{seed}:session:{stream}:{user}")
        constants = Constants.from_seed(seed)
        terminal = Terminal(warehouses, user, rng, constants, all_warehouses)
        return cls(dialect, connection, terminal, use_procedures)

    def draw(self, transaction: str) -> Inputs:
        return self.terminal.draw(transaction)

    def run(self, transaction: str) -> bool:
        """One transaction of this type, committed; False when rolled back by design."""
        return self.execute(self.draw(transaction))

    def execute(self, inputs: Inputs) -> bool:
        """Run these inputs as one transaction: True committed, False rolled back by
        design; any other failure is rolled back and re-raised."""
        try:
            run = self.server.run if self.use_procedures else self._client_side
            done = run(inputs)
        except BaseException:
            with contextlib.suppress(Exception):
                self.conn.rollback()
            raise
        return self._count(NAMES[type(inputs)], done)

    def collect(self) -> bool | None:
        """The submitted transaction's reply: None while incomplete, else as run()."""
        done = self.receive()
        return None if done is None else self._count(self.submitter.sent, done)

    def _count(self, name: str, done: bool) -> bool:
        if done:
            self.outcomes[name] += 1
        else:
            self.rolled_back += 1
        return done

    def _client_side(self, inputs: Inputs) -> bool:
        registry.get(self.dialect).begin(self.conn, NAMES[type(inputs)] in WRITERS)
        if self.client.run(inputs):
            self.conn.commit()
            return True
        self.conn.rollback()
        return False

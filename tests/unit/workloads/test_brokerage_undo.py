"""A brokerage transaction's rollback actions (a block of trade ids given back, a trade
put back as waiting) run once: the greenlet's unwinding and the session's close() both
undo a transaction that was in flight when the point stopped."""

from __future__ import annotations

from dbstor.workloads.brokerage.session import BrokerageSession


class _AbandonedWire:
    def abandon(self) -> bool:
        return True  # a transaction was in flight


def test_rollback_actions_run_once_when_both_the_unwinding_and_close_undo():
    session = BrokerageSession.__new__(BrokerageSession)  # no server: only the undo
    seen: list[str] = []
    session._claimed, session._next_id, session._end_id = False, 0, 0
    session._on_rollback = [lambda: seen.append("trade back to waiting")]
    session.wire = _AbandonedWire()
    session._undo()  # the transaction's own unwinding
    session.close()  # the point stopped with it in flight
    assert seen == ["trade back to waiting"]

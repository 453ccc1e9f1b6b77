"""The brokerage workload's contract: TPC-E's mix, its dialects, options and description."""

import pytest

from dbstor.errors import UserError
from dbstor.workloads.brokerage import MIX, BrokerageWorkload
from dbstor.workloads.brokerage.transactions import TRANSACTIONS, WRITERS
from dbstor.workloads.registry import workload_class

TPC_E_MIX = {  # TPC-E specification, clause 6.2.2.1
    "Broker-Volume": 4.9,
    "Customer-Position": 13.0,
    "Market-Feed": 1.0,
    "Market-Watch": 18.0,
    "Security-Detail": 14.0,
    "Trade-Lookup": 8.0,
    "Trade-Order": 10.1,
    "Trade-Result": 10.0,
    "Trade-Status": 19.0,
    "Trade-Update": 2.0,
}


def test_mix_is_tpc_e_and_sums_to_100():
    assert BrokerageWorkload.mix == MIX == TPC_E_MIX
    assert sum(MIX.values()) == pytest.approx(100.0)


def test_every_mix_entry_has_a_transaction():
    assert set(TRANSACTIONS) == set(MIX)
    assert {"Trade-Order", "Trade-Result", "Trade-Update", "Market-Feed"} == WRITERS
    # TPC-E's read-write share: about 23% of transactions write
    assert sum(MIX[t] for t in WRITERS) == pytest.approx(23.1)


def test_registered_and_described():
    assert workload_class("brokerage") is BrokerageWorkload
    w = BrokerageWorkload(1000, seed=4)
    assert w.name == "brokerage" and set(w.dialects) >= {
        "sqlite",
        "postgres",
        "mysql",
        "oracle",
        "tsql",
    }
    info = w.describe()
    assert info["scale"] == 1000 and info["seed"] == 4 and info["mix"] == MIX
    assert info["options"] == {"trade_days": 5, "think_time_ms": 0.0}
    volumes = info["volumes"]
    assert volumes["rows"]["trade"] == 288_000 and volumes["securities"] == 685
    assert volumes["brokers"] == 10 and volumes["companies"] == 500


def test_options():
    w = BrokerageWorkload(10, seed=1, options={"trade_days": "3", "think_time_ms": 2.5, "seed": 9})
    assert (w.trade_days, w.think_time_ms, w.seed) == (3, 2.5, 9)
    assert w.volumes.trades == round(10 * 57.6 * 3)
    for bad in ({"trade_days": 0}, {"trade_days": 1.5}, {"trade_days": "x"}, {"think_time_ms": -1}):
        with pytest.raises(UserError, match="brokerage option"):
            BrokerageWorkload(10, options=bad)
    with pytest.raises(UserError, match="unknown brokerage option"):
        BrokerageWorkload(10, options={"warehouses": 3})
    with pytest.raises(UserError, match="at least 1"):
        BrokerageWorkload(0)

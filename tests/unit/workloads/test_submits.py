"""Which workloads' users keep no thread on which dialect (Workload.submits), as their
sessions decide it (can_submit): the client-process choice follows it."""

from dbstor.workloads.blocks import BlocksWorkload
from dbstor.workloads.brokerage import BrokerageWorkload
from dbstor.workloads.orders import OrdersWorkload


def test_postgres_and_mysql_sessions_submit_and_the_others_keep_a_thread():
    orders, blocks, brokerage = OrdersWorkload(1), BlocksWorkload(1000), BrokerageWorkload(100)
    for workload in (orders, blocks, brokerage):
        assert workload.submits("postgres"), workload.name
        assert not workload.submits("sqlite"), workload.name
    # MariaDB's one CALL a transaction (orders) or a blocks statement: libmariadb sends it
    # and reads the reply apart (dialects/mysql/calls.py); brokerage's several statements
    # a transaction keep a thread there
    assert orders.submits("mysql") and blocks.submits("mysql")
    assert not brokerage.submits("mysql")
    # client-side statements: several round trips a transaction, a thread each
    assert not OrdersWorkload(1, options={"procedures": False}).submits("postgres")
    assert not OrdersWorkload(1, options={"procedures": False}).submits("mysql")
    assert BlocksWorkload(1000, options={"server_loop": False}).submits("postgres")
    assert BlocksWorkload(1000, options={"server_loop": False}).submits("mysql")

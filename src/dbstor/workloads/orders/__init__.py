"""The orders workload: a TPC-C-like order-entry database and its five-transaction mix.

Modules: tpcc (cardinalities, NURand, last names, random text), schema (the nine tables),
generate (deterministic rows in chunks), inputs (what each transaction asks for, drawn
as a TPC-C terminal draws it), sql and client (the transactions as client-side
statements), procedures (which dialects have the same as stored procedures, in
dbstor.dialects.<dialect>.orders, and calling them), session (a virtual user) and workload (the
Workload class). Building goes through the shared bulk path (dbstor.workloads.bulk).
"""

from dbstor.workloads.orders.workload import MIX, OrdersWorkload

__all__ = ["MIX", "OrdersWorkload"]

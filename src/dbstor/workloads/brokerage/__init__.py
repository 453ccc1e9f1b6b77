"""The brokerage workload: a TPC-E-like trading database and its ten-transaction mix.

Modules: volumes (row counts per scale), keys (ids and skewed choices), names (word
pools), schema (tables and DDL per dialect), generate (deterministic rows in chunks),
load (bulk loading per dialect), sql (the statements, written once), transactions (the
ten transactions), session (a virtual user) and workload (the Workload class).
"""

from dbstor.workloads.brokerage.workload import MIX, BrokerageWorkload

__all__ = ["MIX", "BrokerageWorkload"]

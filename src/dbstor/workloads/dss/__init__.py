"""The dss workload: TPC-H-like decision support, TR-3476's six queries by default."""

from dbstor.workloads.dss.catalog import QUERIES, TR3476_ORDER, QuerySpec
from dbstor.workloads.dss.workload import DssWorkload

__all__ = ["QUERIES", "TR3476_ORDER", "DssWorkload", "QuerySpec"]

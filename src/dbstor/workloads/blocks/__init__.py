"""The blocks workload: SLOB-like random single-row reads and updates, one 8K block each.

Modules: options (the options, their checks and the mix they give), schema (tables, row
geometry per engine, DDL and the set-based fill SQL), sql (the two statements a session
runs), load (building the tables), session (a virtual user) and workload (the Workload
class). See docs/blocks.md.
"""

from dbstor.workloads.blocks.options import DEFAULT_MIX
from dbstor.workloads.blocks.workload import BlocksWorkload

__all__ = ["DEFAULT_MIX", "BlocksWorkload"]

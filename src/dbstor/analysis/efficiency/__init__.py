"""Space efficiency of real database files: zero blocks, dedup, compression, snapshots.

estimate() scans files and returns the figures; snapshots.model() turns a schedule into
snapshot space and savings; dbstor.report.tools.efficiency renders them as a report section.
"""

from dbstor.analysis.efficiency.arrays import DEFAULT_ARRAY, PRESETS, ArrayModel, resolve_array
from dbstor.analysis.efficiency.estimate import estimate

__all__ = [
    "DEFAULT_ARRAY",
    "PRESETS",
    "ArrayModel",
    "estimate",
    "resolve_array",
]

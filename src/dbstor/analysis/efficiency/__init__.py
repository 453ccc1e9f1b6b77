"""Space efficiency of real database files: zero blocks, dedup, compression, snapshots.

estimate() scans files and returns the figures; snapshots.model() turns a schedule into
snapshot space and savings; html.render_efficiency_section() renders a report section.
"""

from dbstor.analysis.efficiency.arrays import DEFAULT_ARRAY, PRESETS, ArrayModel, resolve_array
from dbstor.analysis.efficiency.estimate import estimate
from dbstor.analysis.efficiency.html import render_efficiency_section

__all__ = [
    "DEFAULT_ARRAY",
    "PRESETS",
    "ArrayModel",
    "estimate",
    "render_efficiency_section",
    "resolve_array",
]

"""The consolidation cost case (TR-4403, TR-4415): servers, licences, ROI, NPV, payback."""

from dbstor.analysis.tco.cashflow import compute, npv, payback_months, roi, servers_needed
from dbstor.analysis.tco.licences import licences_per_server

__all__ = [
    "compute",
    "licences_per_server",
    "npv",
    "payback_months",
    "roi",
    "servers_needed",
]

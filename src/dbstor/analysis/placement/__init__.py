"""Placement advisor: which database objects belong on the fast tier (EMC h6080)."""

from dbstor.analysis.placement.analysis import Tiers, analyse, skew_curve, skew_point
from dbstor.analysis.placement.html import render_advise_section

__all__ = ["Tiers", "analyse", "render_advise_section", "skew_curve", "skew_point"]

"""Placement advisor: which database objects belong on the fast tier (EMC h6080)."""

from dbstor.analysis.placement.analysis import Tiers, analyse, skew_curve, skew_point

__all__ = ["Tiers", "analyse", "skew_curve", "skew_point"]

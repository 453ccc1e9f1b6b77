"""The database workloads dbstor knows, by name."""

from __future__ import annotations

import difflib
import importlib

from dbstor.errors import UserError
from dbstor.workloads.base import Workload

WORKLOADS: dict[str, str] = {
    "brokerage": "dbstor.workloads.brokerage:BrokerageWorkload",
    "orders": "dbstor.workloads.orders:OrdersWorkload",
    "blocks": "dbstor.workloads.blocks:BlocksWorkload",
    "dss": "dbstor.workloads.dss:DssWorkload",
}


def workload_class(name: str) -> type[Workload]:
    if name in WORKLOADS:
        module_name, class_name = WORKLOADS[name].split(":")
        return getattr(importlib.import_module(module_name), class_name)
    hint = difflib.get_close_matches(name, WORKLOADS, n=1)
    extra = f" (did you mean {hint[0]!r}?)" if hint else ""
    raise UserError(f"unknown workload {name!r}{extra}; known workloads: {', '.join(WORKLOADS)}")

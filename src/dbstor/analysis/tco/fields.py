"""The inputs of the consolidation cost case, one row each: name, TOML key, flag, kind,
default and help. model.py reads and checks them; commands/tco.py makes the flags."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Field:
    name: str
    toml: str  # section.key
    flag: str
    kind: str  # int | pct | money | float | bool | str | path
    default: Any = None
    help: str = ""


FIELDS = (
    Field("servers", "servers.count", "--servers", "int", None, "database servers today"),
    Field("sockets", "servers.sockets", "--sockets", "int", 2, "processor sockets per server"),
    Field(
        "cores",
        "servers.cores_per_server",
        "--cores-per-server",
        "int",
        None,
        "physical cores per server (all sockets)",
    ),
    Field(
        "cpu_before",
        "cpu.before",
        "--cpu-before",
        "pct",
        None,
        "CPU utilisation on the old storage, e.g. 10%%",
    ),
    Field(
        "cpu_after",
        "cpu.after",
        "--cpu-after",
        "pct",
        None,
        "CPU utilisation after the storage change, same workload, e.g. 40%%",
    ),
    Field(
        "ceiling",
        "cpu.ceiling",
        "--ceiling",
        "pct",
        70.0,
        "highest utilisation allowed on the consolidated servers (default 70%%)",
    ),
    Field(
        "before_run",
        "cpu.before_run",
        "--before-run",
        "path",
        None,
        "dbstor run on the old storage to take --cpu-before from",
    ),
    Field(
        "after_run",
        "cpu.after_run",
        "--after-run",
        "path",
        None,
        "dbstor run on the new storage to take --cpu-after from",
    ),
    Field(
        "licence",
        "licence.model",
        "--license",
        "str",
        None,
        "sqlserver-enterprise, sqlserver-standard, oracle-enterprise, oracle-standard2, none",
    ),
    Field(
        "core_factor",
        "licence.core_factor",
        "--core-factor",
        "float",
        0.5,
        "Oracle core factor (default 0.5, Intel/AMD x86)",
    ),
    Field(
        "licence_price",
        "licence.price",
        "--license-price",
        "money",
        None,
        "price of one licence (a core licence, or an Oracle processor licence)",
    ),
    Field(
        "support_rate",
        "licence.support_rate",
        "--support-rate",
        "pct",
        None,
        "yearly licence support / Software Assurance, %% of the licence price",
    ),
    Field(
        "licence_purchase",
        "licence.count_purchase",
        "--count-license-purchase",
        "bool",
        False,
        "count the purchase of the retired licences as avoided (true-up, refresh)",
    ),
    Field(
        "server_price",
        "server.price",
        "--server-price",
        "money",
        0.0,
        "price of one server (counted only with --server-refresh)",
    ),
    Field(
        "server_refresh",
        "server.refresh",
        "--server-refresh",
        "bool",
        False,
        "the servers are due for replacement now: retired ones need not be bought",
    ),
    Field(
        "server_support",
        "server.support",
        "--server-support",
        "money",
        None,
        "hardware maintenance per server per year",
    ),
    Field(
        "power", "server.power", "--power", "money", None, "power and cooling per server per year"
    ),
    Field("space", "server.space", "--space", "money", None, "rack space per server per year"),
    Field("admin", "server.admin", "--admin", "money", None, "administration per server per year"),
    Field(
        "storage_price",
        "storage.price",
        "--storage-price",
        "money",
        None,
        "purchase of the new storage (year 0)",
    ),
    Field(
        "storage_support",
        "storage.support",
        "--storage-support",
        "money",
        None,
        "new storage support, power and space per year",
    ),
    Field(
        "legacy_support",
        "storage.legacy_support",
        "--legacy-storage-support",
        "money",
        None,
        "old storage support, power and space per year, no longer paid",
    ),
    Field(
        "migration",
        "storage.migration",
        "--migration",
        "money",
        None,
        "one-time migration and consolidation services (year 0)",
    ),
    Field("years", "analysis.years", "--years", "int", 3, "years analysed (default 3)"),
    Field(
        "discount_rate",
        "analysis.discount_rate",
        "--discount-rate",
        "pct",
        8.0,
        "yearly discount rate for the NPV (default 8%%)",
    ),
    Field("currency", "analysis.currency", "--currency", "str", "USD", "currency label"),
    Field(
        "example_prices",
        "analysis.example_prices",
        "--example-prices",
        "bool",
        False,
        "fill prices not given with the documented example values (docs/tco.md)",
    ),
)
BY_NAME = {f.name: f for f in FIELDS}

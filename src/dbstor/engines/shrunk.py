"""The memory a study shrunk to a small machine (`dbstor study FILE --shrink DIR`) gives a
managed engine: held below the shrunk database, so that its reads reach the storage. With
a seed's 2 GiB every point read from memory, and then no factor, per-disk figure or cost
case may be stated.

PostgreSQL: 16 MiB of shared buffers and a cap of 96 MiB + 6 MiB per connection (96 MiB in
all killed it at 16 users), with a database larger than the cap leaves for the page cache:
brokerage at 1,000 customers (about 245 MiB on disk), blocks at 2,000 8K rows per user (16
MiB each, more than the 6 MiB a connection adds). SQLite: 48 MiB, as the default study
(its brokerage at 1,000 customers is about 77 MiB). Other engines keep what the file says.
"""

from __future__ import annotations

from typing import Any

from dbstor.engines.registry import ALIASES

PG_BASE_MIB, PG_PER_CONNECTION_MIB, PG_BUFFER = 96, 6, "16MiB"
PG_SCALE = {"brokerage": 1000, "blocks": 2000}
SQLITE_CAP = "48MiB"


def small_memory(db: dict[str, Any]) -> None:
    """Set a shrunk [[databases]] table's memory in place (an external server's is not
    dbstor's to cap)."""
    name = str(db.get("engine", "sqlite")).lower()
    engine = ALIASES.get(name, name)
    if db.get("dsn"):
        return
    if engine == "sqlite":
        db["memory_limit"] = SQLITE_CAP
    elif engine == "postgres":
        users = db.get("users_per_instance") if "instances" in db else db.get("users")
        most = max(users) if isinstance(users, list) and users else int(users or 1)
        db["buffer"] = PG_BUFFER
        db["memory_limit"] = f"{PG_BASE_MIB + PG_PER_CONNECTION_MIB * int(most)}MiB"
        scale = PG_SCALE.get(str(db.get("workload", "brokerage")))
        if scale is not None:
            db["scale"] = scale

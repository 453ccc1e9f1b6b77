"""Licence counting rules: how many licences one database server needs.

- SQL Server (Enterprise, Standard) per core: every physical core, at least 4 core
  licences per processor (socket), sold in 2-core packs (so an odd total is rounded up).
- Oracle Enterprise Edition per processor: cores x the core factor of the Oracle
  Processor Core Factor Table (0.5 for Intel and AMD x86), fractions rounded up.
- Oracle Standard Edition 2 per processor: one licence per occupied socket, at most 2.
- none: no per-server licence (PostgreSQL, MariaDB ...).

Prices are not here: they are inputs (see docs/tco.md).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from dbstor.errors import UserError


@dataclass(frozen=True)
class LicenceModel:
    name: str
    unit: str  # what one licence covers, for reports
    rule: str  # the counting rule in one sentence


MODELS = {
    "sqlserver-enterprise": LicenceModel(
        "sqlserver-enterprise",
        "core licence",
        "SQL Server per core: all physical cores, at least 4 per processor, in 2-core packs",
    ),
    "sqlserver-standard": LicenceModel(
        "sqlserver-standard",
        "core licence",
        "SQL Server per core: all physical cores, at least 4 per processor, in 2-core packs",
    ),
    "oracle-enterprise": LicenceModel(
        "oracle-enterprise",
        "processor licence",
        "Oracle processor licences: cores x core factor, fractions rounded up",
    ),
    "oracle-standard2": LicenceModel(
        "oracle-standard2",
        "processor licence",
        "Oracle SE2: one processor licence per occupied socket, at most 2 sockets",
    ),
    "none": LicenceModel("none", "licence", "no per-server database licence"),
}


def get_model(name: str) -> LicenceModel:
    """The licence model by name, or a UserError listing the known ones."""
    model = MODELS.get(str(name).strip().lower())
    if model is None:
        raise UserError(f"unknown licence model {name!r}; use one of {', '.join(MODELS)}")
    return model


def sqlserver_core_licences(sockets: int, cores_per_server: int) -> int:
    """Core licences for one server: max(4, cores per socket) per socket, rounded up to even."""
    per_socket = cores_per_server / sockets
    needed = sum(max(4, math.ceil(per_socket)) for _ in range(sockets))
    return 2 * math.ceil(needed / 2)


def oracle_processor_licences(cores_per_server: int, core_factor: float) -> int:
    """Oracle processor licences for one server: cores x core factor, rounded up."""
    return math.ceil(round(cores_per_server * core_factor, 9))


def licences_per_server(
    model: str, sockets: int, cores_per_server: int, core_factor: float = 0.5
) -> int:
    """How many licences (of the model's unit) one server needs."""
    name = get_model(model).name
    if name.startswith("sqlserver"):
        return sqlserver_core_licences(sockets, cores_per_server)
    if name == "oracle-enterprise":
        return oracle_processor_licences(cores_per_server, core_factor)
    if name == "oracle-standard2":
        if sockets > 2:
            raise UserError(
                f"Oracle SE2 runs on servers of at most 2 sockets (got {sockets}); "
                "use --license oracle-enterprise"
            )
        return sockets
    return 0

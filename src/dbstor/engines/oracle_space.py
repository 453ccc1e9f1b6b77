"""Where an Oracle workspace's files go: a tablespace per data path (its data file in that
directory), a temporary tablespace on the temp path, the schema user that owns the tables;
and redo, which belongs to the whole database, as advice.

The paths are the target's, as the database server sees them: Oracle itself creates the
files (dbstor, on its client, cannot check them). With no data path the schema uses the
database's default tablespace; with one, all tables go there; with several, tables go
round-robin (placement()). Redo logs are shared by every schema of the database, so a
user schema cannot move them: for a log path dbstor writes the statements a DBA would run
(ALTER DATABASE ADD LOGFILE ...) into the run's engine description instead.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import PurePosixPath

FILE_SIZE = "64M"  # each file's first size; AUTOEXTEND grows it while the load runs
NEXT_SIZE = "64M"
REDO_SIZE = "1G"  # the seeds' size of a redo log member
REDO_GROUPS = 3


def space_names(instance: int, data_paths: Sequence[str], temp: bool) -> dict[str, str]:
    """tablespace -> role: DBSTOR_<n>_D<k> per data path, DBSTOR_<n>_TEMP for temp."""
    names = {f"DBSTOR_{instance}_D{k}": "data" for k in range(len(data_paths))}
    if temp:
        names[f"DBSTOR_{instance}_TEMP"] = "temp"
    return names


def file_path(directory: str, instance: int, what: str) -> str:
    """The data or temp file's path on the server: <dir>/dbstor-oracle-<n>-<what>.dbf."""
    return str(PurePosixPath(directory) / f"dbstor-oracle-{instance}-{what.lower()}.dbf")


def _quoted(path: str) -> str:
    return "'" + path.replace("'", "''") + "'"


def create_spaces(instance: int, paths: Mapping[str, Sequence[str]]) -> list[str]:
    """CREATE TABLESPACE per data path and CREATE TEMPORARY TABLESPACE for the temp path."""
    data, temp = list(paths.get("data") or []), list(paths.get("temp") or [])
    out = []
    for k, directory in enumerate(data):
        where = _quoted(file_path(directory, instance, f"d{k}"))
        out.append(
            f"CREATE TABLESPACE DBSTOR_{instance}_D{k} DATAFILE {where} SIZE {FILE_SIZE}"
            f" AUTOEXTEND ON NEXT {NEXT_SIZE} MAXSIZE UNLIMITED"
        )
    if temp:
        where = _quoted(file_path(temp[0], instance, "temp"))
        out.append(
            f"CREATE TEMPORARY TABLESPACE DBSTOR_{instance}_TEMP TEMPFILE {where}"
            f" SIZE {FILE_SIZE} AUTOEXTEND ON NEXT {NEXT_SIZE} MAXSIZE UNLIMITED"
        )
    return out


def create_user(user: str, spaces: Mapping[str, str], default: str) -> str:
    """The schema: a user without a password of its own (nobody logs in as it, 18c+),
    with quota on dbstor's tablespaces (or the database default `default`)."""
    data = [s for s, role in spaces.items() if role == "data"] or [default]
    temp = [s for s, role in spaces.items() if role == "temp"]
    quotas = " ".join(f"QUOTA UNLIMITED ON {s}" for s in data)
    temporary = f" TEMPORARY TABLESPACE {temp[0]}" if temp else ""
    return f"CREATE USER {user} NO AUTHENTICATION DEFAULT TABLESPACE {data[0]}{temporary} {quotas}"


def drop_user(user: str) -> str:
    return f"DROP USER {user} CASCADE"


def drop_space(name: str) -> str:
    """Dropping one of dbstor's tablespaces, run only when it holds no segment."""
    return f"DROP TABLESPACE {name} INCLUDING CONTENTS AND DATAFILES"


def redo_advice(instance: int, log_paths: Sequence[str]) -> list[str]:
    """What a DBA runs to put the redo log on the log path (then switches logfiles and
    drops the old groups): dbstor does not change a database's redo itself."""
    if not log_paths:
        return []
    return [
        f"ALTER DATABASE ADD LOGFILE GROUP {90 + g} "
        f"({_quoted(str(PurePosixPath(log_paths[0]) / f'dbstor-redo-{instance}-{g}.log'))})"
        f" SIZE {REDO_SIZE}"
        for g in range(1, REDO_GROUPS + 1)
    ]

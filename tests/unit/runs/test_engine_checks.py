"""Preflight's engine checks: an external server's DSN with a bad parameter and someone
else's file where a managed engine's go are refused before anything starts, also when the
targets are measured on other hosts (no connection is made from here)."""

from __future__ import annotations

from pathlib import Path

import pytest

from dbstor.errors import UserError
from dbstor.runs.engine_checks import (
    MAX_INSTANCES,
    check_engine_targets,
    check_instances,
    instance_count,
)
from dbstor.runs.study import preflight
from dbstor.study.model import DatabaseSpec, LoadSeries, Study, Target

BAD_DSNS = [
    ("mariadb", "MySQLdb", "mysql://u:s3cret@127.0.0.1:1/?read_timeout=abc", "read_timeout"),
    ("mariadb", "MySQLdb", "mysql://u:s3cret@127.0.0.1:x/", "bad MySQL DSN"),
    ("postgres", "psycopg", "postgresql://u:s3cret@127.0.0.1:1/db?connect_timeout=abc", "connect_timeout"),
    ("postgres", "psycopg", "host=127.0.0.1 port=5x password=s3cret", "port must be a whole"),
    ("postgres", "psycopg", "postgresql://u:s3cret@h/db?sslmode=sometimes", "sslmode must be"),
    ("postgres", "psycopg", "host=h nonsense=1 password=s3cret", "does not parse"),
]  # fmt: skip


@pytest.mark.parametrize(("engine", "driver", "dsn", "needle"), BAD_DSNS)
def test_a_bad_dsn_is_refused_without_connecting(engine, driver, dsn, needle):
    pytest.importorskip(driver)
    study = Study(
        name="s",
        targets=(Target("A", paths=(), clients=("h1",)),),
        profiles=(),
        databases=(DatabaseSpec(engine=engine, dsn=dsn),),
        cluster="127.0.0.1:1",
    )
    with pytest.raises(UserError) as caught:
        preflight(study, local_targets=False)  # measured elsewhere: nothing connects
    assert needle in str(caught.value)
    assert "s3cret" not in str(caught.value)


def test_every_instance_of_a_managed_run_is_checked(tmp_path):
    (tmp_path / "dbstor-sqlite-2.db").write_text("mine\n")
    study = Study(name="s", targets=(Target("A", paths=(tmp_path,)),), profiles=())
    three = DatabaseSpec(series=LoadSeries(kind="instances", values=(1, 3), users=1))
    assert instance_count(three) == 3
    with pytest.raises(UserError, match="dbstor-sqlite-2.db exists and was not created"):
        check_engine_targets(study, three, allow_overwrite=False)
    check_engine_targets(study, three, allow_overwrite=True)
    two = DatabaseSpec(series=LoadSeries(kind="instances", values=(1, 2), users=1))
    check_engine_targets(study, two, allow_overwrite=False)
    assert (tmp_path / "dbstor-sqlite-2.db").read_text() == "mine\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dbstor-sqlite-2.db"]


def _instances(engine: str, most: int, **extra) -> tuple[Study, DatabaseSpec]:
    spec = DatabaseSpec(
        engine=engine, series=LoadSeries(kind="instances", values=(1, most), users=1), **extra
    )
    return Study(name="s", targets=(Target("A", paths=(Path("/nowhere"),)),), profiles=()), spec


def test_instances_have_a_ceiling_with_the_limit_in_the_message(monkeypatch):
    from dbstor.runs import engine_checks

    study, spec = _instances("sqlite", 100_000)
    with pytest.raises(UserError, match="100,000 is too many.*at most 64, e.g. --instances 1,2"):
        check_instances(study, spec, local=True)
    check_instances(*_instances("sqlite", MAX_INSTANCES), local=True)
    monkeypatch.setattr(engine_checks, "host_memory_bytes", lambda: 8 << 30)
    study, spec = _instances("postgres", 10, buffer_bytes=1 << 30)  # 1 GiB + 128 MiB each
    with pytest.raises(UserError, match="server process needing about 1.1 GiB.*at most 7,"):
        check_instances(study, spec, local=True)
    check_instances(study, spec, local=False)  # on other hosts: theirs to hold
    check_instances(*_instances("postgres", 7, buffer_bytes=1 << 30), local=True)
    check_instances(*_instances("postgres", 10, memory_limit_bytes=512 << 20), local=True)

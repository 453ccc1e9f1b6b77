"""What each engine declares it can take of a point's events: a crash needs a managed
server (embedded engines have none, an external one is not dbstor's), a checkpoint needs
the engine's own statement."""

from __future__ import annotations

import pytest

from dbstor.engines.registry import ENGINES, engine_class

# client/server engines (Oracle and SQL Server are refused a managed server before events
# matter: they run external only); the embedded ones have no server
CRASHABLE = {"postgres", "mariadb", "mysql", "oracle", "sqlserver"}
CHECKPOINTS = {
    "postgres": "CHECKPOINT",
    "mariadb": "FLUSH TABLES",
    "mysql": "FLUSH TABLES",
    "sqlite": "PRAGMA wal_checkpoint(TRUNCATE)",
    "duckdb": "CHECKPOINT",
}


@pytest.mark.parametrize("name", list(ENGINES))
def test_a_crash_is_refused_where_there_is_no_server_of_dbstors_to_kill(name):
    engine = engine_class(name)
    managed = engine.crash_refusal(external=False)
    assert (managed is None) == (name in CRASHABLE) == engine.is_server, managed
    if name not in CRASHABLE:
        assert engine.title in managed
    external = engine.crash_refusal(external=True)
    assert external is not None and engine.title in external


@pytest.mark.parametrize("name", list(ENGINES))
def test_a_checkpoint_runs_the_engines_own_statement_or_is_refused(name):
    engine = engine_class(name)
    assert engine.checkpoint_statement == CHECKPOINTS.get(name)
    refusal = engine.checkpoint_refusal(external=False)
    assert (refusal is None) == (name in CHECKPOINTS), refusal

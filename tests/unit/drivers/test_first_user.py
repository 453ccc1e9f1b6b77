"""Users numbered from first_user: client hosts sharing one server each run their own
numbers (real SQLite, a workload that records which user numbers connected)."""

from typing import ClassVar

import pytest

from dbstor.drivers.processes import UserLoad, run_in_processes
from dbstor.drivers.users import Instance
from dbstor.engines.base import EngineSettings
from dbstor.engines.sqlite import SQLiteEngine
from dbstor.workloads.base import LoadReport, Session, Workload


class _Session(Session):
    def __init__(self, conn):
        self.conn = conn

    def run(self, transaction):
        self.conn.execute("SELECT 1").fetchone()
        self.conn.commit()


class Numbered(Workload):
    name = "numbered"
    title = "numbered"
    description = "records each user's number"
    source = "tests"
    mix: ClassVar[dict[str, float]] = {"read": 100.0}
    dialects = ("sqlite",)

    def create(self, engine, say):
        conn = engine.connect()
        conn.execute("CREATE TABLE seen (user INTEGER)")
        conn.commit()
        conn.close()
        return LoadReport(rows=0, seconds=0.0)

    def session(self, engine, connection, user):
        connection.execute("INSERT INTO seen VALUES (?)", (user,))
        connection.commit()
        return _Session(connection)


@pytest.mark.parametrize("processes", [1, 2])
def test_users_are_numbered_from_first_user(tmp_path, processes):
    engine = SQLiteEngine(EngineSettings(paths={"data": [tmp_path]}))
    engine.start()
    try:
        workload = Numbered(1)
        workload.create(engine, print)
        result = run_in_processes(
            UserLoad.of([Instance(engine, workload)], 3, 0.0, 0.3, first_user=5), processes
        )
        assert result.fatal is None
        seen = engine.connect().execute("SELECT user FROM seen").fetchall()
        assert sorted(u for (u,) in seen) == [5, 6, 7]
    finally:
        engine.stop()

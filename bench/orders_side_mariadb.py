"""MariaDB's side of bench_orders_hammerdb.py: the managed server both tools share.

One managed MariaDB (innodb_buffer_pool_size 1 GB, as PostgreSQL's shared_buffers) holds
dbstor's orders database and HammerDB's tpcc database. `client_bound` sets
`innodb_flush_log_at_trx_commit = 2` (the redo log written at commit, flushed once a
second), so neither tool waits on the flush and the bound is CPU (the issue-39 regime).
The side counts what the database did: New-Orders committed (sum(d_next_o_id)), the
server's CPU (mariadbd from /proc), the redo it wrote (Innodb_os_log_written) and its
fsyncs (Innodb_data_fsyncs: every InnoDB file's, 10.11 has no redo-only count). HammerDB
connects over the server's socket as an account of its own (the managed root has no
password and HammerDB's driver wants one).
"""

from __future__ import annotations

import secrets
from pathlib import Path

from dbstor.engines.base import EngineSettings
from dbstor.engines.mariadb import MariaDBEngine
from orders_side_pg import BUFFER, proc_cpu_s

HAMMERDB_USER = "hammerdb"


class MariaDBSide:
    """The managed MariaDB server, its counters and HammerDB's connection flags."""

    title = "MariaDB"
    counter_names = ("redo bytes", "InnoDB fsyncs")

    def __init__(self, base: Path, client_bound: bool):
        self.client_bound = client_bound
        self.engine = MariaDBEngine(
            EngineSettings(paths={"data": [base / "data"]}, buffer_bytes=BUFFER)
        )
        self.password = secrets.token_hex(12)  # a throwaway server's throwaway password

    def _sql(self, statement: str, args: tuple = ()) -> list[tuple]:
        with self.engine._admin() as conn, conn.cursor() as cur:
            cur.execute(statement, args)
            return list(cur.fetchall())

    def start(self) -> None:
        self.engine.start()
        self._sql(f"CREATE USER '{HAMMERDB_USER}'@'localhost' IDENTIFIED BY %s", (self.password,))
        self._sql(f"GRANT ALL PRIVILEGES ON *.* TO '{HAMMERDB_USER}'@'localhost' WITH GRANT OPTION")
        if self.client_bound:
            self._sql("SET GLOBAL innodb_flush_log_at_trx_commit = 2")

    def stop(self) -> None:
        self.engine.stop()

    def setting(self) -> str:
        value = self._sql("SELECT @@innodb_flush_log_at_trx_commit")[0][0]
        return f"innodb_flush_log_at_trx_commit = {value}"

    def server_cpu_s(self) -> float:
        return proc_cpu_s(self.engine.server.pids())

    def committed(self, database: str) -> int:
        """New-Orders committed so far in this database: its districts' next order ids."""
        return int(self._sql(f"SELECT sum(d_next_o_id) FROM `{database}`.district")[0][0])

    def counters(self) -> tuple[int, ...]:
        found = dict(
            self._sql(
                "SHOW GLOBAL STATUS WHERE Variable_name IN "
                "('Innodb_os_log_written', 'Innodb_data_fsyncs')"
            )
        )
        return int(found["Innodb_os_log_written"]), int(found["Innodb_data_fsyncs"])

    def hammerdb_flags(self) -> list[str]:
        assert self.engine.sockdir is not None
        return [
            "--engine", "mariadb", "--socket", str(self.engine.sockdir / "mysqld.sock"),
            "--host", "127.0.0.1", "--port", str(self.engine.port),
            "--superuser", HAMMERDB_USER, "--password", self.password,
        ]  # fmt: skip

    def settle(self) -> None:
        """Fresh statistics on both databases' tables."""
        for database in ("dbstor", "tpcc"):
            tables = [t for (t,) in self._sql(f"SHOW TABLES FROM `{database}`")]
            self._sql("ANALYZE TABLE " + ", ".join(f"`{database}`.`{t}`" for t in tables))

    def checkpoint(self) -> None:
        self._sql("FLUSH TABLES")

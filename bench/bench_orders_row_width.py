"""Row width and table size of the orders workload as built, on managed PostgreSQL and
MariaDB and on SQLite: what the column types cost in bytes (docs/orders.md, "Column types").

Builds the orders database at --scale warehouses on each engine, then prints per table
the rows, the mean bytes a row takes and the table's size, each as the engine itself
reports it:

- PostgreSQL: avg(pg_column_size(t.*)) over every row (the tuple's data and its 24-byte
  header, no line pointer or page overhead), pg_relation_size (the heap) and
  pg_total_relation_size (heap, keys, indexes, TOAST); and pg_database_size.
- MariaDB: information_schema.TABLES after ANALYZE TABLE: AVG_ROW_LENGTH, DATA_LENGTH
  (the clustered primary key's pages) and INDEX_LENGTH (secondary indexes); InnoDB's
  estimates, in whole pages.
- SQLite: the dbstat virtual table: the records' bytes in the table's leaf pages per row
  (payload), the table's pages, and its pages with its indexes'.

With --transactions N, on PostgreSQL also the WAL one session writes for N transactions of
the mix (stored procedures, seeded inputs: the same requests at every commit), after as many
unmeasured ones, with full_page_writes and autovacuum off so that the figure is the
transactions' own log records, the part the rows' width sets (pg_current_wal_lsn before and
after).

    .venv/bin/python bench/bench_orders_row_width.py --scale 1 \
        [--engines postgres,mariadb,sqlite] [--transactions 3000]

Run it against two commits' code to compare types, e.g. the older one's src unpacked apart:
`git archive COMMIT src | tar -x -C /tmp/old` and `PYTHONPATH=/tmp/old/src` in front of the
same command. The figures are the engines' own, the tables' columns the commit's.
"""

from __future__ import annotations

import argparse
import random
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

from dbstor.engines.base import Engine, EngineSettings
from dbstor.engines.registry import engine_class
from dbstor.workloads.orders import MIX, OrdersWorkload
from dbstor.workloads.orders.schema import TABLES

BUFFER = {"postgres": 256 << 20, "mariadb": 512 << 20, "sqlite": None}


def fetch(conn: Any, sql: str) -> list[tuple]:
    cur = conn.cursor()
    cur.execute(sql)
    out = list(cur.fetchall())
    conn.commit()
    return out


def postgres_sizes(conn: Any) -> dict[str, tuple[int, float, int, int]]:
    out = {}
    for t in TABLES:
        rows, width = fetch(conn, f"SELECT count(*), avg(pg_column_size(x.*)) FROM {t.name} x")[0]
        heap, total = fetch(
            conn, f"SELECT pg_relation_size('{t.name}'), pg_total_relation_size('{t.name}')"
        )[0]
        out[t.name] = (int(rows), float(width), int(heap), int(total))
    database = fetch(conn, "SELECT pg_database_size(current_database())")[0][0]
    print(f"postgres: pg_database_size {database / 1e6:.2f} MB (the catalogs included)")
    return out


def mariadb_sizes(conn: Any) -> dict[str, tuple[int, float, int, int]]:
    fetch(conn, "ANALYZE TABLE " + ", ".join(t.name for t in TABLES))
    out = {}
    for t in TABLES:
        rows = fetch(conn, f"SELECT count(*) FROM {t.name}")[0][0]
        width, data, index = fetch(
            conn,
            "SELECT AVG_ROW_LENGTH, DATA_LENGTH, INDEX_LENGTH FROM information_schema.TABLES"
            f" WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = '{t.name}'",
        )[0]
        out[t.name] = (int(rows), float(width), int(data), int(data) + int(index))
    return out


def sqlite_sizes(conn: Any) -> dict[str, tuple[int, float, int, int]]:
    out = {}
    for t in TABLES:
        rows = fetch(conn, f"SELECT count(*) FROM {t.name}")[0][0]
        payload, pages = fetch(
            conn,
            "SELECT SUM(CASE WHEN pagetype = 'leaf' THEN payload ELSE 0 END), SUM(pgsize)"
            f" FROM dbstat WHERE name = '{t.name}'",
        )[0]
        total = fetch(
            conn,
            "SELECT SUM(pgsize) FROM dbstat WHERE name IN"
            f" (SELECT name FROM sqlite_master WHERE tbl_name = '{t.name}')",
        )[0][0]
        out[t.name] = (int(rows), payload / rows, int(pages), int(total))
    return out


SIZES = {"postgres": postgres_sizes, "mariadb": mariadb_sizes, "sqlite": sqlite_sizes}


def postgres_wal(engine: Engine, workload: OrdersWorkload, count: int) -> None:
    """WAL bytes and records per transaction of the mix, full_page_writes off."""
    admin = engine.connect()
    conn = engine.connect()
    try:
        admin.autocommit = True
        admin.execute("ALTER SYSTEM SET full_page_writes = off")
        admin.execute("ALTER SYSTEM SET autovacuum = off")
        admin.execute("SELECT pg_reload_conf()")
        time.sleep(1)
        session = workload.session(engine, conn, 0)
        names = random.Random(1).choices(list(MIX), list(MIX.values()), k=2 * count)
        for name in names[:count]:  # unmeasured: the same pages warm at every commit
            session.run(name)
        start = admin.execute("SELECT pg_current_wal_lsn()").fetchone()[0]
        for name in names[count:]:
            session.run(name)
        written = admin.execute(f"SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '{start}')")
        wal = int(written.fetchone()[0])
        settings = admin.execute(
            "SELECT string_agg(name || ' ' || setting, ', ') FROM pg_settings"
            " WHERE name IN ('full_page_writes', 'autovacuum')"
        ).fetchone()[0]
    finally:
        conn.close()
        admin.close()
    print(
        f"postgres: {count:,} transactions of the mix: {wal / count:,.0f} WAL bytes a transaction"
    )
    print(f"postgres: ({settings})")


def measure(name: str, scale: int, transactions: int = 0) -> None:
    cls = engine_class(name)
    base = Path(tempfile.mkdtemp(prefix=f"dbstor-rowwidth-{name}-"))
    base.chmod(0o711)
    (base / "data").mkdir()
    engine: Engine = cls(EngineSettings(paths={"data": [base / "data"]}, buffer_bytes=BUFFER[name]))
    engine.start()
    try:
        workload = OrdersWorkload(scale, seed=1)
        workload.create(engine, lambda m: None)
        conn = engine.connect()
        try:
            sizes = SIZES[name](conn)
        finally:
            conn.close()
        if transactions and name == "postgres":
            postgres_wal(engine, workload, transactions)
    finally:
        engine.stop()
        shutil.rmtree(base, ignore_errors=True)
    heading = {"postgres": "heap", "mariadb": "data", "sqlite": "table"}[name]
    print(f"\n{name}, {scale} warehouse(s)")
    print(f"{'table':<11} {'rows':>9} {'bytes/row':>10} {heading + ' MB':>9} {'total MB':>9}")
    total_data = total_all = 0
    for table, (rows, width, data, everything) in sizes.items():
        total_data += data
        total_all += everything
        print(f"{table:<11} {rows:>9,} {width:>10.1f} {data / 1e6:>9.2f} {everything / 1e6:>9.2f}")
    print(f"{'all':<11} {'':>9} {'':>10} {total_data / 1e6:>9.2f} {total_all / 1e6:>9.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scale", type=int, default=1)
    parser.add_argument("--engines", default="postgres,mariadb")
    parser.add_argument("--transactions", type=int, default=0, help="PostgreSQL's WAL per txn")
    args = parser.parse_args()
    for name in args.engines.split(","):
        measure(name, args.scale, args.transactions)


if __name__ == "__main__":
    main()

"""A backend's CPU per call: a PL/pgSQL procedure by CALL against the same body as a function
by SELECT (why orders' Payment, Order-Status, Delivery and Stock-Level are functions).

One managed PostgreSQL 15, one table of 100,000 rows, one autocommit connection; the body
reads one row by key and updates another (a commit with a WAL flush each call). Each way
is a statement prepared once and run `--calls` times through libpq with a random key; the
backend's CPU (utime + stime from /proc) over the calls, per call. The ways take turns for
`--rounds` rounds; printed: each round, then the medians.

    .venv/bin/python bench/bench_call_vs_select.py --calls 20000 --rounds 3
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from dbstor.engines.base import EngineSettings
from dbstor.engines.postgres import PostgresEngine

BODY = """
DECLARE v int; w int;
BEGIN
    SELECT b INTO v FROM t WHERE a = p_a;
    UPDATE t SET b = b + 1 WHERE a = p_a + 1 RETURNING b INTO w;
    out_v := v + w;
END"""

WAYS = {
    "CALL procedure": b"CALL p($1)",
    "SELECT * FROM function": b"SELECT out_v FROM f($1)",
    "SELECT function": b"SELECT f($1)",
}


def backend_cpu_s(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=20_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--dir", type=Path, default=Path("/var/tmp"))
    args = parser.parse_args()
    base = Path(tempfile.mkdtemp(prefix="dbstor-bench-call-", dir=args.dir))
    base.chmod(0o711)
    (base / "data").mkdir()
    engine = PostgresEngine(EngineSettings(paths={"data": [base / "data"]}, buffer_bytes=256 << 20))
    seen: dict[str, list[float]] = {way: [] for way in WAYS}
    try:
        engine.start()
        conn = engine.connect()
        conn.autocommit = True
        conn.execute("CREATE TABLE t (a int PRIMARY KEY, b int)")
        conn.execute("INSERT INTO t SELECT g, g FROM generate_series(1, 100000) g")
        conn.execute(
            f"CREATE PROCEDURE p(p_a int, INOUT out_v int DEFAULT NULL)"
            f" LANGUAGE plpgsql AS $${BODY} $$"
        )
        conn.execute(f"CREATE FUNCTION f(p_a int, OUT out_v int) LANGUAGE plpgsql AS $${BODY} $$")
        conn.execute("VACUUM ANALYZE t")
        pid = conn.execute("SELECT pg_backend_pid()").fetchone()[0]
        pg = conn.pgconn
        for number, text in enumerate(WAYS.values()):
            pg.prepare(b"w%d" % number, text)
        rng = random.Random(1)
        for round_ in range(args.rounds):
            for number, way in enumerate(WAYS):
                cpu, wall = backend_cpu_s(pid), time.perf_counter()
                for _ in range(args.calls):
                    result = pg.exec_prepared(b"w%d" % number, [b"%d" % rng.randint(1, 99_998)])
                    if result.status != 2:  # TUPLES_OK
                        raise SystemExit(result.error_message.decode())
                us = (backend_cpu_s(pid) - cpu) / args.calls * 1e6
                seen[way].append(us)
                wall_us = (time.perf_counter() - wall) / args.calls * 1e6
                print(
                    f"round {round_ + 1}, {way}: backend {us:.1f} us CPU a call, {wall_us:.1f} us"
                )
        conn.close()
    finally:
        engine.stop()
        shutil.rmtree(base, ignore_errors=True)
    print("\n| way | backend us CPU a call (median) |\n|---|---:|")
    for way, values in seen.items():
        print(f"| {way} | {statistics.median(values):.1f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Load speed of the dss workload beside the hand path, side by side in one run.

DuckDB: dbstor's generate-and-load (DssWorkload.create on a managed DuckDB engine:
tpchgen-cli Parquet into a staging folder, typed tables filled with INSERT ... SELECT
FROM read_parquet, CHECKPOINT, ANALYZE, staging removed) against the hand path
(tpchgen-cli parquet into a folder, then duckdb CREATE TABLE ... AS SELECT * FROM
read_parquet for the eight files, CHECKPOINT). PostgreSQL (--engines duckdb,postgres):
dbstor's path on a managed cluster (tpchgen-cli CSV in parts, COPY on one connection per
CPU, primary keys and foreign-key indexes, VACUUM (ANALYZE)) against the hand path on a
cluster of the same settings (tpchgen-cli csv, one psql session: \\copy per table, then
the same keys and indexes, VACUUM (ANALYZE): the end state dbstor's path leaves).

Wall time and CPU time (user + system of the process's threads and its children) are both
reported: on a shared machine the CPU time is the steadier measure of the work done.

Both paths write to the same directory (a fresh subfolder per run, removed after it) and
alternate (A B B A ...), so that drift on a shared machine falls on both. The verdict is
the ratio of the medians: dbstor's over the hand path's.

    .venv/bin/python bench/bench_dss_load.py --scale 1 --rounds 3 --dir /var/tmp/dss-bench
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from dbstor.engines.base import EngineSettings
from dbstor.engines.duckdb import DuckDBEngine
from dbstor.engines.postgres import PostgresEngine, find_bindir
from dbstor.workloads.dss import DssWorkload
from dbstor.workloads.dss import schema as dss_schema

LIMIT = 1.10  # dbstor may be at most 10% slower than the hand path
GENERATOR = Path(sys.executable).parent / "tpchgen-cli"
TABLES = ("region", "nation", "supplier", "part", "partsupp", "customer", "orders", "lineitem")


def quiet(_: str) -> None:
    pass


def cpu_seconds() -> float:
    """CPU time (user + system) of this process's threads and its waited-for children."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def scale_text(scale: float) -> str:
    return str(int(scale)) if float(scale).is_integer() else repr(scale)


def generate(fmt: str, scale: float, out: Path) -> float:
    started = time.monotonic()
    subprocess.run(
        [str(GENERATOR), fmt, "--scale-factor", scale_text(scale), "--output-dir", str(out)],
        check=True,
        capture_output=True,
    )
    return time.monotonic() - started


def folder_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


# --- DuckDB ------------------------------------------------------------------------------


def dbstor_duckdb(scale: float, work: Path) -> dict[str, float]:
    engine = DuckDBEngine(EngineSettings(paths={"data": [work]}))
    started = time.monotonic()
    engine.start()
    try:
        workload = DssWorkload(scale, seed=1, options={})
        report = workload.create(engine, quiet)
        seconds = time.monotonic() - started
        size = sum(f.stat().st_size for f in engine.files)
    finally:
        engine.stop()
    return {"seconds": seconds, "generate_s": workload.load_seconds.get("generate_s", 0.0),
            "rows": report.rows, "db_bytes": size}  # fmt: skip


def hand_duckdb(scale: float, work: Path) -> dict[str, float]:
    import duckdb

    started = time.monotonic()
    stage = work / "parquet"
    gen = generate("parquet", scale, stage)
    db = duckdb.connect(str(work / "hand.duckdb"))
    rows = 0
    for table in TABLES:
        db.execute(f"CREATE TABLE {table} AS SELECT * FROM read_parquet('{stage}/{table}.parquet')")
        rows += db.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
    db.execute("CHECKPOINT")
    db.close()
    shutil.rmtree(stage)
    seconds = time.monotonic() - started
    return {"seconds": seconds, "generate_s": gen, "rows": rows,
            "db_bytes": (work / "hand.duckdb").stat().st_size}  # fmt: skip


# --- PostgreSQL --------------------------------------------------------------------------


class Cluster:
    """A managed PostgreSQL cluster of dbstor's settings, for the hand path's psql."""

    def __init__(self, directory: Path):
        self.engine = PostgresEngine(EngineSettings(paths={"data": [directory]}))
        self.engine.start()

    def psql(self, script: str) -> None:
        psql = find_bindir() / "psql"  # type: ignore[operator]
        subprocess.run(
            [str(psql), "-X", "-q", "-v", "ON_ERROR_STOP=1", "-h", str(self.engine.sockdir),
             "-p", str(self.engine.port), "-U", "dbstor", "-d", "dbstor"],
            input=script, text=True, check=True, capture_output=True,
        )  # fmt: skip

    def stop(self) -> None:
        self.engine.stop()


def dbstor_postgres(scale: float, work: Path) -> dict[str, float]:
    engine = PostgresEngine(EngineSettings(paths={"data": [work]}))
    engine.start()
    try:
        started = time.monotonic()
        workload = DssWorkload(scale, seed=1, options={})
        report = workload.create(engine, quiet)
        seconds = time.monotonic() - started
    finally:
        engine.stop()
    return {"seconds": seconds, "generate_s": workload.load_seconds.get("generate_s", 0.0),
            "rows": report.rows}  # fmt: skip


def hand_postgres(scale: float, work: Path) -> dict[str, float]:
    cluster = Cluster(work)
    try:
        started = time.monotonic()
        stage = work / "csv"
        stage.mkdir()
        os.chmod(stage, 0o755)
        gen = generate("csv", scale, stage)
        lines = ["SET maintenance_work_mem = '256MB';"]  # as dbstor's index builds
        for table in dss_schema.TABLES:
            lines.append(dss_schema.create_table(table, "postgres", scale, "", "") + ";")
            lines.append(
                f"\\copy {table.name} ({', '.join(table.column_names)}) FROM "
                f"'{stage}/{table.name}.csv' WITH (FORMAT csv, HEADER true)"
            )
        for table in dss_schema.TABLES:
            lines.append(dss_schema.add_primary_key(table, "postgres", "") + ";")
            lines += [s + ";" for s in dss_schema.create_foreign_key_indexes(table, "postgres", "")]
        lines.append("VACUUM (ANALYZE);")  # the end state dbstor's path leaves
        cluster.psql("\n".join(lines) + "\n")
        shutil.rmtree(stage)
        seconds = time.monotonic() - started
    finally:
        cluster.stop()
    return {"seconds": seconds, "generate_s": gen}


# --- the comparison ----------------------------------------------------------------------


def alternate(
    paths: dict[str, Callable[[float, Path], dict[str, float]]],
    scale: float,
    rounds: int,
    parent: Path,
) -> dict[str, list[dict[str, float]]]:
    """Run the paths A B, B A, A B ... `rounds` times each, in fresh subfolders."""
    names = list(paths)
    results: dict[str, list[dict[str, float]]] = {n: [] for n in names}
    for r in range(rounds):
        for name in names if r % 2 == 0 else reversed(names):
            work = Path(tempfile.mkdtemp(prefix=f"{name}-", dir=parent))
            os.chmod(work, 0o711)
            cpu = cpu_seconds()
            try:
                result = paths[name](scale, work)
                result["cpu_s"] = cpu_seconds() - cpu
            finally:
                shutil.rmtree(work, ignore_errors=True)
            results[name].append(result)
            gen = result.get("generate_s", 0.0)
            print(
                f"  round {r + 1}: {name:<8} {result['seconds']:7.2f} s (generate {gen:.1f} s, "
                f"load and the rest {result['seconds'] - gen:.1f} s), "
                f"CPU {result['cpu_s']:.1f} s, load average {os.getloadavg()[0]:.1f}",
                flush=True,
            )
    return results


def report(engine: str, results: dict[str, list[dict[str, float]]]) -> bool:
    dbstor = statistics.median(r["seconds"] for r in results["dbstor"])
    hand = statistics.median(r["seconds"] for r in results["hand"])
    ratio = dbstor / hand
    runs = {n: ", ".join(f"{r['seconds']:.1f}" for r in rs) for n, rs in results.items()}
    cpu = {n: statistics.median(r["cpu_s"] for r in rs) for n, rs in results.items()}
    print(f"{engine}: dbstor median {dbstor:.2f} s [{runs['dbstor']}], hand median "
          f"{hand:.2f} s [{runs['hand']}], ratio {ratio:.3f} "
          f"({'PASS' if ratio <= LIMIT else 'FAIL'}: at most {LIMIT:.2f}); median CPU "
          f"seconds dbstor {cpu['dbstor']:.1f}, hand {cpu['hand']:.1f} "
          f"(ratio {cpu['dbstor'] / cpu['hand']:.3f})")  # fmt: skip
    return ratio <= LIMIT


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scale", type=float, default=1.0, help="TPC-H scale factor (1)")
    parser.add_argument("--rounds", type=int, default=3, help="runs of each path (3)")
    parser.add_argument("--engines", default="duckdb", help="duckdb and/or postgres")
    parser.add_argument("--dir", type=Path, default=None, help="where to write (a temp dir)")
    args = parser.parse_args()
    parent = args.dir or Path(tempfile.mkdtemp(prefix="dbstor-dss-bench-"))
    parent.mkdir(parents=True, exist_ok=True)
    os.chmod(parent, 0o711)
    ok = True
    for engine in args.engines.split(","):
        paths = {
            "duckdb": {"dbstor": dbstor_duckdb, "hand": hand_duckdb},
            "postgres": {"dbstor": dbstor_postgres, "hand": hand_postgres},
        }[engine]
        print(f"{engine}, scale factor {scale_text(args.scale)}, {args.rounds} rounds:")
        ok = report(engine, alternate(paths, args.scale, args.rounds, parent)) and ok
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

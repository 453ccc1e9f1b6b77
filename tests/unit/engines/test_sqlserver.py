"""SQL Server without a server: the DSN and its password, error classes and their one-line
messages (a real pymssql connect to a port where nothing listens), and the counters'
arithmetic on recorded output of the views (tests/fixtures/sqlserver/README.md)."""

from __future__ import annotations

import csv
import json
import socket
from pathlib import Path

import pymssql
import pytest

from dbstor.analysis.placement.inputs import parse_run
from dbstor.engines.base import EngineSettings, ErrorKind
from dbstor.engines.registry import all_engines, engine_class
from dbstor.engines.sqlserver import (
    VERIFIED,
    SqlServerEngine,
    create_database_sql,
    driver_line,
    error_code,
)
from dbstor.engines.sqlserver_dsn import PASSWORD_ENV, parse_dsn
from dbstor.engines.sqlserver_stats import (
    AVERAGE_BULK,
    counter_queries,
    file_objects,
    objects_window,
    perf_values,
    ratio,
    waits,
    waits_window,
    window,
)
from dbstor.errors import UserError

FIXTURES = Path(__file__).parents[2] / "fixtures"
SECRET = "Zq9-ms-s3cret"


def rows(name: str) -> list[dict[str, str]]:
    with (FIXTURES / name).open(newline="") as handle:
        return list(csv.DictReader(handle))


def engine(dsn: str, **paths: list[Path]) -> SqlServerEngine:
    return SqlServerEngine(EngineSettings(dsn=dsn, paths=dict(paths)))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


# --- the DSN and the password ----------------------------------------------------------


def test_the_dsn_gives_pymssqls_arguments_and_the_password_comes_from_the_environment():
    args = parse_dsn("mssql://bench@db.example:1500/tpce?login_timeout=7", {PASSWORD_ENV: SECRET})
    assert args == {
        "server": "db.example",
        "port": 1500,
        "user": "bench",
        "password": SECRET,
        "database": "tpce",
        "login_timeout": 7,
    }
    assert parse_dsn("sqlserver://sa@h/", {})["port"] == 1433  # the default port, master
    assert parse_dsn("mssql://sa:p%40ss@h/", {PASSWORD_ENV: "other"})["password"] == "p@ss"


@pytest.mark.parametrize(
    ("dsn", "needle"),
    [
        ("postgresql://sa@h/db", "write mssql://user@host:1433/database"),
        ("mssql://h:1433/db", "names no login"),
        (f"mssql://sa:{SECRET}@h:99999/db", "Port out of range"),
        (f"mssql://sa:{SECRET}@h/db?timeout=soon", "timeout must be whole seconds"),
        (f"mssql://sa:{SECRET}@h/db?encrypt=yes", "unknown parameter 'encrypt'"),
    ],
)
def test_a_bad_dsn_is_one_line_naming_the_fix_never_the_password(dsn, needle):
    with pytest.raises(UserError) as caught:
        engine(dsn).check_dsn()
    message = str(caught.value)
    assert needle in message and SECRET not in message and "\n" not in message


def test_no_password_anywhere_is_refused_before_anything_is_contacted(monkeypatch):
    monkeypatch.delenv(PASSWORD_ENV, raising=False)
    with pytest.raises(UserError, match=f"set {PASSWORD_ENV}"):
        engine("mssql://sa@127.0.0.1:1/db").check_dsn()
    monkeypatch.setenv(PASSWORD_ENV, SECRET)
    engine("mssql://sa@127.0.0.1:1/db").check_dsn()  # no error, and nothing listens there


def test_a_real_connect_where_nothing_listens_is_one_line_without_the_password(monkeypatch):
    """pymssql's own FreeTDS connects for real to a free 127.0.0.1 port."""
    monkeypatch.setenv(PASSWORD_ENV, SECRET)
    port = free_port()
    eng = engine(f"mssql://sa@127.0.0.1:{port}/db")
    with pytest.raises(UserError) as caught:
        eng.check_reachable()
    line = str(caught.value)
    assert line.startswith(f"cannot connect to SQL Server at 127.0.0.1:{port}: Unable to connect")
    assert "DB-Lib error message" not in line and "\n" not in line and SECRET not in line
    with pytest.raises(pymssql.Error) as raw:  # a user's connection: the driver's own error
        eng.connect()
    assert eng.classify(raw.value) == ErrorKind.FATAL
    assert eng.lost_server(raw.value) == f"the connection to SQL Server at 127.0.0.1:{port} broke"
    assert SECRET not in json.dumps(eng.describe())


def test_error_classes():
    eng = engine("mssql://sa@h/db")
    deadlock = pymssql.OperationalError((1205, b"Transaction (Process ID 52) was deadlocked"))
    assert error_code(deadlock) == 1205 and eng.classify(deadlock) == ErrorKind.RETRY
    assert eng.classify(pymssql.OperationalError((1222, b"Lock request time out"))) == "retry"
    assert eng.classify(pymssql.OperationalError((9002, b"log full"))) == ErrorKind.FATAL
    duplicate = pymssql.IntegrityError((2627, b"Violation of PRIMARY KEY constraint"))
    assert eng.classify(duplicate) == ErrorKind.ERROR
    assert driver_line(deadlock) == "Transaction (Process ID 52) was deadlocked"


# --- the engine as dbstor lists and lays it out ------------------------------------------


def test_listed_as_external_only_and_honest_about_what_was_verified():
    assert engine_class("sqlserver") is SqlServerEngine is engine_class("mssql")
    found = {name: (dialect, a) for name, _, dialect, a in all_engines()}
    dialect, availability = found["sqlserver"]
    assert dialect == "tsql" and availability.usable and not availability.managed
    assert VERIFIED == (
        "SQL parsed and counters tested on recorded output; not run against a live server here"
    )
    assert availability.reason.endswith(VERIFIED)
    docs = (Path(__file__).parents[3] / "docs" / "engines.md").read_text()
    assert VERIFIED in docs


def test_filegroups_on_the_data_paths_and_the_log_on_its_own():
    paths = {"data": [Path("/d1"), Path("/d2"), Path("/d3")], "log": [Path("/l")]}
    sql = create_database_sql("dbstor", paths)
    assert sql == (
        "CREATE DATABASE [dbstor] ON PRIMARY (NAME = N'dbstor_d0', FILENAME = N'/d1/dbstor_d0.mdf'), "
        "FILEGROUP [dbstor_d1] (NAME = N'dbstor_d1', FILENAME = N'/d2/dbstor_d1.ndf'), "
        "FILEGROUP [dbstor_d2] (NAME = N'dbstor_d2', FILENAME = N'/d3/dbstor_d2.ndf') "
        "LOG ON (NAME = N'dbstor_log', FILENAME = N'/l/dbstor_log.ldf')"
    )
    assert create_database_sql("dbstor_1", {}) == "CREATE DATABASE [dbstor_1]"
    eng = engine("mssql://sa@h/db", data=paths["data"], temp=[Path("/t")])
    assert [eng.placement(i) for i in range(4)] == [
        ("", ""),
        ("", " ON [dbstor_d1]"),
        ("", " ON [dbstor_d2]"),
        ("", ""),
    ]
    assert "/t" in eng.describe()["tempdb"]


def test_every_counter_query_names_the_permission_it_needs():
    queries = counter_queries("dbstor")
    assert [q.name for q in queries] == [
        "per-file I/O",
        "wait statistics",
        "buffer and batch counters",
    ]
    assert all("VIEW SERVER STATE" in q.needs and "2022" in q.needs for q in queries)
    assert engine("mssql://sa@h/db").counter_queries() == queries
    assert "DB_ID(N'dbstor')" in queries[0].sql and "%s" not in queries[0].sql


# --- counters on recorded output --------------------------------------------------------


def perf_rows(records: list[dict[str, str]]) -> list[tuple[str, str, str, str, str]]:
    keys = ("object_name", "counter_name", "instance_name", "cntr_value", "cntr_type")
    return [tuple(r[k] for k in keys) for r in records]


def test_the_buffer_cache_hit_ratio_is_its_counter_over_its_base():
    values = perf_values(perf_rows(rows("sqlserver/perf_hit_ratio.csv")))
    assert ratio(values, "Buffer cache hit ratio") == pytest.approx(0.9183, abs=5e-5)
    del values["Buffer cache hit ratio base"]
    assert ratio(values, "Buffer cache hit ratio") is None  # never the raw 2911


def test_a_window_differences_cumulative_counters_and_averages_over_their_base():
    recorded = rows("sqlserver/perf_latch_wait_window.csv")
    first = perf_values(perf_rows([r for r in recorded if r["sample"] == "1"]))
    second = perf_values(perf_rows([r for r in recorded if r["sample"] == "2"]))
    assert second["Average Latch Wait Time (ms)"][1] == AVERAGE_BULK
    assert window(first, second) == {"Average Latch Wait Time (ms)": pytest.approx(15.0)}
    assert window(second, first) == {"Average Latch Wait Time (ms)": None}  # went back


def test_wait_statistics_over_a_window():
    after = waits(tuple(r.values()) for r in rows("sqlserver/waits_2005_express.csv"))
    figures = waits_window({}, after)  # cumulative since the instance started
    assert figures["PAGEIOLATCH_SH"] == {
        "waits": 178,
        "wait_ms": 327,
        "mean_ms": pytest.approx(327 / 178),
    }
    assert figures["PAGEIOLATCH_NL"]["mean_ms"] is None  # no wait ended: no mean, never 0
    assert waits_window(after, {"PAGEIOLATCH_SH": (0.0, 0.0)})["PAGEIOLATCH_SH"]["waits"] is None


def test_per_file_io_feeds_the_placement_advisor(tmp_path):
    """h6080 Figure 5's recorded files through file_objects and a window from a fresh
    database (every counter 0) into results.json, read back as `dbstor advise RUN` reads it.
    The stall split is constructed (README): the total goes in io_stall_read_ms."""
    recorded = rows("h6080_filestats.csv")
    after = file_objects(
        (
            r["FileName"],
            "ROWS",
            r["FilePath"],
            r["NumberReads"],
            r["NumberWrites"],
            r["BytesRead"],
            r["BytesWritten"],
            r["IOStallMS"],
            0,
            int(r["FileSize"]) * 8192,  # 8 KiB pages, as `dbstor advise --sqlserver` reads it
        )
        for r in recorded
    )
    created = file_objects((o.name, "ROWS", "", 0, 0, 0, 0, 0, 0, o.size_bytes) for o in after)
    objects = objects_window(created, after)
    results = {"engine_stats": {"objects": [vars(o) for o in objects]}}
    (tmp_path / "results.json").write_text(json.dumps(results))
    read = {o.name: o for o in parse_run(tmp_path)}
    assert read["Broker1"].reads == 10025210 and read["Broker1"].writes == 1229382
    assert read["Customer1"].total_stall_ms() == 10813011
    assert sum(o.reads for o in read.values()) == sum(int(r["NumberReads"]) for r in recorded)
    assert objects_window(after, created)[0].reads is None  # a counter that went back

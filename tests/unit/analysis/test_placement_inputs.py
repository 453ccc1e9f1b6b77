"""Placement inputs: SQL Server and Oracle exports, snapshots and deltas, dbstor runs,
tier latencies from runs, DSN masking, and the HTML section."""

import json
import sys
from pathlib import Path

import pytest

from dbstor.analysis.placement.analysis import Tiers, analyse
from dbstor.analysis.placement.inputs import load_files, parse_run, parse_sqlserver
from dbstor.analysis.placement.model import DbObject
from dbstor.analysis.placement.oracle import parse_oracle
from dbstor.analysis.placement.postgres import mask_dsn, scrub
from dbstor.analysis.placement.runs import tier_latency_ms
from dbstor.errors import UserError
from dbstor.report.tools.placement import render_advise_section, render_page
from dbstor.results.model import LatencyStats, Load, Point, Run
from dbstor.results.store import save_run

DMV = (
    "database_name,file_id,name,physical_name,type_desc,size_on_disk_bytes,num_of_reads,"
    "num_of_bytes_read,io_stall_read_ms,num_of_writes,num_of_bytes_written,io_stall_write_ms,"
    "io_stall\n"
)


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_dmv_columns_with_types_and_stalls(tmp_path):
    path = write(
        tmp_path,
        "vfs.csv",
        DMV
        + "app,1,app_data,D:\\app.mdf,ROWS,1073741824,1000,8192000,5000,100,819200,300,5300\n"
        + "app,2,app_log,L:\\app_log.ldf,LOG,536870912,5,40960,10,9000,73728000,900,910\n",
    )
    objects = parse_sqlserver(path).objects
    data, log = objects["app_data"], objects["app_log"]
    assert (data.kind, data.size_bytes, data.reads, data.writes) == ("data", 1 << 30, 1000, 100)
    assert (
        data.read_stall_ms == 5000 and data.write_stall_ms == 300 and data.total_stall_ms() == 5300
    )
    assert log.kind == "log"


def test_old_fn_virtualfilestats_names_pages_and_semicolons(tmp_path):
    text = "\ufeffDbId;FileName;FileSize;NumberReads;NumberWrites;IoStallMS\n7;Orders1;1280;10;20;300\n"
    obj = parse_sqlserver(write(tmp_path, "old.csv", text)).objects["Orders1"]
    assert obj.size_bytes == 1280 * 8192 and obj.ios == 30 and obj.total_stall_ms() == 300


def test_names_carry_the_database_when_there_are_several(tmp_path):
    text = "db_name,name,size_bytes,num_of_reads,num_of_writes\nA,f,1,1,1\nB,f,1,2,2\nB,templog,1,0,5\n"
    objects = parse_sqlserver(write(tmp_path, "two.csv", text)).objects
    assert sorted(objects) == ["A.f", "B.f", "B.templog"]
    assert objects["B.templog"].kind == "log"


def test_missing_columns_are_named(tmp_path):
    path = write(tmp_path, "bad.csv", "name,num_of_writes\nx,1\n")
    with pytest.raises(UserError) as err:
        parse_sqlserver(path)
    message = str(err.value)
    assert "missing required column(s)" in message
    assert "reads (num_of_reads or NumberReads or reads)" in message and "size (" in message
    assert "writes" not in message.split("missing required column(s)")[1].split("size")[0]


def test_a_cell_that_is_no_number_names_file_line_and_column(tmp_path):
    path = write(
        tmp_path,
        "cut.csv",
        "FileName,FileSize,NumberReads,NumberWrites\nB1,10,100,1\nB2,10,5072995...,1\n",
    )
    with pytest.raises(
        UserError, match=r"cut.csv line 3: NumberReads '5072995...' is not a number"
    ):
        parse_sqlserver(path)


def test_two_snapshots_give_deltas_and_backward_counters_are_refused(tmp_path):
    head = "name,size_bytes,num_of_reads,num_of_writes,io_stall\n"
    before = write(tmp_path, "before.csv", head + "a,100,1000,10,500\nb,100,5,5,1\n")
    after = write(tmp_path, "after.csv", head + "a,200,1600,30,900\nc,50,7,0,3\n")
    objects, notes, counted = load_files("sqlserver", [before, after])
    by_name = {o.name: o for o in objects}
    assert (by_name["a"].reads, by_name["a"].writes, by_name["a"].stall_ms) == (600, 20, 400)
    assert by_name["a"].size_bytes == 200 and by_name["c"].reads == 7
    assert "difference between two snapshots" in counted
    assert any("not in the first snapshot" in n for n in notes)
    assert any("only in the first snapshot" in n for n in notes)
    with pytest.raises(UserError, match="counter reads of 'a' went backwards"):
        load_files("sqlserver", [after, before])
    _, _, counted = load_files("sqlserver", [before])
    assert "since the counters were last reset" in counted
    with pytest.raises(UserError, match=r"one file .* or two"):
        load_files("sqlserver", [before, after, after])


def test_oracle_filestat_times_are_centiseconds(tmp_path):
    text = (
        "FILE#,NAME,TABLESPACE_NAME,BYTES,BLOCK_SIZE,PHYRDS,PHYWRTS,PHYBLKRD,PHYBLKWRT,"
        "READTIM,WRITETIM\n"
        "1,+DATA/users01.dbf,USERS,1048576,8192,100,10,120,10,50,7\n"
        "2,+DATA/temp01.dbf,TEMP,2048,8192,1,1,1,1,0,0\n"
    )
    (snap,), cumulative = parse_oracle(write(tmp_path, "fs.csv", text))
    users = snap.objects["+DATA/users01.dbf"]
    assert cumulative and users.read_stall_ms == 500 and users.write_stall_ms == 70
    assert users.bytes_read == 120 * 8192 and snap.objects["+DATA/temp01.dbf"].kind == "temp"


def test_oracle_seg_stat_totals_across_snapshots_and_deltas(tmp_path):
    head = "SNAP_ID,INSTANCE_NUMBER,OWNER,OBJECT_NAME,SUBOBJECT_NAME,OBJECT_TYPE,SPACE_ALLOCATED_TOTAL,"
    totals = write(
        tmp_path,
        "seg.csv",
        head
        + "PHYSICAL_READS_TOTAL,PHYSICAL_WRITES_TOTAL\n"
        + "10,1,SOE,ORDERS,,TABLE,1000,100,10\n10,2,SOE,ORDERS,,TABLE,1000,50,5\n"
        + "11,1,SOE,ORDERS,,TABLE,1000,400,20\n11,2,SOE,ORDERS,,TABLE,1000,150,5\n"
        + "12,1,SOE,ORDERS,,TABLE,1200,700,40\n12,2,SOE,ORDERS,,TABLE,1200,250,10\n",
    )
    objects, _, counted = load_files("oracle", [totals])
    (orders,) = objects  # RAC instances added up; first snapshot 10 and last 12
    assert (orders.name, orders.kind, orders.reads, orders.writes) == (
        "SOE.ORDERS",
        "table",
        800,
        35,
    )
    assert orders.size_bytes == 1200 and "difference" in counted
    deltas = write(
        tmp_path,
        "delta.csv",
        head
        + "PHYSICAL_READS_DELTA,PHYSICAL_WRITES_DELTA\n"
        + "11,1,SOE,ORDERS,P1,TABLE PARTITION,10,30,3\n12,1,SOE,ORDERS,P1,TABLE PARTITION,10,20,2\n",
    )
    objects, _, counted = load_files("oracle", [deltas])
    assert (objects[0].name, objects[0].reads, objects[0].writes) == ("SOE.ORDERS.P1", 50, 5)
    assert "interval counts" in counted
    with pytest.raises(UserError, match="already interval counts"):
        load_files("oracle", [deltas, deltas])


def test_oracle_export_without_counters_names_the_columns(tmp_path):
    with pytest.raises(UserError, match=r"PHYRDS .* PHYSICAL_READS_TOTAL"):
        parse_oracle(write(tmp_path, "x.csv", "NAME,BYTES\na,1\n"))


def test_run_folder_objects_contract(tmp_path):
    objects = [
        {
            "name": "orders",
            "kind": "table",
            "size_bytes": 10,
            "reads": 5,
            "writes": 1,
            "read_stall_ms": 2.5,
            "write_stall_ms": 0.5,
        }
    ]
    (tmp_path / "results.json").write_text(
        json.dumps({"schema": 1, "engine_stats": {"objects": objects}})
    )
    (orders,) = parse_run(tmp_path)
    assert (orders.name, orders.ios, orders.total_stall_ms()) == ("orders", 6, 3.0)
    (tmp_path / "results.json").write_text(json.dumps({"schema": 1, "points": []}))
    with pytest.raises(UserError, match=r"no engine_stats\.objects"):
        parse_run(tmp_path)
    (tmp_path / "results.json").write_text(
        json.dumps({"engine_stats": {"objects": [{"name": "x"}]}})
    )
    with pytest.raises(UserError, match=r"objects\[0\] lacks kind, size_bytes, reads, writes"):
        parse_run(tmp_path)
    with pytest.raises(UserError, match="not a dbstor run folder"):
        parse_run(tmp_path / "nowhere")


def _run(
    folder: Path,
    means: dict[int, float],
    knee: float | None,
    drifting: tuple[int, ...] = (),
    beyond_last: bool = False,
) -> None:
    points = [
        Point(load=Load("users", users), duration_s=10, read_lat_ms=LatencyStats(mean=mean))
        for users, mean in means.items()
    ]
    for point in points:
        if point.load.value in drifting:
            point.trust.steady = False
    run = Run(
        run_id=folder.name,
        tool_version="t",
        study={},
        target={},
        engine={},
        workload={},
        host={},
        slo={},
        created_at="now",
        points=points,
        knee=None if knee is None else {"load": knee, "beyond_last": beyond_last},
    )
    save_run(folder, run)


def test_tier_latency_from_the_knee_or_the_lowest_load(tmp_path):
    _run(tmp_path / "flash", {1: 0.3, 8: 0.6, 16: 2.0}, knee=12.5)
    mean, where = tier_latency_ms(tmp_path / "flash", "--fast-run")
    assert mean == 0.6 and "last point within the knee (users 8)" in where
    _run(tmp_path / "hdd", {4: 9.0, 2: 7.5}, knee=None)
    assert tier_latency_ms(tmp_path / "hdd", "--slow-run")[0] == 7.5
    with pytest.raises(UserError, match=r"--slow-run .* not a dbstor run folder"):
        tier_latency_ms(tmp_path / "none", "--slow-run")


def test_tier_latency_only_from_a_point_the_document_stands_on_rounded_once(tmp_path):
    """A knee the document refuses (its point not steady) does not price the move: the
    highest trusted point within it does; the figure is rounded once, to 3 digits."""
    _run(tmp_path / "flash", {1: 0.3124, 8: 0.724834, 16: 2.0}, knee=8, drifting=(8,))
    mean, where = tier_latency_ms(tmp_path / "flash", "--fast-run")
    assert mean == 0.312 and "highest trusted point within the knee (users 1)" in where
    _run(tmp_path / "steady", {1: 0.3124, 8: 0.724834}, knee=8)
    mean, where = tier_latency_ms(tmp_path / "steady", "--fast-run")
    assert mean == 0.725 and "at the knee (users 8)" in where
    _run(tmp_path / "drift", {1: 0.3, 8: 0.7}, knee=8, drifting=(1, 8))
    with pytest.raises(
        UserError,
        match=r"no load point to take the tier's latency from "
        r"\(users 1: it was not steady.*users 8: it was not steady",
    ):
        tier_latency_ms(tmp_path / "drift", "--fast-run")


def test_tier_latency_at_the_highest_load_is_not_called_a_knee(tmp_path):
    """Every point within the SLO: the document says the knee lies beyond the highest
    load, so the price's source does not call that load the knee."""
    _run(tmp_path / "flash", {8: 0.3, 16: 0.287}, knee=16, beyond_last=True)
    mean, where = tier_latency_ms(tmp_path / "flash", "--fast-run")
    assert mean == 0.287 and "knee" not in where
    assert "at the highest load, every point within the SLO (users 16)" in where


def test_dsn_passwords_are_masked_and_scrubbed():
    assert mask_dsn("postgresql://bench:pa55@db:5432/app") == "postgresql://bench:***@db:5432/app"
    assert (
        mask_dsn("host=db user=u password='a b' dbname=x") == "host=db user=u password=*** dbname=x"
    )
    assert mask_dsn("postgres://u@db/app?password=zz&sslmode=off") == (
        "postgres://u@db/app?password=***&sslmode=off"
    )
    assert mask_dsn("postgresql://bench@db/app") == "postgresql://bench@db/app"
    assert scrub('failed for "pa55"\nmore', "postgresql://b:pa55@h/a") == 'failed for "***"'


def test_html_section_renders_the_chart_table_and_escapes_names():
    objects = [
        DbObject("<b>&", "data", 1 << 30, 100, 0, stall_ms=1000.0),
        DbObject("big", "data", 10 << 30, 50, 0, stall_ms=500.0),
    ]
    result = analyse(objects, Tiers(2 << 30))
    result["source"] = {"counted": "one snapshot"}
    section = render_advise_section(result)
    assert section.startswith('<section class="dbstor-advise">') and section.endswith("</section>")
    assert "<svg" in section and "skew point" in section and "&lt;b&gt;&amp;" in section
    page = render_page("advice", section)
    for external in ("<script", "<link", "src=", "href="):
        assert external not in page


def test_a_ranking_without_stall_times_has_no_column_of_dashes():
    """A dbstor run counts I/Os per object but no stall: the 'ms per I/O' column is left
    out, not shown as a dash in every row; the fast tier's label stays inside the chart."""
    objects = [DbObject("trade", "data", 1 << 20, 100, 0), DbObject("x", "data", 1 << 20, 5, 0)]
    result = analyse(objects, Tiers(300 << 30))
    result["source"] = {"counted": "run r1"}
    section = render_advise_section(result)
    assert "<th>ms per I/O</th>" not in section and "<th>fast</th>" in section
    label = section.split("fast tier: ")[0].rsplit("<text", 1)[1]
    assert 'text-anchor="end"' in label  # every object chosen: the point is at the right edge
    with_stall = [DbObject("trade", "data", 1 << 20, 100, 0, stall_ms=50.0)]
    assert "<th>ms per I/O</th>" in render_advise_section(
        analyse(with_stall, Tiers(300 << 30)) | {"source": {"counted": "csv"}}
    )


def test_postgres_without_psycopg_names_the_extra(monkeypatch):
    from dbstor.analysis.placement import postgres

    monkeypatch.setitem(sys.modules, "psycopg", None)  # import fails
    with pytest.raises(UserError, match=r"pip install 'dbstor\[postgres\]'"):
        postgres.read_postgres("postgresql://u:pw@127.0.0.1:1/x", 1)
    with pytest.raises(UserError, match="--interval must be 0"):
        postgres.read_postgres("postgresql://u@h/x", -1)


def test_writes_an_engine_does_not_keep_are_unknown_with_the_reason_never_0(tmp_path):
    """A PostgreSQL run folder saves writes as null (pg_statio keeps no per-object
    writes): the ranking, the totals and the page say so instead of printing 0."""
    objects = [
        {"name": "trade", "kind": "table", "size_bytes": 8 << 20, "reads": 900, "writes": None},
        {"name": "trade_pk", "kind": "index", "size_bytes": 1 << 20, "reads": 300, "writes": None},
    ]
    (tmp_path / "results.json").write_text(
        json.dumps({"engine": {"title": "PostgreSQL"}, "engine_stats": {"objects": objects}})
    )
    parsed = parse_run(tmp_path)
    assert all(o.writes_reason == "not kept by PostgreSQL" for o in parsed)
    result = analyse(parsed, Tiers(capacity_bytes=4 << 20, fast_latency_ms=0.2, slow_latency_ms=5))
    row = result["ranking"][0]
    assert row["writes"] is None and row["writes_reason"] == "not kept by PostgreSQL"
    assert row["read_pct"] is None, "100% reads would be a claim about unknown writes"
    assert result["totals"]["writes"] is None
    page = render_advise_section(result)
    assert 'title="not kept by PostgreSQL">not kept</td>' in page

"""T-SQL without a server: every statement and procedure dbstor would send to SQL Server,
parsed by sqlglot's T-SQL parser. A procedure is parsed whole, and every statement inside
its blocks must be one sqlglot knows (a misspelt keyword parses as a column or an alias,
so that is refused too); the one statement sqlglot takes only as a command (CREATE
DATABASE with filegroups) is checked piece by piece in tests/unit/engines/test_sqlserver.py."""

from __future__ import annotations

import pytest
import sqlglot
from sqlglot import exp

from dbstor.dialects import registry
from dbstor.dialects.tsql import blocks, orders
from dbstor.engines.sqlserver_stats import counter_queries
from dbstor.workloads.blocks import schema as blocks_schema
from dbstor.workloads.blocks import sql as blocks_sql
from dbstor.workloads.brokerage import schema as brokerage_schema
from dbstor.workloads.brokerage import sql as brokerage_sql
from dbstor.workloads.dss import execute, load_tsql
from dbstor.workloads.dss import schema as dss_schema
from dbstor.workloads.dss.workload import DssWorkload
from dbstor.workloads.orders import consistency
from dbstor.workloads.orders import schema as orders_schema
from dbstor.workloads.orders import sql as orders_sql
from dbstor.workloads.tables import analyze, create_indexes, create_table

STATEMENT_KINDS = (
    exp.Select, exp.Insert, exp.Update, exp.Delete, exp.Merge, exp.Create, exp.Set,
    exp.Declare, exp.Transaction, exp.Commit, exp.Rollback, exp.IfBlock, exp.WhileBlock,
    exp.EndStatement,
)  # fmt: skip
D = registry.get("tsql")


def parsed(sql: str) -> list[exp.Expression]:
    """sqlglot's T-SQL trees of `sql` (placeholders as literals); fails on a statement
    sqlglot only keeps as text, or a block holding a non-statement."""
    trees = sqlglot.parse(sql.replace("%s", "1"), read="tsql", error_level=sqlglot.ErrorLevel.RAISE)
    for tree in trees:
        assert tree is not None
        commands = [c.sql("tsql")[:80] for c in tree.walk() if isinstance(c, exp.Command)]
        assert not commands, f"sqlglot kept as text only: {commands}"
        for block in tree.find_all(exp.Block):
            for statement in block.expressions:
                assert isinstance(statement, STATEMENT_KINDS), (
                    f"not a statement in a block: {statement.sql('tsql')[:80]!r}"
                )
    return trees


def test_the_check_refuses_what_sqlglot_only_half_understood():
    with pytest.raises(AssertionError, match="not a statement"):
        parsed("CREATE PROCEDURE p @a INT AS BEGIN SELEC @a = 1; END")
    with pytest.raises(AssertionError, match="not a statement"):  # IF without BEGIN ... END
        parsed("CREATE PROCEDURE p @a INT AS BEGIN IF @a > 1 SET @a = 0; END")
    with pytest.raises(sqlglot.errors.ParseError):
        parsed("SELECT a FROM t LIMIT 5 FOR UPDATE")


@pytest.mark.parametrize("ddl", orders.DDL, ids=[f"orders-{i}" for i in range(len(orders.DDL))])
def test_the_orders_procedures_parse_whole(ddl):
    (tree,) = parsed(ddl)
    assert isinstance(tree, exp.Create) and tree.kind == "PROCEDURE"


def test_the_orders_calls_and_the_blocks_loop_parse():
    for call in orders.CALLS.values():
        assert len(parsed(call)) == 1
    routines = blocks.routines("user_1", "user_1_read", "user_1_update")
    assert [parsed(r)[0].kind for r in routines] == ["PROCEDURE", "PROCEDURE"]
    for call in blocks.calls("user_1_read", "user_1_update").values():
        parsed(call)
    parsed(blocks.seed_statement(0.25)[0])


def test_the_shared_client_statements_render_to_tsql():
    for name in orders_sql.STATEMENTS:
        text = orders_sql.statement("tsql", name, 3, 7)
        assert "LIMIT" not in text and "FOR UPDATE" not in text and "?" not in text
        parsed(text)
    for name in brokerage_sql.STATEMENTS:
        parsed(brokerage_sql.statement("tsql", name, 4))
    for query in [*consistency.CONDITIONS.values(), *consistency.DEEP.values()]:
        parsed(D.render(query))
    locking = orders_sql.statement("tsql", "dl_oldest")
    assert locking == (
        "SELECT no_o_id FROM new_order WITH (UPDLOCK, ROWLOCK) WHERE no_w_id = %s AND"
        " no_d_id = %s ORDER BY no_o_id OFFSET 0 ROWS FETCH NEXT 1 ROWS ONLY"
    )


def test_the_upsert_is_a_merge_under_holdlock():
    (tree,) = parsed(brokerage_sql.statement("tsql", "summary_add"))
    assert isinstance(tree, exp.Merge) and "HOLDLOCK" in tree.sql("tsql")
    assert registry.get("tsql").part("brokerage").STATEMENTS.keys() == {"summary_add"}


@pytest.mark.parametrize("tables", [orders_schema.TABLES, brokerage_schema.TABLES])
def test_the_tables_keys_indexes_and_statistics_parse(tables):
    for k, table in enumerate(tables):
        suffix = " ON [dbstor_d1]" if k % 2 else ""
        (tree,) = parsed(create_table(table, "tsql", "", suffix))
        assert isinstance(tree, exp.Create)
        for index in create_indexes(table, "tsql", "", suffix):
            assert index.endswith(suffix)
            parsed(index)
    for statement in analyze("tsql", tables):
        assert statement.startswith("UPDATE STATISTICS ")


def test_the_blocks_table_and_its_fill_parse():
    shape = blocks_schema.geometry("tsql", None)
    assert (shape.pad, shape.page_size) == (4096, 8192)  # one row alone in its 8K page
    assert shape.row_bytes > 8060 // 2
    parsed(blocks_schema.create_table(shape, "user_1", "", " ON [dbstor_d1]"))
    (fill,) = parsed(blocks_schema.fill(shape, "user_1"))
    assert isinstance(fill, exp.Insert) and "MAXRECURSION" in fill.sql("tsql")
    parsed(blocks_sql.read_sql("tsql", "user_1", 4))
    parsed(blocks_sql.update_sql("tsql", "user_1", 1))


def test_every_counter_query_parses():
    for query in counter_queries("dbstor_1"):
        (tree,) = parsed(query.sql)
        assert isinstance(tree, exp.Select)


def test_bulk_load_writes_at_most_a_thousand_rows_a_statement():
    class Cursor:  # records the text; the driver is not what is tested
        def __init__(self) -> None:
            self.sent: list[str] = []

        def execute(self, sql: str) -> None:
            self.sent.append(sql)

    table = orders_schema.TABLE["new_order"]
    cur = Cursor()
    D.put_rows(cur, table, [(i, 1, 2) for i in range(2500)])
    assert len(cur.sent) == 3
    (tree,) = parsed(cur.sent[0])
    assert len(tree.find(exp.Values).expressions) == 1000
    D.put_rows(cur, orders_schema.TABLE["orders"], [(1, 1, 1, 1, 5, None, 5, 1)])
    assert "NULL" in cur.sent[-1] and "None" not in cur.sent[-1]
    parsed(cur.sent[-1])


def test_query_text():
    assert D.shift("1995-03-15", -3, "month") == "DATEADD(month, -3, CAST('1995-03-15' AS DATE))"
    parsed(f"SELECT {D.year(D.date('1997-06-01'))}, {D.substring('x', 1, 2)}")
    parsed(f"SELECT 1 FROM t WHERE {D.like('p_type', '%BRASS', negate=True)}")
    assert D.statement_timeout(2.5) is None  # no server-side limit: the client cancels


@pytest.mark.parametrize("number", range(1, 23))
def test_the_22_queries_parse_with_tsqls_first_rows_and_dates(number):
    workload = DssWorkload(1, 7, {"queries": "all"})
    sql = execute.render(number, workload.parameters(number), "tsql", 1)
    assert " limit " not in sql.lower()
    for statement in execute.statements(sql):
        parsed(statement)
    if number in (2, 3, 10, 18, 21):
        assert "rows fetch next" in sql and sql.rstrip().endswith("rows only")


def test_tr3476s_six_queries_are_the_default_stream():
    workload = DssWorkload(1, 7, {})
    assert [spec.number for spec, _ in workload.stream(0, "tsql")] == [6, 2, 9, 1, 3, 12]


def test_the_dss_loader_writes_typed_literals_a_thousand_rows_a_statement():
    table = dss_schema.TABLE["orders"]
    row = ["1", "37", "O", "131251.81", "1996-01-02", "5-LOW", "Clerk#000000951", "0", "it's"]
    (sql, count), *rest = list(load_tsql.inserts(table, [row] * 1500))
    assert count == 1000 and rest[0][1] == 500
    (tree,) = parsed(sql)
    first = tree.find(exp.Tuple)
    assert [e.sql("tsql") for e in first.expressions][:5] == [
        "1",
        "37",
        "'O'",
        "131251.81",
        "'1996-01-02'",
    ]
    assert "'it''s'" in sql
    with pytest.raises(ValueError):
        list(load_tsql.inserts(table, [["1; DROP TABLE x", *row[1:]]]))
    for k, t in enumerate(dss_schema.TABLES):
        suffix = " ON [dbstor_d1]" if k % 2 else ""
        parsed(dss_schema.create_table(t, "tsql", 1, "", suffix))
        parsed(dss_schema.add_primary_key(t, "tsql", "", suffix))
        for index in dss_schema.create_foreign_key_indexes(t, "tsql", "", suffix):
            parsed(index)


class Recorded:
    """A DB-API connection and cursor that record what is sent and answer from a list
    (the caller's own logic is what is tested, not a driver)."""

    def __init__(self, answers: list[tuple]) -> None:
        self.sent: list[tuple[str, tuple]] = []
        self.answers = answers
        self.auto = None
        self.sets = 0

    def autocommit(self, on: bool) -> None:
        self.auto = on

    def commit(self) -> None:
        pass

    def cursor(self) -> Recorded:
        return self

    def execute(self, sql: str, params: tuple = ()) -> None:
        self.sent.append((sql, params))
        self.sets = 1

    def fetchone(self) -> tuple:
        return self.answers.pop(0)

    def fetchall(self) -> list[tuple]:
        return [self.answers.pop(0)]

    def nextset(self) -> bool:
        self.sets -= 1
        return self.sets > 0


def test_the_orders_caller_reads_new_orders_rollback_from_its_first_column():
    conn = Recorded([(1, 3001), (0, 3002), (42,)])
    caller = orders.Caller(conn)
    assert conn.auto is True  # one EXEC is one transaction: the procedure's own
    lines = (orders.item_lines((5, 9)), orders.item_lines((1, 1)), orders.item_lines((3, 2)))
    assert caller.run("New-Order", (1, 2, 3, 100, *lines)) is False  # its unused item
    assert caller.run("New-Order", (1, 2, 3, 100, *lines)) is True
    assert caller.run("Payment", (1, 2, 1, 2, 7, None, 500, 100)) is True
    sql, params = conn.sent[0]
    assert sql == orders.CALLS["New-Order"] and params[4:] == ("5,9", "1,1", "3,2")


def test_the_blocks_loop_seeds_rand_once_then_calls_its_procedures():
    conn = Recorded([(0.5,), (8,), (7,)])
    calls = blocks.calls("user_1_read", "user_1_update")
    loop = blocks.server_loop(conn, calls, 8, 1000, 0.25)
    assert loop.call("read") == 8 and loop.call("update") == 7
    (seed, (value,)), *rest = conn.sent
    assert seed == "SELECT RAND(%s)" and 1 <= value < blocks.SEED_RANGE
    assert rest == [
        ("EXEC user_1_read %s, %s", (8, 1000)),
        ("EXEC user_1_update %s, %s", (8, 1000)),
    ]


def test_a_script_ends_every_statement_as_sqlcmd_reads_it():
    dialect = registry.get("tsql")
    assert dialect.script_statement("CREATE TABLE t (a INT);") == "CREATE TABLE t (a INT)\nGO"
    procedure = "CREATE PROCEDURE p AS BEGIN SELECT 1; END"
    assert dialect.script_statement(procedure) == procedure + "\nGO"

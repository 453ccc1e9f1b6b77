"""The oracle dialect's SQL, parsed by sqlglot's Oracle grammar (no Oracle server can be
installed here): every client-side statement of brokerage and orders as rendered, every
table and index of the workloads, blocks' fill, and each SQL statement inside the PL/SQL
procedures (sqlglot does not parse PL/SQL blocks whole); the procedures' shape (blocks
and loops closed, parameters as the callers bind them) is checked apart."""

from __future__ import annotations

import re
from decimal import Decimal

import pytest
import sqlglot
from sqlglot import exp

from dbstor.dialects import registry
from dbstor.dialects.oracle import blocks, brokerage, fetch_first, numbered, orders
from dbstor.workloads.blocks.schema import Geometry
from dbstor.workloads.brokerage import sql as brokerage_sql
from dbstor.workloads.brokerage.schema import TABLES as BROKERAGE_TABLES
from dbstor.workloads.orders import sql as orders_sql
from dbstor.workloads.orders.schema import TABLES as ORDERS_TABLES
from dbstor.workloads.tables import create_indexes, create_table

ORACLE = registry.get("oracle")
# Oracle's reserved words (SQL Language Reference, "Oracle SQL Reserved Words")
RESERVED = set(
    [
        "ACCESS",
        "ADD",
        "ALL",
        "ALTER",
        "AND",
        "ANY",
        "AS",
        "ASC",
        "AUDIT",
        "BETWEEN",
        "BY",
        "CHAR",
        "CHECK",
        "CLUSTER",
        "COLUMN",
        "COMMENT",
        "COMPRESS",
        "CONNECT",
        "CREATE",
        "CURRENT",
        "DATE",
        "DECIMAL",
        "DEFAULT",
        "DELETE",
        "DESC",
        "DISTINCT",
        "DROP",
        "ELSE",
        "EXCLUSIVE",
        "EXISTS",
        "FILE",
        "FLOAT",
        "FOR",
        "FROM",
        "GRANT",
        "GROUP",
        "HAVING",
        "IDENTIFIED",
        "IMMEDIATE",
        "IN",
        "INCREMENT",
        "INDEX",
        "INITIAL",
        "INSERT",
        "INTEGER",
        "INTERSECT",
        "INTO",
        "IS",
        "LEVEL",
        "LIKE",
        "LOCK",
        "LONG",
        "MAXEXTENTS",
        "MINUS",
        "MLSLABEL",
        "MODE",
        "MODIFY",
        "NOAUDIT",
        "NOCOMPRESS",
        "NOT",
        "NOWAIT",
        "NULL",
        "NUMBER",
        "OF",
        "OFFLINE",
        "ON",
        "ONLINE",
        "OPTION",
        "OR",
        "ORDER",
        "PCTFREE",
        "PRIOR",
        "PUBLIC",
        "RAW",
        "RENAME",
        "RESOURCE",
        "REVOKE",
        "ROW",
        "ROWID",
        "ROWNUM",
        "ROWS",
        "SELECT",
        "SESSION",
        "SET",
        "SHARE",
        "SIZE",
        "SMALLINT",
        "START",
        "SUCCESSFUL",
        "SYNONYM",
        "SYSDATE",
        "TABLE",
        "THEN",
        "TO",
        "TRIGGER",
        "UID",
        "UNION",
        "UNIQUE",
        "UPDATE",
        "USER",
        "VALIDATE",
        "VALUES",
        "VARCHAR",
        "VARCHAR2",
        "VIEW",
        "WHENEVER",
        "WHERE",
        "WITH",
    ]
)
_DML = re.compile(r"(?im)^\s*((?:SELECT|INSERT|UPDATE|DELETE|MERGE)\b[^;]*);")


def parsed(sql: str) -> exp.Expression:
    """sqlglot's tree of one Oracle statement; a fallback to an unparsed Command fails."""
    tree = sqlglot.parse_one(sql, read="oracle")
    assert not isinstance(tree, exp.Command), f"sqlglot did not parse: {sql}"
    return tree


def inner_statements(plsql: str) -> list[str]:
    """Each SQL statement inside a PL/SQL body, with SELECT ... INTO's variables removed
    (PL/SQL's, not SQL's)."""
    body = plsql.split("\nBEGIN", 1)[1]
    found = [m.group(1) for m in _DML.finditer(body)]
    return [re.sub(r"(?is)^(SELECT\b.*?)\bINTO\b.*?\bFROM\b", r"\1FROM", s) for s in found]


def test_binds_are_numbered_and_limits_become_fetch_first():
    assert numbered("a = ? AND b IN (?, ?)") == "a = :b1 AND b IN (:b2, :b3)"
    assert fetch_first("ORDER BY t LIMIT 50") == "ORDER BY t FETCH FIRST 50 ROWS ONLY"
    assert fetch_first("ORDER BY t LIMIT ?") == "ORDER BY t FETCH FIRST ? ROWS ONLY"
    assert ORACLE.render("SELECT a FROM t WHERE k = ?{for_update}") == (
        "SELECT a FROM t WHERE k = :b1 FOR UPDATE"
    )


@pytest.mark.parametrize("name", sorted(brokerage_sql.STATEMENTS))
def test_every_brokerage_statement_parses_as_oracle(name):
    text = brokerage_sql.statement("oracle", name, 3)
    tree = parsed(text)
    assert "LIMIT" not in text.upper() and "?" not in text
    binds = re.findall(r":b(\d+)", text)
    assert binds == [str(i) for i in range(1, len(binds) + 1)]  # each once, in order
    assert tree.find(exp.Placeholder) is not None or not binds


def test_the_holding_summary_upsert_is_one_merge():
    tree = parsed(brokerage_sql.statement("oracle", "summary_add"))
    assert isinstance(tree, exp.Merge)
    assert "summary_add" in brokerage.STATEMENTS


@pytest.mark.parametrize("name", sorted(orders_sql.STATEMENTS))
def test_every_orders_client_statement_parses_as_oracle(name):
    parsed(orders_sql.statement("oracle", name, 5, district=3))


@pytest.mark.parametrize("table", [*BROKERAGE_TABLES, *ORDERS_TABLES], ids=lambda t: t.name)
def test_every_table_and_index_parses_with_its_tablespace(table):
    tree = parsed(create_table(table, "oracle", "", " TABLESPACE DBSTOR_0_D1"))
    assert "TABLESPACE" in tree.sql("oracle")
    for sql in create_indexes(table, "oracle", "", " TABLESPACE DBSTOR_0_D1"):
        assert "TABLESPACE DBSTOR_0_D1" in parsed(sql).sql("oracle")
    assert table.name.upper() not in RESERVED
    assert not {c.upper() for c in table.column_names} & RESERVED
    assert "VARCHAR(" not in create_table(table, "oracle")  # VARCHAR2, NUMBER


@pytest.mark.parametrize("ddl", orders.DDL, ids=lambda d: d.split("(")[0].split()[-1])
def test_each_statement_inside_the_orders_procedures_parses(ddl):
    statements = inner_statements(ddl)
    assert len(statements) >= 2
    for sql in statements:
        parsed(sql)
    assert ddl.rstrip().endswith("END;")
    blocks_opened = len(re.findall(r"(?m)^\s*BEGIN\b", ddl))  # the body's and inner ones
    assert len(re.findall(r"\bEND;", ddl)) == blocks_opened
    assert len(re.findall(r"\bLOOP\b", ddl)) == 2 * len(re.findall(r"\bEND LOOP;", ddl))
    assert len(re.findall(r"\bEND IF;", ddl)) == len(re.findall(r"(?m)^\s*IF\b", ddl))


def test_each_orders_call_binds_the_procedures_parameters_and_one_out():
    for name, (procedure, inputs) in orders.PROCEDURES.items():
        ddl = next(d for d in orders.DDL if f"PROCEDURE {procedure}(" in d)
        header = ddl.split("\nAS", 1)[0]
        params = re.findall(r"\bp_\w+\s+(OUT\s+)?(?:NUMBER|VARCHAR2|DATE)", header)
        assert len(params) == inputs + 1 and params[-1].strip() == "OUT", name
        assert not any(params[:-1])  # IN, then the one OUT
        assert orders.CALLS[name].count(":b") == inputs + 1


def test_procedures_end_their_transaction_and_roll_back_on_error():
    for ddl in orders.DDL:
        assert "COMMIT;" in ddl
        assert re.search(r"WHEN OTHERS THEN\s+ROLLBACK;\s+RAISE;", ddl)


def test_new_order_rolls_back_an_unused_item_and_says_so():
    assert re.search(r"NO_DATA_FOUND THEN\s+ROLLBACK;\s+p_status := 1;\s+RETURN;", orders.NEW_ORDER)


SHAPE = Geometry("oracle", *blocks.geometry(None, 128))


def test_blocks_table_keeps_one_row_a_block_and_fills_in_one_statement():
    tree = parsed(blocks.create_table(SHAPE, "user_1", "", " TABLESPACE DBSTOR_0_D1"))
    assert "PCTFREE 99 TABLESPACE DBSTOR_0_D1" in tree.sql("oracle")
    fill = parsed(blocks.fill(SHAPE, "user_1", SHAPE.pad // 128, "unused"))
    assert isinstance(fill, exp.Insert)
    assert len(blocks.fill_params(7, 1, 100)) == len(re.findall(r":b\d", fill.sql("oracle")))


def test_blocks_routines_parse_statement_by_statement():
    read, update = blocks.routines("user_1", "user_1_read", "user_1_update")
    assert [parsed(s).key for s in inner_statements(read)] == ["select"]
    assert [parsed(s).key for s in inner_statements(update)] == ["update"]
    assert "COMMIT;" in update and "DBMS_RANDOM.VALUE" in read
    for call in blocks.calls("user_1_read", "user_1_update").values():
        assert call.count(":b") == 3  # n, rows, OUT hits


def test_the_blocks_page_size_and_table_size_queries_parse():
    parsed(blocks.PAGE_SIZE_QUERY)
    parsed(
        "SELECT SUM(bytes) FROM dba_segments WHERE owner = SYS_CONTEXT('USERENV',"
        " 'CURRENT_SCHEMA') AND segment_name IN (:b1, :b2)"
    )


def test_oracle_sets_no_statement_timeout_in_sql():
    assert ORACLE.statement_timeout(2.5) is None  # the QueryTimer cancels the call


class Cursor:
    """Records executemany() batches (a unit test of put_rows alone)."""

    def __init__(self):
        self.batches: list[tuple[str, int]] = []
        self.rows: list[tuple] = []

    def executemany(self, sql, rows):
        self.batches.append((sql, len(rows)))
        self.rows += rows


def test_bulk_load_inserts_in_batches_with_positional_binds():
    from dbstor.workloads.orders.generate import Chunk, generate
    from dbstor.workloads.orders.tpcc import LOAD_TIME, Constants

    table = ORDERS_TABLES[0]
    assert table.name == "order_line"
    lines = generate(Chunk("district", 1, 1), 1, Constants.from_seed(1))["order_line"]
    cur = Cursor()
    ORACLE.put_rows(cur, table, lines)  # about 30,000: the district's last 9,000 undelivered
    whole, rest = divmod(len(lines), 5_000)
    assert [n for _, n in cur.batches] == [5_000] * whole + [rest] and rest
    parsed(cur.batches[0][0])
    # the generated decimal and ISO text bound as NUMBER and DATE values, not as text that
    # Oracle would read by the session's NLS formats; NULL kept
    at = {name: table.column_names.index(name) for name in ("ol_amount", "ol_delivery_d")}
    first, last = cur.rows[0], cur.rows[-1]
    assert first[at["ol_delivery_d"]] == LOAD_TIME and first[at["ol_amount"]] == Decimal("0.00")
    assert last[at["ol_delivery_d"]] is None and isinstance(last[at["ol_amount"]], Decimal)
    assert str(last[at["ol_amount"]]) == lines[-1][at["ol_amount"]]


def test_procedure_variables_take_types_of_columns_that_exist():
    columns = {(t.name, c) for t in ORDERS_TABLES for c in t.column_names}
    anchors = {tuple(a) for ddl in orders.DDL for a in re.findall(r"(\w+)\.(\w+)%TYPE", ddl)}
    assert anchors and anchors <= columns


def test_no_generated_text_is_empty_where_a_column_is_not_null():
    """Oracle stores '' as NULL: a NOT NULL text column must never get an empty string."""
    from dbstor.workloads.orders import generate
    from dbstor.workloads.orders.schema import TABLE
    from dbstor.workloads.orders.workload import OrdersWorkload

    constants = OrdersWorkload(1, seed=1).constants
    for chunk in generate.chunks(1):
        for name, rows in generate.generate(chunk, 1, constants).items():
            required = [i for i, (_, kind) in enumerate(TABLE[name].columns) if "?" not in kind]
            assert not [r for r in rows if any(r[i] == "" for i in required)], name


def test_a_script_ends_plsql_with_a_slash_and_sql_with_a_semicolon():
    dialect = registry.get("oracle")
    assert dialect.script_statement("CREATE TABLE t (a NUMBER)") == "CREATE TABLE t (a NUMBER);"
    assert dialect.script_statement("SELECT 1 FROM dual;") == "SELECT 1 FROM dual;"
    body = "CREATE OR REPLACE PROCEDURE p AS\nBEGIN\n  NULL;\nEND;"
    assert dialect.script_statement(body) == body + "\n/"
    assert dialect.script_statement("BEGIN p(:b1); END") == "BEGIN p(:b1); END;\n/"

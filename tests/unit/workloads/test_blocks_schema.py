"""The blocks row geometry, DDL and statements: one row per 8K block, by construction."""

import hashlib
import re

import pytest

from dbstor.workloads.blocks import schema, sql


def test_pad_is_sha512_of_seed_and_id_repeated():
    digest = hashlib.sha512(b"5:42").hexdigest()
    assert schema.pad_text(5, 42, 300) == (digest * 3)[:300]
    assert schema.pad_text("5", 42, 300) == schema.pad_text(5, 42, 300)
    assert schema.pad_text(5, 42, 512) != schema.pad_text(6, 42, 512)
    assert schema.pad_text(5, 42, 512) != schema.pad_text(5, 43, 512)
    assert len(schema.pad_text(1, 1, 7168)) == 7168


def test_sqlite_row_fills_more_than_half_an_8k_leaf_without_overflow():
    shape = schema.geometry("sqlite")
    usable = shape.page_size - 8  # leaf header
    assert shape.page_size == 8192
    assert 2 * shape.row_bytes > usable  # two rows never share a leaf
    assert shape.row_bytes < shape.page_size - 35  # SQLite's largest in-page payload


def test_postgres_fillfactor_leaves_one_row_per_block():
    shape = schema.geometry("postgres")
    tuple_bytes = 24 + 4 + 4 + 4 + shape.pad + 4  # header, ints, varlena header, line pointer
    reserve = shape.page_size * (100 - shape.fillfactor) // 100  # free space INSERT keeps
    free = shape.page_size - 24  # after the page header
    assert free - tuple_bytes >= reserve  # the first row fits
    assert free - 2 * tuple_bytes < reserve  # a second one goes to a new block
    assert shape.pad < 2000  # below TOAST's threshold: stored inline, uncompressed


@pytest.mark.parametrize(("page", "pad"), [(16384, 7168), (8192, 3584), (4096, 1792)])
def test_mysql_two_rows_per_innodb_page(page, pad):
    shape = schema.geometry("mysql", page)
    assert shape.pad == pad
    record = shape.row_bytes + 5 + 6 + 7 + 2  # header, trx id, roll pointer, length
    assert 2 * record < page - 120 < 3 * record
    assert record < page // 2  # in the page, not off-page


def test_create_table_takes_the_placement():
    pg = schema.create_table(schema.geometry("postgres"), "user_2", "", " TABLESPACE dbstor_d1")
    assert pg.endswith("WITH (fillfactor = 10) TABLESPACE dbstor_d1")
    key = schema.add_primary_key(schema.geometry("postgres"), "user_2", " TABLESPACE dbstor_d1")
    assert key == (
        "ALTER TABLE user_2 ADD CONSTRAINT user_2_pkey PRIMARY KEY (id)"
        " USING INDEX TABLESPACE dbstor_d1"
    )
    lite = schema.create_table(schema.geometry("sqlite"), "user_2", "d1.")
    assert lite.startswith("CREATE TABLE d1.user_2 (id INTEGER PRIMARY KEY,")
    my = schema.create_table(schema.geometry("mysql"), "user_2", "", " DATA DIRECTORY='/x'")
    assert "PRIMARY KEY (id)" in my and my.endswith("DATA DIRECTORY='/x'")
    assert "VARCHAR(7168) CHARACTER SET ascii" in my
    assert schema.add_primary_key(schema.geometry("mysql"), "user_2") is None


@pytest.mark.parametrize("dialect", ["sqlite", "postgres", "mysql"])
def test_fill_parameters_match_placeholders(dialect):
    statement = schema.fill(schema.geometry(dialect), "user_1")
    marks = statement.count("?") if dialect == "sqlite" else statement.count("%s")
    assert marks == len(schema.fill_params(dialect, 7, 1, 1000))
    assert "INSERT INTO user_1 (id, version, pad)" in statement
    if dialect == "mysql":
        assert schema.chunk_rows(dialect) <= 1000  # recursive CTEs stop at 1,000


@pytest.mark.parametrize("dialect", ["sqlite", "postgres", "mysql"])
@pytest.mark.parametrize("batch", [1, 5])
def test_statements_are_parameterised_by_batch(dialect, batch):
    mark = "?" if dialect == "sqlite" else "%s"
    read, update = sql.read_sql(dialect, "user_3", batch), sql.update_sql(dialect, "user_3", batch)
    for statement in (read, update):
        assert statement.count(mark) == batch
        assert not re.search(r"\d{2,}", statement)  # no literal keys written in
    assert read.startswith("SELECT COUNT(version) FROM user_3 WHERE id")
    assert update.startswith("UPDATE user_3 SET version = version + 1 WHERE id")

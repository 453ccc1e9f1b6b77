"""No value of any DSN parameter reaches a message, known or not (a misspelt ?pasword= is
a password): every engine, `run` and `engines --check`, with a secret as the value of an
unknown parameter, of a misspelt password and of a known parameter that is refused."""

from __future__ import annotations

import os

import pytest

from dbstor.engines.registry import ENGINES, engine_class

pytestmark = pytest.mark.integration

SECRET = "S3CR3Tvalue"
# every server engine from its declaration (ServerEngine.dsn_form, password_env), at a
# port where nothing listens
SERVERS = {n: c for n in ENGINES if (c := engine_class(n)).is_server and c.dsn_form}
BASES = {
    n: c.dsn_form.format(user="u", password="pw", host="127.0.0.1", port=1)
    for n, c in SERVERS.items()
}
QUERIES = {
    "misspelt password": f"pasword={SECRET}",
    "unknown parameter": f"x=1&zz={SECRET}",
    "known parameter, bad value": f"connect_timeout={SECRET}",
}
ENV = {c.password_env: "pw" for c in SERVERS.values() if c.password_env}


@pytest.mark.parametrize("command", ["run", "check"])
@pytest.mark.parametrize("query", list(QUERIES))
@pytest.mark.parametrize("engine", list(BASES))
def test_no_dsn_value_reaches_a_message(dbstor, tmp_path, engine, query, command):
    dsn = f"{BASES[engine]}?{QUERIES[query]}"
    if command == "run":
        args = ["run", "--engine", engine, "--dsn", dsn, "--out", str(tmp_path / "o")]
    else:
        args = ["engines", "--check", "--engine", engine, "--dsn", dsn]
    proc = dbstor(*args, env={**os.environ, **ENV}, timeout=60)
    dbstor.assert_user_error(proc)
    assert SECRET not in proc.stderr + proc.stdout, proc.stderr


def test_a_key_value_postgres_dsn_hides_every_value_but_where_and_who(dbstor):
    dsn = f"host=127.0.0.1 port=1 user=u dbname=db pasword={SECRET}"
    proc = dbstor("engines", "--check", "--engine", "postgres", "--dsn", dsn)
    dbstor.assert_user_error(proc)
    assert SECRET not in proc.stderr + proc.stdout, proc.stderr

"""The Oracle engine without a server: its DSN (parsed, refused in one line, the password
never shown), the password from the environment, error classes of python-oracledb's own
errors, a real refused connection to a port where nothing listens, the schema and
tablespaces it makes and drops (on a recording connection: one function at a time), its
placement and what results.json gets."""

from __future__ import annotations

import re
import socket

import oracledb
import pytest
from oracledb.errors import _Error as OracleErrorDetail

from dbstor.engines import oracle_space as space
from dbstor.engines import oracle_stats
from dbstor.engines.base import MARKER_TABLE, EngineSettings, ErrorKind
from dbstor.engines.oracle import VERIFIED, OracleEngine
from dbstor.engines.oracle_dsn import PASSWORD_ENV, awr_asked, dsn_secrets, parse_dsn
from dbstor.engines.registry import all_engines, engine_class
from dbstor.errors import UserError

SECRET = "Tiger#Pw-59"
ENV = {PASSWORD_ENV: SECRET}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def engine(dsn: str, monkeypatch: pytest.MonkeyPatch, **paths) -> OracleEngine:
    monkeypatch.setenv(PASSWORD_ENV, SECRET)
    return OracleEngine(EngineSettings(dsn=dsn, paths=paths))


def test_a_dsn_becomes_oracledb_arguments_with_the_password_from_the_environment():
    args = parse_dsn("oracle://system@db.example:1522/FREEPDB1?connect_timeout=7", ENV)
    assert args == {
        "user": "system",
        "password": SECRET,
        "host": "db.example",
        "port": 1522,
        "service_name": "FREEPDB1",
        "tcp_connect_timeout": 7.0,
    }
    assert parse_dsn("oracle://bench:s%40cret@h/ORCL", {})["password"] == "s@cret"
    assert parse_dsn("oracle://bench@h/ORCL", ENV)["port"] == 1521


@pytest.mark.parametrize(
    ("dsn", "needle"),
    [
        ("postgresql://u@h/db", "write oracle://user@host:1521/service_name"),
        ("oracle://u@h:99999/X", "bad Oracle DSN"),
        ("oracle://u@h:1521/", "name the service"),
        ("oracle://h:1521/X", "name the user"),
        ("oracle://u@h/X?expire_time=soon", "expire_time must be a number of minutes"),
        ("oracle://u@h/X?sslmode=on", "unknown parameter sslmode"),
    ],
)
def test_a_bad_dsn_is_one_line_naming_the_fix(dsn, needle):
    with pytest.raises(UserError, match=re.escape(needle)) as refused:
        parse_dsn(dsn, ENV)
    assert "\n" not in str(refused.value)


def test_no_password_anywhere_is_refused_naming_the_variable():
    with pytest.raises(UserError, match=f"set {PASSWORD_ENV}"):
        parse_dsn("oracle://system@h/FREEPDB1", {})


def test_a_password_in_the_dsn_never_reaches_a_message():
    dsn = f"oracle://system:{SECRET}@h:99999/X"
    with pytest.raises(UserError) as refused:
        parse_dsn(dsn, {})
    assert SECRET not in str(refused.value) and "***" in str(refused.value)
    assert set(dsn_secrets(dsn, ENV)) == {SECRET}


def detail(message: str) -> OracleErrorDetail:
    return OracleErrorDetail(message)  # python-oracledb reads the code from the message


@pytest.mark.parametrize(
    ("message", "kind"),
    [
        ("ORA-00060: deadlock detected while waiting for resource", ErrorKind.RETRY),
        ("ORA-08177: can't serialize access for this transaction", ErrorKind.RETRY),
        ("ORA-03113: end-of-file on communication channel", ErrorKind.FATAL),
        ("ORA-03114: not connected to ORACLE", ErrorKind.FATAL),
        ("ORA-12541: Cannot connect. No listener at host 10.0.0.1 port 1521.", ErrorKind.FATAL),
        ("ORA-01653: unable to extend table DBSTOR.STOCK by 128 in tablespace X", ErrorKind.FATAL),
        ("ORA-00001: unique constraint (DBSTOR.SYS_C008) violated", ErrorKind.ERROR),
    ],
)
def test_error_classes(message, kind, monkeypatch):
    ora = engine("oracle://u@h/X", monkeypatch)
    assert ora.classify(oracledb.DatabaseError(detail(message))) == kind


def test_a_refused_connection_is_real_fatal_and_lost_and_one_line(monkeypatch):
    port = free_port()  # nothing listens there: python-oracledb really connects and fails
    ora = engine(f"oracle://system@127.0.0.1:{port}/FREEPDB1", monkeypatch)
    with pytest.raises(oracledb.Error) as refused:
        ora.connect()  # a virtual user's connection: the driver's error, for classify()
    assert ora.classify(refused.value) == ErrorKind.FATAL
    assert ora.lost_server(refused.value).startswith(
        f"the connection to Oracle Database at 127.0.0.1:{port}/FREEPDB1 broke"
    )
    with pytest.raises(UserError) as unreachable:
        ora.check_reachable()  # preflight: one line naming the server, never the password
    line = str(unreachable.value)
    assert f"127.0.0.1:{port}/FREEPDB1" in line and "Connection refused" in line
    assert SECRET not in line and "\n" not in line
    assert ora.unanswered() == f"Oracle Database at 127.0.0.1:{port}/FREEPDB1 stopped answering"


class Recorder:
    """A connection that records statements and answers COUNT queries from a table
    (a unit test of the schema functions alone)."""

    def __init__(self, answers: dict[str, object]):
        self.answers, self.done = answers, []

    def cursor(self):
        return self

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def execute(self, sql, params=()):
        self.done.append(sql)
        self.row = next((v for k, v in self.answers.items() if k in sql), 0)

    def fetchone(self):
        return (self.row,)


def test_the_schema_gets_a_tablespace_per_data_path_and_temp_on_its_path(monkeypatch):
    ora = engine("oracle://u@h/X", monkeypatch, data=["/d0", "/d1"], temp=["/t"], log=["/l"])
    conn = Recorder({"DEFAULT_PERMANENT_TABLESPACE": "USERS"})
    ora._create_workspace(conn)
    ora._mark_workspace(conn)
    made = [s for s in conn.done if s.startswith("CREATE")]
    assert made[0].startswith("CREATE TABLESPACE DBSTOR_0_D0 DATAFILE '/d0/dbstor-oracle-0-d0.dbf'")
    assert made[1].startswith("CREATE TABLESPACE DBSTOR_0_D1 DATAFILE '/d1/dbstor-oracle-0-d1.dbf'")
    assert made[2].startswith("CREATE TEMPORARY TABLESPACE DBSTOR_0_TEMP TEMPFILE '/t/")
    assert made[3] == (
        "CREATE USER DBSTOR NO AUTHENTICATION DEFAULT TABLESPACE DBSTOR_0_D0 TEMPORARY "
        "TABLESPACE DBSTOR_0_TEMP QUOTA UNLIMITED ON DBSTOR_0_D0 QUOTA UNLIMITED ON DBSTOR_0_D1"
    )
    assert made[4].startswith(f"CREATE TABLE DBSTOR.{MARKER_TABLE}")
    assert ora.placement(0) == ("", " TABLESPACE DBSTOR_0_D0")
    assert ora.placement(3) == ("", " TABLESPACE DBSTOR_0_D1")
    described = ora.describe()
    assert described["redo_advice"][0].startswith("ALTER DATABASE ADD LOGFILE GROUP 91 ('/l/")
    assert described["verified"] == VERIFIED and SECRET not in str(described)


def test_a_tablespace_of_dbstors_name_that_exists_is_refused_and_left_alone(monkeypatch):
    ora = engine("oracle://u@h/X", monkeypatch, data=["/d0"])
    conn = Recorder({"dba_tablespaces": 1})
    with pytest.raises(UserError, match="tablespace DBSTOR_0_D0 already exists"):
        ora._create_workspace(conn)
    assert not [s for s in conn.done if s.startswith(("CREATE", "DROP"))]


def test_dropping_the_schema_drops_only_its_empty_tablespaces(monkeypatch):
    ora = engine("oracle://u@h/X", monkeypatch, data=["/d0", "/d1"])
    conn = Recorder({"dba_tablespaces": 1, "dba_segments WHERE tablespace_name": 0})
    ora._drop_workspace(conn)
    drops = [s for s in conn.done if s.startswith("DROP")]
    assert drops == [
        "DROP USER DBSTOR CASCADE",
        "DROP TABLESPACE DBSTOR_0_D0 INCLUDING CONTENTS AND DATAFILES",
        "DROP TABLESPACE DBSTOR_0_D1 INCLUDING CONTENTS AND DATAFILES",
    ]
    busy = Recorder({"dba_tablespaces": 1, "dba_segments": 3})  # someone else's segments
    ora._drop_workspace(busy)
    assert [s for s in busy.done if s.startswith("DROP")] == ["DROP USER DBSTOR CASCADE"]


def test_an_instance_gets_its_own_schema_and_one_data_path_needs_no_suffix(monkeypatch):
    ora = OracleEngine(EngineSettings(dsn="oracle://u@h/X", instance=2, paths={}))
    assert ora.workspace == "DBSTOR_2" and ora.placement(5) == ("", "")
    assert space.create_spaces(2, {}) == [] and ora.spaces == {}


def test_dbstor_engines_says_what_was_verified_and_that_it_is_external_only():
    row = next(r for r in all_engines() if r[0] == "oracle")
    assert row[2] == "oracle" and row[3].usable and not row[3].managed
    assert (
        VERIFIED
        == "SQL parsed and counters tested on recorded output; not run against a live server here"
    )
    assert VERIFIED in row[3].reason
    assert engine_class("oracle") is OracleEngine


class Refusing(Recorder):
    """Refuses CREATE USER as a server would without the privilege."""

    def execute(self, sql, params=()):
        super().execute(sql, params)
        if sql.startswith("CREATE USER"):
            raise oracledb.DatabaseError(detail("ORA-01031: insufficient privileges"))


def test_a_failed_schema_drops_the_tablespaces_it_made_before(monkeypatch):
    ora = engine("oracle://u@h/X", monkeypatch, data=["/d0"], temp=["/t"])
    conn = Refusing({"DEFAULT_PERMANENT_TABLESPACE": "USERS"})
    with pytest.raises(oracledb.DatabaseError):
        ora._create_workspace(conn)
    assert [s for s in conn.done if s.startswith("DROP")] == [
        "DROP TABLESPACE DBSTOR_0_TEMP INCLUDING CONTENTS AND DATAFILES",
        "DROP TABLESPACE DBSTOR_0_D0 INCLUDING CONTENTS AND DATAFILES",
    ]


def test_counters_of_a_server_that_cannot_be_asked_are_null_with_the_reason(monkeypatch):
    ora = engine(f"oracle://system@127.0.0.1:{free_port()}/FREEPDB1", monkeypatch)
    counters = ora.counters()  # a real connection attempt, refused
    assert counters.physical_reads is None and counters.storage_read_bytes is None
    reasons = set(counters.why_null.values())
    assert len(reasons) == 1 and "Connection refused" in reasons.pop()
    assert len(counters.why_null) == 5


def test_awr_is_off_unless_the_dsn_asks_and_a_bad_value_is_one_line():
    assert not awr_asked("oracle://u@h/X") and not awr_asked("oracle://u@h/X?awr=off")
    assert awr_asked("oracle://u@h/X?awr=on") and awr_asked("oracle://u@h/X?awr=ON")
    assert "awr" not in parse_dsn("oracle://u@h/X?awr=on", ENV)  # never passed to connect()
    with pytest.raises(UserError, match="awr must be on or off .*Diagnostics Pack licence"):
        parse_dsn("oracle://u@h/X?awr=yes", ENV)


def test_the_awr_snapshots_of_a_window_name_the_report_or_say_why_none():
    assert oracle_stats.awr_pair([41, 42]) == {
        "begin_snap_id": 41,
        "end_snap_id": 42,
        "report": "@?/rdbms/admin/awrrpt.sql with begin_snap 41, end_snap 42",
    }
    failed = oracle_stats.awr_pair([41, "ORA-01031: insufficient privileges (EXECUTE ...)"])
    assert failed["begin_snap_id"] is None and failed["end_snap_id"] is None
    assert failed["why"] == "no AWR snapshot: ORA-01031: insufficient privileges (EXECUTE ...)"


def test_an_awr_snapshot_that_cannot_be_taken_says_why_and_what_it_needs(monkeypatch):
    ora = engine(f"oracle://system@127.0.0.1:{free_port()}/FREEPDB1?awr=on", monkeypatch)
    why = ora._awr_snapshot()  # a real connection attempt, refused
    assert isinstance(why, str) and "refused" in why.lower()
    assert why.endswith("(EXECUTE on DBMS_WORKLOAD_REPOSITORY, and the Diagnostics Pack licence)")
    assert SECRET not in why

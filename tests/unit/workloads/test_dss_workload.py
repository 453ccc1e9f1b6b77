from pathlib import Path

import pytest

from dbstor.errors import UserError
from dbstor.workloads.dss import DssWorkload
from dbstor.workloads.dss import generate as gen
from dbstor.workloads.dss.catalog import PERMUTATIONS
from dbstor.workloads.registry import workload_class


def test_registered_with_its_names_and_fractional_scale():
    cls = workload_class("dss")
    assert cls is DssWorkload
    assert cls.title == "Decision support (TPC-H-like)" and cls.mix == {}
    assert cls.default_scale == 1 and cls.scale_unit == "scale factor"
    assert set(cls.dialects) >= {"duckdb", "postgres", "sqlite", "tsql"}
    assert DssWorkload(0.01).scale == 0.01 and DssWorkload("0.1").scale == 0.1


@pytest.mark.parametrize("scale", [0, -1, "x", None, float("nan")])
def test_bad_scale_is_one_line(scale):
    with pytest.raises(UserError) as error:
        DssWorkload(scale)
    assert "scale" in str(error.value) and "\n" not in str(error.value)


@pytest.mark.parametrize(
    ("options", "needle"),
    [
        ({"queries": "1,99"}, "unknown query '99'"),
        ({"indexes": "some"}, "indexes must be one of all, primary, none"),
        ({"validate": "perhaps"}, "validate must be true or false"),
        ({"seed": "1.5"}, "seed must be a whole number"),
        ({"users": 3}, "unknown dss option(s) users"),
    ],
)
def test_bad_options_are_one_line(options, needle):
    with pytest.raises(UserError) as error:
        DssWorkload(1, options=options)
    assert needle in str(error.value) and "\n" not in str(error.value)


def test_streams_seeded_by_seed_and_stream_validation_identical():
    w = DssWorkload(1, seed=4, options={"queries": "all"})
    assert [q.number for q in w.query_set()] == list(range(1, 23))
    power = w.stream(0, "duckdb")
    assert [q.number for q, _ in power] == list(range(1, 23))
    assert [q.number for q, _ in w.stream(5, "duckdb")] == list(PERMUTATIONS[5])
    assert w.stream(3, "duckdb") == DssWorkload(1, seed=4, options={"queries": "all"}).stream(
        3, "duckdb"
    )
    assert dict(w.stream(1, "sqlite")) != dict(w.stream(2, "sqlite"))
    checked = DssWorkload(1, options={"queries": "all", "validate": "true"})
    sql = {q.number: s for q, s in checked.stream(7, "postgres")}
    assert "r_name = 'EUROPE'" in sql[2] and "c_mktsegment = 'BUILDING'" in sql[3]
    assert DssWorkload(1, seed=None).validate
    with pytest.raises(UserError, match="no SQL for dialect 'mysql'"):
        w.stream(0, "mysql")


def test_default_set_in_tr3476_order_and_its_stream_order():
    w = DssWorkload(1, seed=2)
    assert [q.name for q in w.query_set()] == ["Q6", "Q2", "Q9", "Q1", "Q3", "Q12"]
    assert [q.tr3476_code for q in w.query_set()] == ["PE", "CE", "SP", "PS", "UO", "LR"]
    assert [q.number for q, _ in w.stream(1, "duckdb")] == [3, 6, 12, 2, 9, 1]
    info = w.describe()
    assert info["options"]["queries"] == ["Q6", "Q2", "Q9", "Q1", "Q3", "Q12"]
    assert info["queries"][3]["tr3476"] == "Pricing Summary" and info["mix"] == {}


def test_session_is_not_how_dss_runs():
    with pytest.raises(NotImplementedError):
        DssWorkload(1).session(None, None, 0)  # type: ignore[arg-type]


def test_missing_generator_names_the_install(monkeypatch, tmp_path):
    monkeypatch.setattr(gen.sys, "executable", str(tmp_path / "python"))
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(UserError) as error:
        gen.find_generator()
    assert "pip install tpchgen-cli" in str(error.value) and "dbstor[dss]" in str(error.value)


def test_generator_found_beside_the_interpreter(monkeypatch, tmp_path):
    fake = tmp_path / "tpchgen-cli"
    fake.write_text("#!/bin/sh\n")
    fake.chmod(0o755)
    monkeypatch.setattr(gen.sys, "executable", str(tmp_path / "python"))
    monkeypatch.setenv("PATH", "")
    assert gen.find_generator() == fake


def test_staging_refuses_when_the_disk_is_too_small(monkeypatch, tmp_path):
    class Usage:
        free = 10 << 20

    monkeypatch.setattr(gen.shutil, "disk_usage", lambda path: Usage)
    with pytest.raises(UserError, match="needs about .* free space"):
        gen.staging_directory(tmp_path, 1, "csv")
    assert gen.staging_directory(tmp_path, 0.001, "parquet").parent == tmp_path
    assert gen.scale_text(1.0) == "1" and gen.scale_text(0.01) == "0.01"
    with pytest.raises(UserError, match="does not exist"):
        gen.staging_directory(Path(tmp_path / "missing"), 1, "csv")

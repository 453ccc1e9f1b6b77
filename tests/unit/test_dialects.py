"""Dialects own their differences: the registry, and no branch on a dialect's or engine's
name anywhere in src/dbstor outside engines/ and dialects/ (read with ast, not grep)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from dbstor.dialects import registry
from dbstor.dialects.base import Dialect
from dbstor.engines.planned import PLANNED
from dbstor.engines.registry import ALIASES, ENGINES, engine_class
from dbstor.workloads.registry import WORKLOADS, workload_class

PACKAGE = Path(__file__).resolve().parents[2] / "src" / "dbstor"
OWNERS = ("engines", "dialects")  # the only places that may name an engine or dialect
NAMES = frozenset(
    {*registry.names(), *ENGINES, *ALIASES, *(p.name for p in PLANNED), "mysql", "postgresql"}
)


def _is_name(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in NAMES


def _all_names(node: ast.AST) -> bool:
    """A tuple, list or set literal of engine or dialect names (a hand-kept DIALECTS)."""
    elts = getattr(node, "elts", None) if isinstance(node, ast.Tuple | ast.List | ast.Set) else None
    return bool(elts) and all(_is_name(e) for e in elts)


def name_branches(source: str) -> list[tuple[int, str]]:
    """(line, what) for every place the source branches on an engine's or dialect's name:
    a comparison or membership test with a name or a list of names, a list of names kept
    by hand, a dict keyed by names (a dispatch table), a match case on a name."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            if any(_is_name(s) or _all_names(s) for s in sides):
                found.append((node.lineno, "comparison with an engine or dialect name"))
        elif _all_names(node):
            found.append((node.lineno, "a list of engine or dialect names"))
        elif isinstance(node, ast.Dict) and any(k is not None and _is_name(k) for k in node.keys):
            found.append((node.lineno, "a dict keyed by engine or dialect names"))
        elif isinstance(node, ast.MatchValue) and _is_name(node.value):
            found.append((node.lineno, "a match case on an engine or dialect name"))
    return found


def test_no_branch_on_an_engine_or_dialect_name_outside_engines_and_dialects():
    offenders = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.relative_to(PACKAGE).parts[0] in OWNERS:
            continue
        for line, what in name_branches(path.read_text()):
            offenders.append(f"{path.relative_to(PACKAGE)}:{line}: {what}")
    assert not offenders, (
        "ask the dialect (dbstor.dialects.registry.get(name) and its parts) or the engine "
        "class instead:\n" + "\n".join(offenders)
    )


@pytest.mark.parametrize(
    "source",
    [
        'if dialect == "postgres":\n    pass',
        'x = "{%s}" if self.dialect != "sqlite" else "%s"',
        'ok = dialect in ("postgres", "mysql")',
        'DIALECTS = ("duckdb", "postgres", "sqlite")',
        'LOADERS = {"duckdb": 1, "postgres": 2}',
        'match engine:\n    case "mariadb":\n        pass',
        'if name in {"oracle"}:\n    pass',
    ],
)
def test_the_scan_finds_each_kind_of_branch(source):
    assert name_branches(source)


def test_the_scan_leaves_plain_values_alone():
    assert not name_branches('engine: str = "sqlite"\nto_file(data, "duckdb" if a else "sqlite")')
    assert not name_branches('KINDS = ("table", "index")\nif kind == "table":\n    pass')


def test_the_dialects_are_the_packages_that_exist():
    found = {p.name for p in (PACKAGE / "dialects").iterdir() if (p / "__init__.py").exists()}
    assert set(registry.names()) == found  # a new dialect is its package: nothing to list
    assert found >= {"duckdb", "mysql", "oracle", "tsql", "postgres", "sqlite"}
    for name in registry.names():
        dialect = registry.get(name)
        assert isinstance(dialect, Dialect) and dialect.name == name


def test_an_unknown_dialect_is_answered_with_the_nearest_names():
    with pytest.raises(ValueError, match=r"unknown dialect 'postgre'.*did you mean postgres"):
        registry.get("postgre")
    with pytest.raises(ValueError, match="the blocks workload has no SQL for dialect 'duckdb'"):
        registry.for_workload("duckdb", "blocks")


def test_every_engine_speaks_a_dialect_that_exists():
    for name in ENGINES:
        assert engine_class(name).dialect in registry.names(), name


def test_a_workloads_dialects_are_those_that_list_it():
    for name in WORKLOADS:
        dialects = workload_class(name).dialects
        assert dialects == registry.running(name) and dialects, name
        for dialect in dialects:
            assert name in registry.get(dialect).workloads


def test_parts_are_found_by_name_and_absent_where_a_dialect_has_none():
    assert registry.get("postgres").part("orders") is not None
    assert registry.get("sqlite").part("orders") is None  # client-side statements only
    assert set(registry.having("orders")) >= {"mysql", "oracle", "tsql", "postgres"}
    assert set(registry.having("blocks")) >= {"mysql", "oracle", "tsql", "postgres", "sqlite"}


def test_a_kin_dialect_uses_its_parents_parts_where_it_has_none():
    """A dialect that extends another (as sqlglot's Redshift extends Postgres) needs no
    package of parts: it runs its parent's orders, blocks and brokerage SQL, and a part of
    its own, where it has one, comes first."""
    postgres = registry.get("postgres")

    class Kin(type(postgres)):
        name = "kin_of_postgres"

    kin = Kin()
    assert kin.lineage == ("kin_of_postgres", "postgres")
    for workload in ("orders", "blocks", "brokerage"):
        assert kin.part(workload) is postgres.part(workload), workload
    assert kin.part("dss") is None  # the parent has no dss part either
    assert registry.get("mysql").lineage == ("mysql",)


def test_only_dialects_with_a_server_side_limit_say_how_to_set_it():
    limits = {name: registry.get(name).statement_timeout(2.5) for name in registry.names()}
    server_side = {n for n in registry.names() if "postgres" in registry.get(n).lineage}
    assert {n: limits.pop(n) for n in server_side} == dict.fromkeys(
        server_side, "SET statement_timeout = 2500"
    )  # PostgreSQL and its kin
    assert set(limits.values()) == {None}  # the QueryTimer interrupts from the client


def test_dialects_sit_under_the_workloads_and_above_nothing_that_runs_them():
    """A dialect package imports engines/ (libpq's prepared statements), errors and the
    standard library, never what asks it for SQL (workloads, drivers) or runs it: a
    workload passes its neutral pieces in, so no package cycle can form."""
    above = ("workloads", "drivers", "runs", "cluster", "report", "commands", "cli", "analysis")
    failures = []
    for path in sorted((PACKAGE / "dialects").rglob("*.py")):
        tree = ast.parse(path.read_text())
        type_only = {  # under `if TYPE_CHECKING:`: names for type hints, never imported
            id(inner)
            for block in ast.walk(tree)
            if isinstance(block, ast.If) and getattr(block.test, "id", "") == "TYPE_CHECKING"
            for inner in ast.walk(block)
        }
        for node in ast.walk(tree):
            if id(node) in type_only:
                continue
            names = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
                if isinstance(node, ast.ImportFrom)
                else []
            )
            for name in names:
                parts = name.split(".")
                if parts[0] == "dbstor" and len(parts) > 1 and parts[1] in above:
                    failures.append(f"{path.relative_to(PACKAGE)}:{node.lineno}: imports {name}")
    assert not failures, "\n".join(failures)

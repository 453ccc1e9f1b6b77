"""The shape of src/dbstor, checked from its source: no import circles, one direction
between layers, small modules that say what they are for, no private names shared.

The module graph is read with ast, not by importing: every `import` and `from ... import`
counts, inside functions too, and those under `if TYPE_CHECKING:` as well (a type-only
import never runs, but a circle through one is still two modules that cannot be read
apart). `from dbstor.pkg import name` is an edge to the submodule dbstor.pkg.name when there
is one, else to dbstor.pkg. Importing a submodule is not counted as importing its package.
Database drivers are imported only by engines/ and dialects/.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from dbstor.engines.registry import ENGINES, engine_class

SRC = Path(__file__).resolve().parents[2] / "src"
PACKAGE = SRC / "dbstor"
MAX_LINES = 400
MAX_FUNCTION_LINES = 100  # a longer function is split into named steps

# Layers below the runs: they never reach up into what runs them or shows their results.
LOWER_LAYERS = ("drivers", "engines", "workloads", "telemetry", "analysis", "events")
UPPER_MODULES = (
    "dbstor.runs", "dbstor.cluster", "dbstor.kube", "dbstor.report", "dbstor.commands", "dbstor.cli",
)  # fmt: skip
# Several hosts through Ray: it places the runs' points (runs' workers) on hosts, so it sits
# above the runs and below the commands; nothing under it reaches up into it.
CLUSTER = "dbstor.cluster"
# Kubernetes Jobs (kube render, run, collect) sit at the same place, beside cluster.
SIDE_LAYERS = (CLUSTER, "dbstor.kube")
ABOVE_CLUSTER = ("dbstor.commands", "dbstor.cli", "dbstor.report")
# A dialect is below the workloads: they hand it neutral shapes (dialects/shapes.py).
BELOW_WORKLOADS = ("dbstor.dialects",)
# Database drivers: only the engines and the dialects import them (an engine connects, a
# dialect speaks the driver's ways); an export format that happens to be one is named here.
# Each registered engine declares its driver (Engine.driver), so a new engine's is read from
# the registry; beside them SQLite's (the standard library's, declared None) and greenlet
# (the loop of PostgreSQL's threadless brokerage sessions).
DRIVERS = tuple(sorted({engine_class(n).driver or "sqlite3" for n in ENGINES} | {"greenlet"}))
DRIVER_ROOMS = ("dbstor.engines", "dbstor.dialects")
EXPORT_FORMATS = {"dbstor.catalog.export": {"duckdb", "sqlite3"}}  # the catalog as a database file
# Under everything: they import only each other (and the standard library).
FOUNDATION = (
    "dbstor.errors",
    "dbstor.units",
    "dbstor.host",
    "dbstor.results",
    "dbstor.study",
    "dbstor.testfiles",
    "dbstor.safefs",  # every write and delete in a results folder
    "dbstor.lifeline",  # the watcher that cleans up after a killed dbstor
    "dbstor.lifeline_undo",  # its undo of throttles and snapshots
    "dbstor.userfiles",  # every read of a file a user names: type and size checked first
    "dbstor.stopsignals",  # how every command ends on a signal, from the first line
)


@dataclass
class Imports:
    """What one module imports, read from its source."""

    # (imported module, line, runs: False under `if TYPE_CHECKING:`)
    edges: list[tuple[str, int, bool]] = field(default_factory=list)
    # (module the name comes from, private name, line)
    private: list[tuple[str, str, int]] = field(default_factory=list)


@dataclass
class Module:
    name: str
    path: Path
    tree: ast.Module
    imports: Imports


def module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


@cache
def modules() -> dict[str, Module]:
    trees = {module_name(p): (p, ast.parse(p.read_text())) for p in sorted(PACKAGE.rglob("*.py"))}
    known = set(trees)
    return {
        name: Module(name, path, tree, read_imports(name, path.name == "__init__.py", tree, known))
        for name, (path, tree) in trees.items()
    }


def _resolve(name: str, known: set[str]) -> str | None:
    """The longest known module that `name` is, or lies in (None: outside dbstor)."""
    while name and name not in known:
        name = name.rpartition(".")[0]
    return name or None


def read_imports(name: str, is_package: bool, tree: ast.Module, known: set[str]) -> Imports:
    """The modules among `known` that module `name` imports, and the private names it
    takes from them."""
    found = Imports()
    package = name if is_package else name.rpartition(".")[0]

    def add(target: str | None, line: int, runs: bool) -> None:
        if target and target != name:
            found.edges.append((target, line, runs))

    def visit(node: ast.AST, runs: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _is_type_checking(child):
                for inner in child.body:
                    visit_one(inner, False)
                for inner in child.orelse:
                    visit_one(inner, runs)
            else:
                visit_one(child, runs)

    def visit_one(node: ast.AST, runs: bool) -> None:
        if isinstance(node, ast.Import):
            for alias in node.names:
                add(_resolve(alias.name, known), node.lineno, runs)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                source = ".".join([*base, *([node.module] if node.module else [])])
            else:
                source = node.module or ""
            for alias in node.names:
                sub = f"{source}.{alias.name}"
                target = sub if sub in known else _resolve(source, known)
                add(target, node.lineno, runs)
                private = alias.name.startswith("_") and not alias.name.startswith("__")
                if private and target and target != name:
                    found.private.append((target, alias.name, node.lineno))
        visit(node, runs)

    visit(tree, True)
    return found


def strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's components with more than one module (iterative: no recursion limit)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    components.append(sorted(component))
    return components


def _in(name: str, prefixes: tuple[str, ...]) -> bool:
    return any(name == p or name.startswith(p + ".") for p in prefixes)


def _rel(module: Module) -> str:
    return str(module.path.relative_to(SRC.parent))


def _runtime_graph() -> dict[str, set[str]]:
    """Every edge, type-only ones included (the name is kept from when they were not)."""
    return {m.name: {t for t, _, _ in m.imports.edges} for m in modules().values()}


def driver_imports(tree: ast.Module) -> list[tuple[str, int]]:
    """(driver, line) for every import of a database driver, under TYPE_CHECKING too."""
    found = []
    for node in ast.walk(tree):
        names = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            names = [node.module]
        found += [(n.split(".")[0], node.lineno) for n in names if n.split(".")[0] in DRIVERS]
    return found


def driver_offences(name: str, tree: ast.Module) -> list[str]:
    if _in(name, DRIVER_ROOMS):
        return []
    allowed = EXPORT_FORMATS.get(name, set())
    return [
        f"{name}:{line} imports {driver} (driver rule: only {', '.join(DRIVER_ROOMS)} "
        "import a database driver; ask the engine or the dialect)"
        for driver, line in driver_imports(tree)
        if driver not in allowed
    ]


def _cycle_messages(graph: dict[str, set[str]], what: str) -> list[str]:
    messages = []
    for component in strongly_connected(graph):
        members = set(component)
        edges = [f"{a} -> {b}" for a in component for b in sorted(graph[a] & members)]
        messages.append(f"{', '.join(component)}: {what}: {'; '.join(edges)}")
    return messages


READER_SAMPLE = """
from typing import TYPE_CHECKING
from . import b
from .c import helper, _hidden
import dbstor.d.e

if TYPE_CHECKING:
    from dbstor.f import F

def later():
    from dbstor.g import thing
"""


def test_the_reader_counts_function_level_imports_and_marks_type_checking() -> None:
    known = {"dbstor", "dbstor.a", "dbstor.a.x", "dbstor.a.b", "dbstor.a.c", "dbstor.d"}
    known |= {"dbstor.f", "dbstor.g"}
    found = read_imports("dbstor.a.x", False, ast.parse(READER_SAMPLE), known)
    runtime = {t for t, _, runs in found.edges if runs}
    assert runtime == {"dbstor.a.b", "dbstor.a.c", "dbstor.d", "dbstor.g"}
    assert {t for t, _, runs in found.edges if not runs} == {"dbstor.f"}
    assert [(source, name) for source, name, _ in found.private] == [("dbstor.a.c", "_hidden")]
    assert strongly_connected({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


PLANTED_DRIVERS = """
import psycopg
from typing import TYPE_CHECKING
if TYPE_CHECKING:
    from MySQLdb.connections import Connection
def later():
    import greenlet.greenlet, json
"""


def test_the_driver_rule_catches_a_planted_import() -> None:
    tree = ast.parse(PLANTED_DRIVERS)
    assert [d for d, _ in driver_imports(tree)] == ["psycopg", "MySQLdb", "greenlet"]
    assert len(driver_offences("dbstor.workloads.x", tree)) == 3
    assert driver_offences("dbstor.dialects.postgres.brokerage", tree) == []
    assert len(driver_offences("dbstor.catalog.export", tree)) == 3  # duckdb, sqlite3 only


def test_only_engines_and_dialects_import_a_database_driver() -> None:
    failures = [
        f"{_rel(m)}: {offence}"
        for m in modules().values()
        for offence in driver_offences(m.name, m.tree)
    ]
    assert not failures, "\n".join(failures)


def test_a_type_only_import_closes_a_circle() -> None:
    """The circle dialects/base -> workloads/tables -> dialects/registry -> base ran only
    through `if TYPE_CHECKING:`; the reader sees it."""
    planted = "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from dbstor.b import B\n"
    known = {"dbstor.a", "dbstor.b"}
    a = read_imports("dbstor.a", False, ast.parse(planted), known)
    b = read_imports("dbstor.b", False, ast.parse("from dbstor.a import thing\n"), known)
    graph = {"dbstor.a": {t for t, _, _ in a.edges}, "dbstor.b": {t for t, _, _ in b.edges}}
    assert strongly_connected(graph) == [["dbstor.a", "dbstor.b"]]


def dialect_offences(name: str, edges: list[tuple[str, int, bool]]) -> list[str]:
    """A dialect naming a workload's module: an arrow back up, type-only or not."""
    if not _in(name, BELOW_WORKLOADS):
        return []
    return [
        f"{name}:{line} imports {target} (layer rule: dialects sit below the workloads; "
        "shared types go in dialects/shapes.py)"
        for target, line, _ in edges
        if _in(target, ("dbstor.workloads",))
    ]


def test_dialects_never_import_workloads() -> None:
    """A workload hands a dialect neutral shapes (dialects/shapes.py)."""
    planted = [("dbstor.workloads.tables", 14, False)]  # the type-only import that was here
    assert len(dialect_offences("dbstor.dialects.base", planted)) == 1
    assert dialect_offences("dbstor.workloads.bulk", planted) == []
    failures = [
        f"{_rel(m)}: {offence}"
        for m in modules().values()
        for offence in dialect_offences(m.name, m.imports.edges)
    ]
    assert not failures, "\n".join(failures)


def test_no_import_cycles() -> None:
    """Strongly connected components of the module graph (type-only imports included)."""
    failures = _cycle_messages(_runtime_graph(), "import cycle (no import circles)")
    assert not failures, "\n".join(failures)


def test_no_cycles_between_top_level_packages() -> None:
    """The same one level up: dbstor.results, dbstor.telemetry, dbstor.report... as nodes
    (a circle between packages, even with no module-level one, is a back edge)."""
    graph: dict[str, set[str]] = {}
    for name, targets in _runtime_graph().items():
        top = ".".join(name.split(".")[:2])
        graph.setdefault(top, set()).update(
            ".".join(t.split(".")[:2]) for t in targets if ".".join(t.split(".")[:2]) != top
        )
    failures = _cycle_messages(graph, "package cycle (one direction between packages)")
    assert not failures, "\n".join(failures)


def test_lower_layers_never_import_runs_report_or_commands() -> None:
    """Type-only imports count here too: a back edge is one even when it only names a type."""
    failures = [
        f"{_rel(m)}:{line}: {m.name} imports {target} (layer rule: "
        f"{', '.join(LOWER_LAYERS)} never import runs, report, commands)"
        for m in modules().values()
        if _in(m.name, tuple(f"dbstor.{layer}" for layer in LOWER_LAYERS))
        for target, line, _ in m.imports.edges
        if _in(target, UPPER_MODULES)
    ]
    assert not failures, "\n".join(failures)


def test_the_cluster_layer_sits_between_the_runs_and_the_commands() -> None:
    """runs and the layers below never import cluster or kube (a single-host run needs no
    Ray and no Kubernetes); neither imports the commands, the CLI or the report."""
    below = tuple(f"dbstor.{layer}" for layer in (*LOWER_LAYERS, "runs"))
    failures = [
        f"{_rel(m)}:{line}: {m.name} imports {target} (layer rule: "
        f"{', '.join(below)} never import {', '.join(SIDE_LAYERS)}; these never import "
        f"{', '.join(ABOVE_CLUSTER)})"
        for m in modules().values()
        for target, line, _ in m.imports.edges
        if (_in(m.name, below + FOUNDATION) and _in(target, SIDE_LAYERS))
        or (_in(m.name, SIDE_LAYERS) and _in(target, ABOVE_CLUSTER))
    ]
    assert not failures, "\n".join(failures)


def test_every_module_the_layers_name_exists() -> None:
    """A rule about a module that is gone checks nothing: every name above is a module or
    package of src/dbstor today."""
    named = {*UPPER_MODULES, *FOUNDATION, *ABOVE_CLUSTER, *SIDE_LAYERS, *BELOW_WORKLOADS}
    named |= {*DRIVER_ROOMS, *EXPORT_FORMATS}
    named |= {f"dbstor.{layer}" for layer in LOWER_LAYERS}
    missing = sorted(n for n in named if n not in modules())
    assert missing == [], f"the layer rules name modules that do not exist: {missing}"


def test_the_foundation_imports_only_the_foundation() -> None:
    """errors, units, host, results, study and testfiles sit under everything: the engines
    use testfiles' ownership checks, never the other way round."""
    failures = [
        f"{_rel(m)}:{line}: {m.name} imports {target} (foundation rule: "
        f"{', '.join(FOUNDATION)} import only each other)"
        for m in modules().values()
        if _in(m.name, FOUNDATION)
        for target, line, _ in m.imports.edges
        if target != "dbstor" and not _in(target, FOUNDATION)
    ]
    assert not failures, "\n".join(failures)


def test_every_module_is_under_the_line_limit() -> None:
    failures = []
    for m in modules().values():
        lines = len(m.path.read_text().splitlines())
        if lines >= MAX_LINES:
            failures.append(f"{_rel(m)}: {lines} lines (modules stay under {MAX_LINES} lines)")
    assert not failures, "\n".join(failures)


def long_functions(tree: ast.Module) -> list[tuple[str, int, int]]:
    """(name, first line, lines) of every function or method over MAX_FUNCTION_LINES,
    nested ones included, counted from its def (decorators aside) to its last line."""
    return [
        (node.name, node.lineno, length)
        for node in ast.walk(tree)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
        and (length := node.end_lineno - node.lineno + 1) > MAX_FUNCTION_LINES
    ]


def test_the_function_rule_catches_a_planted_long_function() -> None:
    body = "".join(f"    step_{k} = {k}\n" for k in range(MAX_FUNCTION_LINES))
    planted = f"class A:\n    def long(self):\n    {body.replace(chr(10), chr(10) + '    ')}\n"
    planted += f"def short():\n{body[: body.index(chr(10)) + 1]}"
    assert [(name, lines) for name, _, lines in long_functions(ast.parse(planted))] == [
        ("long", MAX_FUNCTION_LINES + 1)
    ]


def test_every_function_is_at_most_a_hundred_lines() -> None:
    failures = [
        f"{_rel(m)}:{line}: {name} is {lines} lines (split it into named steps; at most "
        f"{MAX_FUNCTION_LINES})"
        for m in modules().values()
        for name, line, lines in long_functions(m.tree)
    ]
    assert not failures, "\n".join(failures)


def test_every_module_opens_with_a_docstring() -> None:
    failures = [
        f"{_rel(m)}: no opening docstring (every module says what it is for)"
        for m in modules().values()
        if not (ast.get_docstring(m.tree) or "").strip()
    ]
    assert not failures, "\n".join(failures)


def test_no_private_names_imported_across_modules() -> None:
    failures = [
        f"{_rel(m)}:{line}: {m.name} imports {name} from {source} "
        "(no _private names across modules: make it public or move it)"
        for m in modules().values()
        for source, name, line in m.imports.private
    ]
    assert not failures, "\n".join(failures)


def test_every_package_folder_is_a_regular_package():
    """A folder without __init__.py is left out of a regular (non-editable) install, which
    is what a cluster host gets from pip install 'dbstor[cluster]'."""
    missing = [
        str(folder.relative_to(SRC.parent))
        for folder in sorted(
            p for p in (SRC / "dbstor").rglob("*") if p.is_dir() and p.name != "__pycache__"
        )
        if not (folder / "__init__.py").exists()
    ]
    assert missing == [], f"folders without __init__.py: {', '.join(missing)}"

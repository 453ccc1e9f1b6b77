"""The engine contract is declared, never probed: runs/, drivers/, cluster/ and workloads/
ask an engine, its connections, a dialect's parts and the workers only what their classes
declare (engines/base.Engine, dialects/base.Dialect, runs/worker.Worker), read with ast.

A probe is any of these in those layers:
- `hasattr(...)` and `issubclass(...)`: asking whether something has a capability;
- `getattr(x, "name")` with a written name, or any `getattr` with a default: reading an
  attribute that may not be there (a `getattr(x, field.name)` over a dataclass's fields
  is reflection over what is declared, not a probe);
- `isinstance(x, C)` where C comes from engines/, dialects/ or a database driver, or is a
  `@runtime_checkable` Protocol of these layers (a structural check is a probe too).
"""

from __future__ import annotations

import ast
from pathlib import Path

from .test_architecture import DRIVERS  # the drivers the engines declare

PACKAGE = Path(__file__).resolve().parents[2] / "src" / "dbstor"
ASKING = ("runs", "drivers", "cluster", "workloads")  # the layers that hold engines and workers
OWNED = ("dbstor.engines", "dbstor.dialects")  # classes whose type is not checked outside


def _imported_classes(tree: ast.Module) -> set[str]:
    """Names this module takes from engines/, dialects/ or a driver."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            owner = node.module.split(".")[0] in DRIVERS or any(
                node.module == o or node.module.startswith(o + ".") for o in OWNED
            )
            if owner:
                names.update(alias.asname or alias.name for alias in node.names)
    return names


def _runtime_protocols(tree: ast.Module) -> set[str]:
    return {
        node.name
        for node in ast.walk(tree)
        if isinstance(node, ast.ClassDef)
        and any(ast.unparse(d).endswith("runtime_checkable") for d in node.decorator_list)
    }


def _class_names(node: ast.AST) -> list[str]:
    """The class names an isinstance's second argument names (a tuple or a union too)."""
    if isinstance(node, ast.Tuple):
        return [n for e in node.elts for n in _class_names(e)]
    if isinstance(node, ast.BinOp):
        return _class_names(node.left) + _class_names(node.right)
    if isinstance(node, ast.Attribute):
        return [node.attr, *_class_names(node.value)]
    return [node.id] if isinstance(node, ast.Name) else []


def probes(source: str, protocols: frozenset[str] = frozenset()) -> list[tuple[int, str]]:
    """(line, what) for every probe in a module's source."""
    tree = ast.parse(source)
    checked = _imported_classes(tree) | _runtime_protocols(tree) | protocols
    found = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)):
            continue
        name, args = node.func.id, node.args
        if name in ("hasattr", "issubclass"):
            found.append((node.lineno, f"{name}(): ask the declared contract instead"))
        elif name == "getattr" and (
            len(args) > 2 or (len(args) == 2 and isinstance(args[1], ast.Constant))
        ):
            found.append((node.lineno, f"{ast.unparse(node)}: an attribute that may be absent"))
        elif name == "isinstance" and len(args) == 2:
            hit = sorted(set(_class_names(args[1])) & checked)
            if hit:
                found.append((node.lineno, f"isinstance on {', '.join(hit)}: a type probe"))
    return found


def _layer_modules() -> list[Path]:
    return sorted(p for layer in ASKING for p in (PACKAGE / layer).rglob("*.py"))


def _all_protocols() -> frozenset[str]:
    return frozenset(
        name
        for path in _layer_modules()
        for name in _runtime_protocols(ast.parse(path.read_text()))
    )


def test_nothing_probes_an_engine_a_connection_a_part_or_a_worker() -> None:
    protocols = _all_protocols()
    offenders = [
        f"{path.relative_to(PACKAGE.parent)}:{line}: {what}"
        for path in _layer_modules()
        for line, what in probes(path.read_text(), protocols)
    ]
    assert not offenders, (
        "probes outside engines/ and dialects/ (declare it on Engine, Dialect or Worker, "
        "with a default, and call it):\n" + "\n".join(offenders)
    )


PLANTED = """
from dbstor.engines.server import ServerEngine
from dbstor.engines.embedded_cap import EmbeddedCap
from typing import Protocol, runtime_checkable

@runtime_checkable
class Hooks(Protocol):
    def attach(self) -> None: ...

def pids(engine, connection, worker, fields):
    a = hasattr(connection, "pgconn")
    b = getattr(engine, "server", None)
    c = getattr(worker, "plan")
    d = issubclass(type(engine), ServerEngine)
    e = isinstance(engine.client_cap, EmbeddedCap | None)
    f = isinstance(engine, Hooks)
    g = isinstance(engine, (int, ServerEngine))
    ok = [getattr(fields, f.name) for f in fields] + [isinstance(engine, dict)]
"""


def test_the_rule_catches_each_planted_shape() -> None:
    lines = [line for line, _ in probes(PLANTED)]
    assert lines == [11, 12, 13, 14, 15, 16, 17]

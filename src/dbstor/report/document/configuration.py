"""The configuration: a bill of materials with the targets side by side (the seeds'
Tables 1-2): the storage's facts, device, file system, the host, the database engine,
its version and settings, and dbstor's version. Machine paths stay in the appendix."""

from __future__ import annotations

from typing import Any

from dbstor.report.database.tables import engine_rows
from dbstor.report.document.frame import side_by_side
from dbstor.report.document.private import is_machine
from dbstor.report.kit.fmt import DASH, fmt_bytes, fmt_value
from dbstor.report.kit.path_words import path_rows
from dbstor.report.kit.summary import is_database
from dbstor.results.model import Run

_ENGINE_ROWS = {"name", "title", "version", "managed", "settings", "memory_limit_bytes"}
_ENGINE_ROWS |= {"buffer_bytes", "cache_bytes", "memory_cap", "dsn"}


def _text(key: str, value: Any) -> str:
    if isinstance(value, dict | list) and any(isinstance(v, dict) for v in value):
        return DASH  # nested: the appendix lists it
    number = isinstance(value, int | float) and not isinstance(value, bool)
    # MariaDB's innodb_buffer_pool_size: 32 MiB, not 33,554,432
    if number and (key.endswith("bytes") or (key.endswith("_size") and value >= 1024)):
        return fmt_bytes(value)
    return fmt_value(value)


def _keys(dicts: list[dict[str, Any]]) -> list[str]:
    return list(dict.fromkeys(k for d in dicts for k, v in d.items() if not is_machine(k, v)))


def _mount(run: Run, key: str) -> str:
    mount = (run.target or {}).get("mount")
    return fmt_value(mount.get(key)) if isinstance(mount, dict) else DASH


_DEVICE_ROWS = (
    ("model", "device model"),
    ("firmware", "device firmware"),
    ("rotational", "rotational"),
    ("scheduler", "I/O scheduler"),
    ("nr_requests", "device queue depth (nr_requests)"),
    ("read_ahead_kb", "read-ahead (KiB)"),
    ("write_cache", "write cache"),
    ("multipath", "multipath"),
)


def _device_fact(run: Run, key: str) -> str:
    """One fact of the devices under the target (target.system), joined when several."""
    system = (run.target or {}).get("system")
    devices = system.get("devices") if isinstance(system, dict) else None
    if not isinstance(devices, dict):
        return DASH
    seen = [fmt_value(d[key]) for d in devices.values() if isinstance(d, dict) and key in d]
    return " / ".join(dict.fromkeys(seen)) or DASH


def _device_rows(runs: list[Run]) -> list[tuple[str, list[str]]]:
    rows = [(label, [_device_fact(r, key) for r in runs]) for key, label in _DEVICE_ROWS]
    return [(label, values) for label, values in rows if any(v != DASH for v in values)]


def _tags(run: Run) -> str:
    tags = run.tags if isinstance(run.tags, dict) else {}
    return ", ".join(f"{k}={v}" for k, v in tags.items()) or DASH


def _engine(run: Run) -> str:
    engine = run.engine or {}
    name = str(engine.get("title") or engine.get("name") or DASH)
    version = str(engine.get("version") or "")
    return version if version.lower().startswith(name.lower()) else f"{name} {version}".strip()


def _engine_words(run: Run) -> dict[str, str]:
    return dict(engine_rows(run.engine or {})) if is_database(run) else {}


def configuration_body(runs: list[Run], names: list[str]) -> str:
    """The bill of materials: one column per run's target."""
    targets = [run.target or {} for run in runs]
    facts = [t.get("facts") if isinstance(t.get("facts"), dict) else {} for t in targets]
    hosts = [run.host or {} for run in runs]
    rows: list[tuple[str, list[str]]] = [
        ("target", [str(t.get("label") or DASH) for t in targets]),
    ]
    if any(_tags(r) != DASH for r in runs):
        rows.append(("tags", [_tags(r) for r in runs]))
    rows += [(k.replace("_", " "), [_text(k, f.get(k)) for f in facts]) for k in _keys(facts)]
    rows += [
        ("device", [str(t.get("device") or "not found") for t in targets]),
        *_device_rows(runs),
        *path_rows(runs),
        ("file system", [_mount(r, "fs") for r in runs]),
        ("mount options", [_mount(r, "options") for r in runs]),
        ("host", [str(h.get("hostname") or DASH) for h in hosts]),
        ("load driven from", [", ".join(map(str, t.get("hosts") or [])) or DASH for t in targets]),
        ("CPU", [f"{h.get('cpus', DASH)} × {h.get('cpu_model', DASH)}" for h in hosts]),
        ("memory", [fmt_bytes(h.get("memory_bytes")) for h in hosts]),
        ("operating system", [fmt_value(h.get("os")) for h in hosts]),
        ("kernel", [fmt_value(h.get("kernel")) for h in hosts]),
        ("CPU governor", [fmt_value(h.get("cpu_governor")) for h in hosts]),
        ("NUMA nodes", [fmt_value(h.get("numa_nodes")) for h in hosts]),
        ("engine", [_engine(r) for r in runs]),
    ]
    engines = [r.engine or {} for r in runs]
    rest = [{k: v for k, v in e.items() if k not in _ENGINE_ROWS} for e in engines]
    settings = [e.get("settings") if isinstance(e.get("settings"), dict) else {} for e in engines]
    for key in _keys(rest):
        rows.append((f"engine {key.replace('_', ' ')}", [_text(key, d.get(key)) for d in rest]))
    for key in _keys(settings):
        rows.append((f"setting {key}", [_text(key, d.get(key)) for d in settings]))
    words = [_engine_words(r) for r in runs]
    for key in ("how it ran", "engine cache", "memory cap"):
        rows.append((key, [w.get(key, DASH) for w in words]))
    rows.append(("dbstor", [str(r.tool_version or DASH) for r in runs]))
    rows.append(("Python", [fmt_value(h.get("python")) for h in hosts]))
    return side_by_side(names, rows)

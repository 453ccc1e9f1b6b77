"""TOML study files -> a coherent Study; an error names the file, field and what is allowed."""

from __future__ import annotations

import dataclasses
import difflib
import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from dbstor.errors import UserError
from dbstor.study.analyses import PER_TARGET, TABLES, analysis_table
from dbstor.study.coherence import coherent
from dbstor.study.consolidation import parse_consolidation
from dbstor.study.data import parse_data_pattern
from dbstor.study.events import events_from_tables
from dbstor.study.mix import parse_mix
from dbstor.study.model import (
    DEFAULT_RATE_USERS,
    DEFAULT_SLO_LIMIT_MS,
    SERIES_KINDS,
    STEADY_MODES,
    DatabaseSpec,
    LoadSeries,
    Study,
    Target,
)
from dbstor.study.profiles import BUILTIN_PROFILES, Profile, parse_distribution
from dbstor.study.tags import tag_table
from dbstor.study.telemetry import config_from_table
from dbstor.study.values import (
    LABEL_RULE,
    PROFILE_NAME_RULE,
    boolean,
    host_names,
    host_port,
    int_list,
    load_values,
    named_profiles,
    nonempty,
    one_of,
    parse_block_split,
    parse_place,
    parse_slo_metric,
    plain_table,
    plain_value,
    positive_int,
    positive_size,
    role_paths_problem,
    short,
    target_label,
)
from dbstor.study.values import count as whole_count
from dbstor.units import (
    parse_block_size,
    parse_latency_ms,
    parse_memory,
    parse_percent,
    parse_point_duration,
    parse_scale,
    parse_timeout,
    parse_warmup,
)
from dbstor.userfiles import read_toml

T = TypeVar("T")
_SECTIONS = {
    "study", "slo", "load", "targets", "profiles", "databases", "telemetry", "cluster",
    "consolidation", "events", "mix", *TABLES,
}  # fmt: skip
_STUDY_KEYS = {
    "name", "profiles", "duration", "warmup", "repeats", "steady", "max_duration", "size",
    "precondition", "baseline", "data", "tags", "pdf",
}  # fmt: skip
_SLO_KEYS, _LOAD_KEYS = {"metric", "limit"}, {"kind", "values", "jobs", "iodepth"}
_TARGET_KEYS = {
    "label", "path", "paths", "facts", "log", "temp", "hosts", "clients", "fast", *PER_TARGET,
    "storage_class"}  # fmt: skip
_DATABASE_KEYS = {
    "engine", "workload", "scale", "users", "instances", "users_per_instance", "think_time",
    "dsn", "dsn_env", "buffer", "memory_limit", "seed", "options", "rate", "streams",
    "client_processes", "cold", "query_timeout", "place",
}  # fmt: skip
_PROFILE_KEYS = {
    "based_on", "description", "source", "pattern", "read_pct", "block_size", "block_split",
    "distribution", "files", "fdatasync", "ioengine", "load_kind", "series", "slo_metric",
}  # fmt: skip
_DSN_WITH_PASSWORD = re.compile(r"://[^:/@\s]+:[^@\s]+@|password\s*=", re.IGNORECASE)


class _Fields:
    """Reads fields of one TOML table, naming file:field in every error."""

    def __init__(self, source: str, prefix: str, table: Any, allowed: set[str]):
        self.source, self.prefix = source, prefix
        if not isinstance(table, dict):
            self.fail("", "must be a table")
        unknown = sorted(set(table) - allowed)
        if unknown:
            hint = difflib.get_close_matches(unknown[0], allowed, n=1)
            extra = f" (did you mean {hint[0]!r}?)" if hint else ""
            self.fail(unknown[0], f"unknown field{extra}; allowed: {', '.join(sorted(allowed))}")
        self.table = table

    def fail(self, key: str, message: str) -> None:
        key = key if key.isprintable() else repr(key)  # a key with a newline stays one line
        where = f"{self.prefix}.{key}" if self.prefix and key else (self.prefix or key)
        raise UserError(f"{self.source}: {where}: {message}")

    def get(self, key: str, parse: Callable[[Any], T], default: T) -> T:
        if key not in self.table:
            return default
        try:
            return parse(self.table[key])
        except (ValueError, TypeError, OverflowError) as exc:
            self.fail(key, str(exc))
        raise AssertionError("unreachable")


def _profile(source: str, name: str, table: Any) -> Profile:
    shown = name if name.isprintable() else repr(name)
    fields = _Fields(source, f"profiles.{shown}", table, _PROFILE_KEYS)
    if not LABEL_RULE.fullmatch(name):
        fields.fail("", PROFILE_NAME_RULE)
    base_name = fields.get("based_on", nonempty, "io-oltp")
    if base_name not in BUILTIN_PROFILES:
        fields.fail(
            "based_on", f"{base_name!r} is not a built-in profile: {', '.join(BUILTIN_PROFILES)}"
        )
    base = BUILTIN_PROFILES[base_name]
    block_size = fields.get("block_size", parse_block_size, base.block_size)
    split = fields.get(
        "block_split", parse_block_split, () if "block_size" in table else base.block_split
    )
    return dataclasses.replace(
        base,
        name=name,
        description=fields.get("description", nonempty, f"custom profile based on {base_name}"),
        source=fields.get("source", nonempty, f"defined in {source}"),
        pattern=fields.get("pattern", one_of(("random", "sequential")), base.pattern),
        read_pct=fields.get("read_pct", parse_percent, base.read_pct),
        block_size=block_size,
        block_split=split,
        distribution=fields.get("distribution", parse_distribution, base.distribution),
        files=fields.get("files", positive_int, base.files),
        fdatasync=fields.get("fdatasync", whole_count, base.fdatasync),
        ioengine=fields.get(
            "ioengine", one_of(("io_uring", "libaio", "psync", "sync", "posixaio")), base.ioengine
        ),
        load_kind=fields.get("load_kind", one_of(("iodepth", "jobs")), base.load_kind),
        default_series=fields.get("series", int_list, base.default_series),
        slo_metric=fields.get("slo_metric", parse_slo_metric, base.slo_metric),
    )


def resolve_profile(name: str, custom: dict[str, Profile] | None = None) -> Profile:
    """A profile by name, built-in or defined in the study; unknown names get a suggestion."""
    known = {**BUILTIN_PROFILES, **(custom or {})}
    if name in known:
        return known[name]
    hint = difflib.get_close_matches(name, known, n=1)
    extra = f" (did you mean {hint[0]!r}?)" if hint else ""
    raise UserError(f"unknown profile {name!r}{extra}; known profiles: {', '.join(known)}")


def _target(source: str, index: int, table: Any, base_dir: Path, cluster: bool) -> Target:
    fields = _Fields(source, f"targets[{index}]", table, _TARGET_KEYS)
    label = fields.get("label", target_label, f"T{index + 1}")
    hosts = fields.get("hosts", host_names, ())
    clients = fields.get("clients", host_names, ())
    for key in ("hosts", "clients"):
        if key in table and not cluster:
            fields.fail(key, 'needs the Ray head: add [cluster] address = "HEAD:6379"')
    if hosts and clients:
        fields.fail("clients", "give hosts (each measured) or clients (an external server)")
    if "storage_class" in table:  # the pod's path is dbstor kube's to give (kube/plan.py)
        fields.fail("storage_class", "a Kubernetes class: use 'dbstor kube run' or 'kube render'")
    if clients and not any(k in table for k in ("path", "paths")):
        return Target(label=label, paths=(), clients=clients)  # an external server's target
    if "path" in table and "paths" in table:
        fields.fail("paths", "give either path or paths, not both")
    raw = table.get("paths", [table["path"]] if "path" in table else None)
    if not raw or not isinstance(raw, list) or not all(isinstance(p, str) and p for p in raw):
        fields.fail("paths", 'must be a non-empty list of directories, e.g. ["/mnt/lun1"]')
    paths = tuple(_directory(fields, "paths", base_dir, p) for p in raw)
    facts = fields.get("facts", plain_table, {})
    facts = plain_value(facts, f"{source}: targets[{index}].facts")
    extra = {}
    for role in ("log", "temp", "fast"):
        value = table.get(role)
        if value is None:
            continue
        listed = [value] if isinstance(value, str) else value
        if not isinstance(listed, list) or not all(isinstance(p, str) and p for p in listed or [0]):
            fields.fail(role, f'must be a directory or a list of them, e.g. {role} = "/mnt/{role}"')
        extra[role] = tuple(_directory(fields, role, base_dir, p) for p in listed)
    roles = {"data": list(paths), **{role: list(given) for role, given in extra.items()}}
    if (problem := role_paths_problem(roles)) is not None:
        fields.fail(*problem)
    own = {
        name: analysis_table(source, f"targets[{index}].{name}", name, table[name])
        for name in PER_TARGET
        if name in table
    }
    return Target(
        label=label, paths=paths, facts=facts, hosts=hosts, clients=clients, analyses=own, **extra
    )


def _cluster(source: str, table: Any) -> str:
    fields = _Fields(source, "cluster", table, {"address"})
    return fields.get("address", host_port, "") or fields.fail("address", "give HEAD:6379")


def _directory(fields: _Fields, key: str, base_dir: Path, text: str) -> Path:
    """A directory path as written (~ expanded, relative to the study file's folder)."""
    try:
        return (base_dir / Path(text).expanduser()).resolve()
    except (ValueError, RuntimeError, OSError) as exc:
        fields.fail(key, f"{short(text)} is not a usable path ({exc})")
    raise AssertionError("unreachable")


def _database(source: str, index: int, table: Any) -> DatabaseSpec:
    fields = _Fields(source, f"databases[{index}]", table, _DATABASE_KEYS)
    series = _database_series(fields, table)
    dsn = fields.get("dsn", nonempty, None)
    if dsn is not None and _DSN_WITH_PASSWORD.search(dsn):
        fields.fail(
            "dsn",
            'holds a password: keep it out of study files; use dsn_env = "NAME" and export NAME instead',
        )
    env = fields.get("dsn_env", nonempty, None)
    if env is not None:
        if dsn is not None:
            fields.fail("dsn_env", "give either dsn or dsn_env, not both")
        dsn = os.environ.get(env)  # a password here is the documented way to give one
        if dsn is None:
            fields.fail(
                "dsn_env",
                f"the environment variable {env} is not set; export it with the server's DSN",
            )
    return DatabaseSpec(
        engine=fields.get("engine", nonempty, DatabaseSpec.engine),
        workload=fields.get("workload", nonempty, "brokerage"),
        scale=fields.get("scale", parse_scale, None),
        series=series,
        think_time_ms=fields.get("think_time", parse_latency_ms, 0.0),
        client_processes=fields.get("client_processes", positive_int, 1),
        cold=fields.get("cold", boolean, False),
        query_timeout_s=fields.get("query_timeout", parse_timeout, None),
        dsn=dsn,
        buffer_bytes=fields.get("buffer", parse_memory, None),
        memory_limit_bytes=fields.get("memory_limit", parse_memory, None),
        seed=fields.get("seed", positive_int, 1),
        options=plain_value(
            fields.get("options", plain_table, {}),
            f"{source}: databases[{index}].options",
        ),
        place=fields.get("place", parse_place, {}),
    )


def _database_series(fields: _Fields, table: dict[str, Any]) -> LoadSeries:
    """users = [..] (closed loop), instances = [..] with users_per_instance, rate = [..] (open
    loop, transactions per second) served by users = N, or streams = [..] (query workloads)."""
    given = [k for k in ("instances", "rate", "streams") if k in table]
    if len(given) > 1:
        fields.fail(given[1], f"give one load series: {given[0]} or {given[1]}, not both")
    kind = given[0] if given else "users"
    for key, read_by in (("users_per_instance", ("instances",)), ("users", ("users", "rate"))):
        if key in table and kind not in read_by:  # accepted and then ignored: refused
            fields.fail(key, f"a {kind} series does not use it: drop {key}")
    auto = table.get(kind) == "auto"  # searched, then fractions of it (runs/auto_search.py)
    if kind == "instances":
        users = fields.get("users_per_instance", positive_int, 4)
        values = fields.get("instances", load_values, ())
        return LoadSeries(kind="instances", values=values, users=users, auto=auto)
    if kind == "rate":
        return LoadSeries(
            kind="rate",
            values=fields.get("rate", int_list, ()),
            users=fields.get("users", positive_int, DEFAULT_RATE_USERS),
            rate_unit="TPS",
        )
    if kind == "streams":
        return LoadSeries(kind="streams", values=fields.get("streams", int_list, ()))
    if "users" in table:
        return LoadSeries(kind="users", values=fields.get("users", load_values, ()), auto=auto)
    if table.get("workload") == "dss":
        return LoadSeries(kind="streams", values=(1,))
    return LoadSeries(kind="users", values=(1, 2, 4, 8, 16))


def load_study(path: Path) -> Study:
    """Read and validate a study file."""
    source = str(path)
    if not os.path.lexists(path):
        raise UserError(f"{source}: no such study file; check the path")
    data = read_toml(path, "a study file")
    return study_from_dict(data, source=source, base_dir=path.resolve().parent)


def study_from_dict(data: dict[str, Any], source: str, base_dir: Path) -> Study:
    _Fields(source, "", data, _SECTIONS)  # unknown top-level tables
    study = _Fields(source, "study", data.get("study", {}), _STUDY_KEYS)
    profiles_raw = data.get("profiles", {})
    if not isinstance(profiles_raw, dict):
        raise UserError(f"{source}: profiles: write [profiles.NAME] tables")
    custom = {name: _profile(source, name, table) for name, table in profiles_raw.items()}
    databases = data.get("databases", [])
    if not isinstance(databases, list):
        raise UserError(f"{source}: databases: write [[databases]] tables")
    default_profiles = [] if databases else ["io-oltp"]
    profile_names = study.get("profiles", named_profiles, default_profiles)
    profiles = []
    for name in profile_names:
        try:
            profiles.append(resolve_profile(name, custom))
        except UserError as exc:
            study.fail("profiles", str(exc))
    if not profiles and not databases:
        study.fail("profiles", "the study runs nothing: name fio profiles or add [[databases]]")
    unused = sorted(set(custom) - set(profile_names))  # defined, then silently not run: refused
    if unused:
        study.fail("profiles", f"profiles.{unused[0]} is defined but not named here: add it")
    targets_raw = data.get("targets")
    if not isinstance(targets_raw, list) or not targets_raw:
        raise UserError(
            f"{source}: targets: give at least one [[targets]] table with a label and paths"
        )
    cluster = _cluster(source, data["cluster"]) if "cluster" in data else None
    targets = tuple(
        _target(source, i, t, base_dir, cluster is not None) for i, t in enumerate(targets_raw)
    )
    labels = [t.label for t in targets]
    if len(set(labels)) != len(labels):
        raise UserError(f"{source}: targets: labels must differ; got {', '.join(labels)}")
    baseline = study.get("baseline", nonempty, None)
    if baseline is not None and baseline not in labels:
        study.fail("baseline", f"{baseline!r} is not a target label: {', '.join(labels)}")
    specs = tuple(_database(source, i, t) for i, t in enumerate(databases))
    verify = data.get("consolidation")
    resolved = Study(
        name=study.get("name", nonempty, Path(source).stem),
        targets=targets,
        profiles=tuple(profiles),
        series=_series(source, data["load"]) if "load" in data else None,
        duration_s=study.get("duration", parse_point_duration, 30.0),
        warmup_s=study.get("warmup", parse_warmup, 5.0),
        repeats=study.get("repeats", positive_int, 1),
        steady=study.get("steady", one_of(STEADY_MODES), "auto"),
        max_duration_s=study.get("max_duration", parse_point_duration, None),
        file_size=study.get("size", positive_size, 1024**3),
        **_slo(source, data.get("slo", {})),
        precondition=study.get("precondition", boolean, False),
        baseline=baseline,
        source=source,
        databases=specs,
        data=parse_data_pattern(study.table.get("data"), f"{source}: study.data", base_dir),
        telemetry=config_from_table(data["telemetry"], source) if "telemetry" in data else None,
        cluster=cluster,
        tags=study.get("tags", tag_table, {}),
        analyses={n: analysis_table(source, n, n, data[n]) for n in TABLES if n in data},
        pdf=study.get("pdf", boolean, False),
        events=events_from_tables(data.get("events", []), source),
        mix=parse_mix(source, data["mix"]) if "mix" in data else None,
        consolidation=None
        if verify is None
        else parse_consolidation(source, verify, labels, specs, "tco" in data),
    )
    resolved = coherent(resolved)  # refuses tables that contradict each other
    if (problem := resolved.steady_problem("the warm-up and one measured window")) is not None:
        study.fail("max_duration", problem)
    return resolved


def _series(source: str, table: Any) -> LoadSeries:
    fields = _Fields(source, "load", table, _LOAD_KEYS)
    kind = fields.get("kind", one_of(SERIES_KINDS), "iodepth")
    values = fields.get("values", int_list, ())
    if kind != "auto" and not values:
        fields.fail("values", f"a {kind} series needs values, e.g. [1, 2, 4, 8]")
    for key in ("jobs", "iodepth"):  # accepted and then ignored, before: refused
        if kind == key and key in table:
            fields.fail(key, f"a {kind} series sets each point's {key} from values: drop {key}")
    jobs, iodepth = fields.get("jobs", positive_int, 1), fields.get("iodepth", positive_int, 1)
    return LoadSeries(kind=kind, values=values, jobs=jobs, iodepth=iodepth)


def _slo(source: str, table: Any) -> dict[str, Any]:
    fields = _Fields(source, "slo", table, _SLO_KEYS)
    limit = fields.get("limit", parse_latency_ms, DEFAULT_SLO_LIMIT_MS)
    if limit <= 0:
        fields.fail("limit", "must be above zero, e.g. 1ms")
    return {"slo_metric": fields.get("metric", parse_slo_metric, None), "slo_limit_ms": limit}

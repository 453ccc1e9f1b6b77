"""dbstor advise RUN --write-study FILE: advise's choice as a study of two targets that
`dbstor run FILE` measures at the same load (EMC h6080's before/after loop).

`before` keeps every object on the run's own (slow) path, the chosen ones in their own
files or tablespaces in a folder of it (BEFORE_FAST, made by write_study: a fast role on the
data folder itself is refused), so both targets make the same moves; `after` puts the chosen
ones on the fast path. The comparison (before = 100) is the seed's "+48% after moving".
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from dbstor.engines.registry import engine_class
from dbstor.errors import UserError
from dbstor.results.store import read_run_folder
from dbstor.safefs import make_dir, write_file


def indexes_apart(engine: str) -> bool:
    """Whether the engine puts an index on a path apart from its table (its `placeable`)."""
    try:
        return "index" in engine_class(engine).placeable
    except UserError:  # a run of an engine this dbstor does not build: move tables only
        return False


def toml_value(value: Any) -> str:
    """A TOML value for plain data (strings, numbers, booleans, lists, tables)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value)  # a JSON string is a TOML basic string
    if isinstance(value, list | tuple):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return (
            "{ "
            + ", ".join(f"{json.dumps(str(k))} = {toml_value(v)}" for k, v in value.items())
            + " }"
        )
    raise ValueError(f"no TOML for {value!r}")


def placeable_choice(result: dict[str, Any], engine: str) -> tuple[dict[str, str], list[str]]:
    """(name -> "fast" for the chosen objects place can move, notes on those it cannot)."""
    kinds = {row["name"]: row["kind"] for row in result["ranking"]}
    place, notes = {}, []
    apart = indexes_apart(engine)
    for name in result["chosen"]:
        kind = kinds.get(name, "table")
        if kind == "table" or (kind == "index" and apart):
            place[name] = "fast"
        else:
            notes.append(
                f"{name} ({kind}) is left where it is: place moves tables{' and indexes' if apart else ''} on {engine}"
            )
    return place, notes


def _target_roles(run: Any) -> dict[str, list[str]]:
    """The run's own target paths by role, as the study gave them (not the engine's
    instance directories)."""
    label = run.target.get("label")
    for target in (run.study or {}).get("targets", []):
        if target.get("label") == label:
            return {role: list(paths) for role, paths in target.get("paths", {}).items()}
    raise UserError(f"run {run.run_id}: its study does not list target {label!r}; give another run")


def fast_path_of(fast_path: str | None, fast_run: Path | None) -> str:
    if fast_path:
        return str(Path(fast_path).expanduser().absolute())
    if fast_run is not None:
        run = read_run_folder(fast_run, "--fast-run")
        return _target_roles(run)["data"][0]
    raise UserError(
        "--write-study needs the fast tier's directory: give --fast-path DIR (or --fast-run "
        "DIR, a run on that tier, whose data path is taken)"
    )


def study_text(run: Any, place: dict[str, str], notes: list[str], fast: str) -> str:
    """The study file: [study], [slo], the before and after targets, [[databases]]."""
    roles = _target_roles(run)
    slow = roles.get("data") or []
    if not slow:
        raise UserError(f"run {run.run_id} has no data path: placement needs a managed engine")
    spec = next(iter((run.study or {}).get("databases", [])), None)
    if spec is None or spec.get("external"):
        raise UserError(
            f"run {run.run_id} is not a managed database run: place puts objects only in a "
            "database dbstor creates"
        )
    series = spec["series"]
    database: dict[str, Any] = {"engine": spec["engine"], "workload": spec["workload"]}
    if spec.get("scale") is not None:
        database["scale"] = spec["scale"]
    database[series["kind"]] = list(series["values"])
    if series["kind"] == "instances":
        database["users_per_instance"] = series["users"]
    elif series["kind"] == "rate":
        database["users"] = series["users"]
    for key, name in (("buffer_bytes", "buffer"), ("memory_limit_bytes", "memory_limit")):
        if spec.get(key):
            database[name] = f"{spec[key]}B"
    if spec.get("think_time_ms"):
        database["think_time"] = f"{spec['think_time_ms']:g}ms"
    database["seed"] = spec.get("seed", 1)
    if spec.get("options"):
        database["options"] = spec["options"]
    database["place"] = place
    study = run.study or {}
    slo = study.get("slo") or {}
    lines = [
        f"# Written by dbstor advise from run {run.run_id}: advise's choice for the fast tier,",
        "# measured before (all on the slow path) and after (the choice on the fast path)",
        "# at the same load. Run it with: dbstor run THIS_FILE",
        *(f"# {note}" for note in notes),
        "",
        "[study]",
        f"name = {toml_value('placement before/after: ' + spec['workload'] + ' on ' + spec['engine'])}",
        f'duration = "{study.get("duration_s", 30):g}s"',
        f'warmup = "{study.get("warmup_s", 5):g}s"',
        'baseline = "before"',
        "",
        "[slo]",
        f'limit = "{slo.get("limit_ms") or 1:g}ms"',
        *([f"metric = {toml_value(slo['metric'])}"] if slo.get("metric") else []),
    ]
    others = {role: paths for role, paths in roles.items() if role in ("log", "temp")}
    for label, fast_dir in (("before", before_fast(slow[0])), ("after", fast)):
        lines += ["", "[[targets]]", f'label = "{label}"', f"paths = {toml_value(slow)}"]
        lines += [f"{role} = {toml_value(paths)}" for role, paths in others.items()]
        lines.append(f"fast = {toml_value(fast_dir)}")
    lines += ["", "[[databases]]"]
    lines += [f"{key} = {toml_value(value)}" for key, value in database.items()]
    return "\n".join(lines) + "\n"


BEFORE_FAST = "dbstor-fast-before"  # the before target's fast folder, on the slow path


def before_fast(slow: str) -> str:
    """The before target's fast role: a folder of its own on the slow path."""
    return str(Path(slow) / BEFORE_FAST)


def _is_advise_study(path: Path) -> bool:
    """A study file advise wrote earlier (its first line says so)."""
    with path.open("rb") as handle:
        return handle.read(40).startswith(b"# Written by dbstor advise from run ")


def write_study(
    folder: Path, result: dict[str, Any], out: Path, fast_path: str | None, fast_run: Path | None
) -> str:
    """Write the study file; return one line saying what it holds."""
    run = read_run_folder(folder, "RUN_DIR")
    place, notes = placeable_choice(result, str(run.engine.get("name")))
    if not place:
        raise UserError(
            "--write-study: advise chose no table or index that place can move"
            + (f" ({notes[0]})" if notes else "")
            + "; give a larger --fast-capacity"
        )
    text = study_text(run, place, notes, fast_path_of(fast_path, fast_run))
    slow = Path(_target_roles(run)["data"][0])
    if slow.is_dir():  # the before target's fast folder, on this host's slow path
        make_dir(Path(before_fast(str(slow))), fix="remove it, or move the run's data path")
    try:  # never through a link, never over a file dbstor did not write
        write_file(out, text, _is_advise_study, fix="give another --write-study file")
    except OSError as exc:
        raise UserError(f"--write-study {out}: cannot write it ({exc.strerror})") from None
    return f"study written to {out}: {', '.join(place)} on the fast path; run it with: dbstor run {out}"

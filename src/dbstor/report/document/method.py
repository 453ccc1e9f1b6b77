"""The method: what ran and how (workload, load series, durations, warm-up, SLO, data
written and its compressibility, memory caps, repeats), how to read the figures, and
what the runs noted while setting up (laying out test files, caps not applied)."""

from __future__ import annotations

from html import escape

from dbstor.analysis.dss_compare import is_query_run
from dbstor.report.document.frame import side_by_side
from dbstor.report.document.private import scrub
from dbstor.report.io.section import data_sentence
from dbstor.report.kit.figures import host_tool
from dbstor.report.kit.fmt import DASH, fmt_bytes, fmt_limit_ms, fmt_num, fmt_value, load_text
from dbstor.report.kit.summary import is_database, main_points, slo_of
from dbstor.report.queries.section import dss_howto
from dbstor.results.model import Run

_LOAD_WORDS = {
    "iodepth": "a queue depth (QD: how many I/Os fio keeps in flight)",
    "users": "a number of virtual users, each running transactions back to back",
    "instances": "a number of database instances run side by side, each with the same users",
    "rate": "a request rate per second",
    "streams": "a number of parallel query streams",
}


def _series(run: Run) -> str:
    points = main_points(run)
    search = [p for p in run.points if getattr(p, "series", "main") != "main"]
    found = (
        f" (found by auto mode's search: {', '.join(_loads(search))}, kept as search points)"
        if search
        else ""
    )
    if not points:
        return DASH + found
    return ", ".join(_loads(points)) + found


def _loads(points: list) -> list[str]:
    return list(dict.fromkeys(load_text(p.load.kind, p.load.value, p.load.jobs) for p in points))


def _seconds(run: Run, key: str) -> str:
    values = sorted({getattr(p, key) for p in run.points if getattr(p, key, None) is not None})
    if not values:
        values = [v for v in [(run.study or {}).get(key)] if isinstance(v, int | float)]
    if not values:
        return DASH
    ends = dict.fromkeys((values[0], values[-1]))
    return " to ".join(f"{fmt_num(v)} s" for v in ends)


def _each_point(run: Run) -> str:
    """A query run's point lasts as long as its queries: timed, in rounds of its query set
    when held until steady (the last round measured), else once."""
    took = _seconds(run, "duration_s")
    if not is_query_run(run):
        return took
    if any(p.trust.max_s for p in run.points):
        return f"timed, its queries run in rounds until steady; the last round measured: {took}"
    return f"timed, not held: {took}"


def _held(run: Run) -> str:
    """How long the points ran and why: 'at most 60 s; 5 of 6 steady (14-38 s), not
    steady: 8 users (60 s)'; 'no: each point ran its time' for runs that were not held."""
    points = [p for p in main_points(run) if p.ok]
    held = [p for p in points if p.trust.max_s]
    if not held:
        return "no: each point ran its time"
    limit = max(p.trust.max_s or 0 for p in held)
    steady = [p for p in held if p.trust.steady is True]
    ran = sorted(p.trust.ran_s for p in steady if p.trust.ran_s is not None)
    # whole seconds, but a query point's rounds can all end within one: not "ran 0 s"
    ends = dict.fromkeys(f"{v:.0f}" if v >= 1 else f"{v:.1g}" for v in ran[:1] + ran[-1:])
    span = f" (ran {'-'.join(ends)} s)" if ends else ""
    words = f"at most {fmt_num(limit)} s; {len(steady)} of {len(held)} steady{span}"
    for verdict, said in ((False, "not steady within it"), (None, "too short to judge")):
        those = [p for p in held if p.trust.steady is verdict]
        if those:
            words += f"; {said}: {_ran(those, rounds=verdict is None)}"
    return words


def _ran(points: list, rounds: bool = False) -> str:
    """'8 users (ran 60 s), 16 users (ran 61 s)'; with `rounds`, how many each ran first
    ('1 streams (2 rounds, ran 5 s)': too few to judge)."""
    out = []
    for p in points:
        count = p.trust.rounds if rounds else None
        said = [f"{count} round{'s' if count != 1 else ''}"] if count else []
        said += [f"ran {p.trust.ran_s:.0f} s"] if p.trust.ran_s else []
        load = load_text(p.load.kind, p.load.value, p.load.jobs)
        out.append(load + (f" ({', '.join(said)})" if said else ""))
    return ", ".join(out)


def _warmup(run: Run) -> str:
    """A query run warms up with one unmeasured power run, or starts cold each point."""
    workload = run.workload or {}
    if not is_query_run(run):
        return _seconds(run, "warmup_s")
    if workload.get("cache") == "cold":
        return "none: the engine restarted and its files dropped from the page cache"
    warm = workload.get("warmup") if isinstance(workload.get("warmup"), dict) else {}
    took = warm.get("seconds")
    after = f" ({fmt_num(took)} s)" if isinstance(took, int | float) else ""
    return f"one unmeasured power run{after}"


def _workload(run: Run) -> str:
    workload = run.workload or {}
    profile = workload.get("profile") if isinstance(workload.get("profile"), dict) else {}
    title = workload.get("title") or workload.get("name") or DASH
    what = profile.get("description") or ""
    scale = workload.get("scale")
    return (
        f"{title}"
        + (f", scale {fmt_num(scale, 6)}" if scale is not None else "")
        + (f": {what}" if what else "")
    )


def _data(run: Run) -> str:
    sentence = data_sentence((run.workload or {}).get("data"))
    if sentence:
        return sentence.removeprefix("Data written: ")
    return DASH if not is_database(run) else "the workload's own rows"


def _memory(run: Run) -> str:
    engine = run.engine or {}
    cap = engine.get("memory_limit_bytes")
    buffer = engine.get("buffer_bytes")
    parts = []
    if isinstance(cap, int | float):
        parts.append(f"capped at {fmt_bytes(cap)}")
    if isinstance(buffer, int | float):
        parts.append(f"engine cache {fmt_bytes(buffer)}")
    if not parts and is_database(run):
        parts.append("no cap: the host's page cache can hold the database")
    return "; ".join(parts) or DASH


def _io_mode(run: Run) -> str:
    direct = (run.workload or {}).get("direct")
    return {True: "direct I/O (no page cache)", False: "buffered I/O"}.get(direct, DASH)


def _slo(run: Run) -> str:
    """'1 ms p99 read' (the row says SLO); a query run has none: it is timed."""
    if is_query_run(run):
        return "none: queries are compared by elapsed time"
    slo = slo_of(run)
    return f"{fmt_limit_ms(slo.limit_ms)} {slo.name}"


def method_table(runs: list[Run], names: list[str]) -> str:
    """One column per run: what ran, at which loads, for how long, under which SLO."""
    rows: list[tuple[str, list[str]]] = [
        ("workload", [_workload(r) for r in runs]),
        ("load series", [_series(r) for r in runs]),
        ("each point", [_each_point(r) for r in runs]),
        ("warm-up", [_warmup(r) for r in runs]),
        ("held until steady", [_held(r) for r in runs]),
        ("repeats", [fmt_value((r.study or {}).get("repeats") or 1) for r in runs]),
        ("SLO", [_slo(r) for r in runs]),
        ("test file", [fmt_bytes((r.workload or {}).get("file_size_bytes")) for r in runs]),
        ("I/O", [_io_mode(r) for r in runs]),
        ("data written", [_data(r) for r in runs]),
        ("memory", [_memory(r) for r in runs]),
    ]
    return side_by_side(names, rows)


def _held_words(runs: list[Run]) -> str:
    """How a point was held: until steady (SNIA PTS's slope test; fio's own steadystate for
    fio) up to a maximum, or for a fixed time."""
    if not any(p.trust.max_s for r in runs for p in r.points):
        return "held for a fixed time after a warm-up."
    return (
        "run after a warm-up until its throughput was steady (the fitted line of its "
        "per-second throughput moved less than 10% of its mean across the measured window, or "
        "no more than its own second-to-second noise explains; fio points by fio's own "
        "steadystate test), up to a maximum; the measured window is the last, steady one, and "
        "a point that never got steady says so."
    )


def howto(runs: list[Run], overlaid: bool) -> str:
    """How to read the figures: load points, the knee, where latency is measured, flags."""
    queries, runs = dss_howto(runs), [r for r in runs if not is_query_run(r)]
    if not runs:
        return (
            f'<div class="howto"><h3>How to read this report</h3><ul>{"".join(queries)}</ul></div>'
        )
    kinds = {p.load.kind for r in runs for p in r.points}
    what = " or ".join(_LOAD_WORDS.get(k, k) for k in sorted(kinds)) or "a level of load"
    fio = [r for r in runs if not is_database(r)]
    dbs = [r for r in runs if is_database(r)]
    slos = sorted({slo_of(r).text for r in runs})
    items = [
        f"<li><b>Load point</b>: one level of load, here {escape(what)}, {_held_words(runs)} "
        "Each marker on a curve is one load point; load rises left to right.</li>"
    ]
    if overlaid:
        items.append(
            "<li><b>The database on the storage's curve</b>: the line is what the storage can "
            "do (fio raising the queue depth), the separate markers are where the database "
            "actually ran. Far left of the line's bend, the storage is not what limits the "
            "database.</li>"
        )
    items.append(
        "<li>As load rises, throughput rises until the storage (or the host) saturates; past "
        "that, more load only adds queueing, so latency climbs while throughput stays flat.</li>"
    )
    items.append(
        f"<li><b>SLO</b>: the latency limit chosen for this study ({escape('; '.join(slos))}). "
        "The <b>knee</b> is the highest load whose latency stays within the SLO, interpolated "
        "between the points either side: the throughput you can count on, not the peak.</li>"
    )
    if fio and host_tool(fio) == "fio":
        items.append(
            "<li><b>fio latency is measured in two places</b>: at the host (fio's completion "
            "latency, including the host I/O stack and the path) and at the device (the await "
            "from /proc/diskstats). A wide gap points at the host stack or the path.</li>"
        )
    if dbs:
        items.append(
            "<li><b>Databases</b>: TPS is transactions per second the virtual users committed; "
            "transaction latency is what the client saw. The device figures come from "
            "/proc/diskstats for the device under the target. When a cache serves the reads, "
            "the storage barely works and TPS measures the host; the report says so.</li>"
        )
    if fio and host_tool(fio) != "fio":
        items.append(
            "<li><b>Latency</b>: the latency the client sees, from sending a request to its "
            "answer; the device's await from /proc/diskstats is shown beside it.</li>"
        )
    items.extend(queries)
    items.append(
        '<li>Flags in the tables mark numbers to trust less; the <a href="#flags">legend</a> is '
        "in the appendix.</li>"
    )
    return f'<div class="howto"><h3>How to read this report</h3><ul>{"".join(items)}</ul></div>'


def notes_list(runs: list[Run], names: list[str]) -> str:
    """What the runs noted while setting up, paths cut to their last part."""
    items = [
        f"<li>{escape(name)}: {escape(scrub(str(note)))}</li>"
        for run, name in zip(runs, names, strict=True)
        for note in run.notes or []
    ]
    return f'<h3>Notes from the runs</h3><ul class="notes">{"".join(items)}</ul>' if items else ""


def method_body(runs: list[Run], names: list[str], overlaid: bool) -> str:
    """The method table, how to read the report, and the runs' own notes."""
    return method_table(runs, names) + howto(runs, overlaid) + notes_list(runs, names)

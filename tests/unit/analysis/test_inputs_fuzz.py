"""Property tests for the inputs of `dbstor tco`, `dbstor capacity` and `dbstor advise`:
whatever a user types or exports, the result is a valid one or a one-line UserError, never
another exception, a negative figure or a non-finite number. Examples are few (fast enough
for `make test`); the strategies aim at the classes the review found (absurd numbers,
negative counters, text where numbers belong, empty and missing cells)."""

from __future__ import annotations

import argparse
import contextlib
import csv
import io
import itertools
import json
import math
import re
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dbstor.analysis.placement import inputs as advise_inputs
from dbstor.analysis.placement.analysis import Tiers, analyse
from dbstor.commands import advise as advise_command
from dbstor.commands import capacity as capacity_command
from dbstor.commands import tco as tco_command
from dbstor.errors import UserError

NOT_FINITE = re.compile(r"\b(nan|inf|Infinity|NaN)\b")
FAST = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# numbers as a user might type them, good and absurd
NUMBER_TEXT = st.one_of(
    st.integers(-(10**6), 10**6).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.sampled_from(["1e400", "-1e400", "inf", "-inf", "nan", "0", "-0", "1,000", "$5", "1e18"]),
    st.sampled_from(["10%", "40%", "101%", "-5%", "70", "abc", "", " ", "1_000", "0x10"]),
    st.text(max_size=8),
)


def _finite(value: Any) -> bool:
    """Every number in a JSON-ready structure is finite."""
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, dict):
        return all(_finite(v) for v in value.values())
    if isinstance(value, list | tuple):
        return all(_finite(v) for v in value)
    return True


def _one_line(err: UserError) -> None:
    assert str(err) and "\n" not in str(err), repr(str(err))


def _quiet(handler: Any, args: argparse.Namespace) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        handler(args)
    return out.getvalue()


# --- tco --------------------------------------------------------------------------------

TCO_FLAGS = [spec.flag for spec in tco_command.FIELDS if spec.kind not in ("bool", "path")]


def _tco_parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    tco_command.register(parser.add_subparsers())
    return parser.parse_args(["tco", *argv])


BASE = ["--servers", "10", "--cores-per-server", "12", "--cpu-after", "40%"]


@FAST
@given(
    st.dictionaries(st.sampled_from(TCO_FLAGS), NUMBER_TEXT, min_size=1, max_size=6),
    st.booleans(),
)
def test_tco_flags_give_a_result_or_a_user_error(changes, as_json):
    argv = ["--license", "sqlserver-enterprise", *BASE]
    for flag, value in changes.items():
        argv += [f"{flag}={value}"]
    args = _tco_parse([*argv, *(["--json"] if as_json else [])])
    try:
        text = _quiet(tco_command.run, args)
    except UserError as err:
        _one_line(err)
        return
    if as_json:
        result = json.loads(text)
        assert _finite(result)
        s = result["servers"]
        assert 1 <= s["after"] <= s["before"] and s["retired"] >= 0
        assert result["licences"]["retired"] >= 0
    else:
        names = [v for f, v in changes.items() if f in TEXT_FLAGS]  # a name may read "inf"
        shown = text
        for name in names:
            shown = shown.replace(f" {name}", " NAME")
        assert "Servers: " in text and not NOT_FINITE.search(shown)


TEXT_FLAGS = {"--currency"}  # names the user gives, printed as given

TOML_VALUE = st.one_of(
    st.integers(-(10**20), 10**20),
    st.floats(allow_nan=True, allow_infinity=True),
    st.booleans(),
    st.text(max_size=6),
    st.lists(st.integers(), max_size=2),
)
TOML_KEYS = [spec.toml for spec in tco_command.FIELDS]


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, list):
        return "[" + ", ".join(str(v) for v in value) + "]"
    return str(value)


@FAST
@given(st.dictionaries(st.sampled_from(TOML_KEYS), TOML_VALUE, min_size=1, max_size=8))
def test_tco_toml_gives_a_result_or_a_user_error(values):
    sections: dict[str, list[str]] = {}
    for key, value in values.items():
        section, name = key.split(".")
        sections.setdefault(section, []).append(f"{name} = {_toml_value(value)}")
    text = "\n".join(f"[{s}]\n" + "\n".join(lines) for s, lines in sections.items())
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "c.toml"
        path.write_text(text)
        args = _tco_parse([str(path), "--json"])
        try:
            result = json.loads(_quiet(tco_command.run, args))
        except UserError as err:
            _one_line(err)
            return
    assert _finite(result) and result["servers"]["after"] >= 1


# --- capacity ---------------------------------------------------------------------------

DRIVES = st.one_of(
    st.builds(
        lambda n, size: f"{n}x{size}",
        st.integers(0, 10**25),
        st.sampled_from(["800GB", "1TB", "36GB", "600GB", "3.84TB", "1e400TB", "0.5GB", "9PB"]),
    ),
    st.text(max_size=12),
)


@FAST
@given(
    drives=DRIVES,
    raid=st.sampled_from(["raid4", "raid5", "raid6", "raid10", "raid-dp", "raid-tec"]),
    group=st.one_of(st.none(), st.integers(-5, 10**12)),
    spares=st.integers(-3, 10**9),
    partitioning=st.sampled_from(["none", "root-data", "root-data-data"]),
    root=st.one_of(st.none(), st.sampled_from(["54GiB", "1TB", "0B", "-1GiB", "1e30TB", "x"])),
    right_size=st.one_of(st.sampled_from(["none", "netapp", "745GiB", "1PB", "0B"]), NUMBER_TEXT),
    fs=st.one_of(st.none(), NUMBER_TEXT),
    snap=NUMBER_TEXT,
    as_json=st.booleans(),
)
def test_capacity_gives_a_walk_or_a_user_error(
    drives, raid, group, spares, partitioning, root, right_size, fs, snap, as_json
):
    args = argparse.Namespace(
        drives=drives,
        raid=raid,
        raid_group=group,
        spares=spares,
        partitioning=partitioning,
        root_partition=root,
        right_size=right_size,
        fs_reserve=fs,
        snap_reserve=snap,
        json=as_json,
    )
    try:
        text = _quiet(capacity_command.run, args)
    except UserError as err:
        _one_line(err)
        return
    assert "--" not in text and not NOT_FINITE.search(text)
    if as_json:
        result = json.loads(text)
        assert _finite(result)
        assert 0 <= result["usable_tb"] <= result["raw_tb"]
        remaining = [line["remaining_bytes"] for line in result["deductions"]]
        assert all(r >= 0 for r in remaining)
        assert all(b <= a for a, b in itertools.pairwise(remaining))
    else:
        for line in text.splitlines()[1:]:
            if line.startswith(("raw ", "note:")) or not line.strip() or "source:" in line:
                continue
            cells = line.split()
            left = [c for c in cells[1:4] if c.replace(".", "").replace("-", "").isdigit()]
            assert all(not c.startswith("-") for c in left[-2:]), line


# --- advise -----------------------------------------------------------------------------

CELL = st.one_of(
    st.integers(-(10**6), 10**12).map(str),
    st.sampled_from(["", "NULL", "-1", "1e400", "inf", "-inf", "nan", "1,024", "x", "0.5"]),
    st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=6),
)
HEADERS = ["name", "type_desc", "size_on_disk_bytes", "num_of_reads", "num_of_writes"]
OPTIONAL = ["io_stall", "num_of_bytes_read", "num_of_bytes_written", "database_name"]


def _csv(header: list[str], rows: list[list[str]]) -> str:
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(header)
    writer.writerows(rows)
    return out.getvalue()


@FAST
@given(
    extra=st.lists(st.sampled_from(OPTIONAL), unique=True, max_size=4),
    drop=st.one_of(st.none(), st.sampled_from(HEADERS)),
    rows=st.lists(st.lists(CELL, min_size=9, max_size=9), min_size=1, max_size=6),
    second=st.booleans(),
    capacity=st.sampled_from(["500GB", "1B", "1e400TB", "0", "-5GB", "lots", "100GiB"]),
)
def test_advise_csv_gives_advice_or_a_user_error(extra, drop, rows, second, capacity):
    header = [h for h in HEADERS if h != drop] + extra
    table = [row[: len(header)] for row in rows]
    with tempfile.TemporaryDirectory() as tmp:
        paths = [Path(tmp) / "a.csv"]
        paths[0].write_text(_csv(header, table))
        if second:  # the same files later: counters grown (or not, or gone backwards)
            paths.append(Path(tmp) / "b.csv")
            paths[1].write_text(_csv(header, [list(reversed(r)) for r in table]))
        args = argparse.Namespace(
            run_dir=None,
            sqlserver=paths,
            oracle=None,
            postgres=None,
            interval="300",
            fast_capacity=capacity,
            fast_latency=None,
            fast_run=None,
            slow_latency=None,
            slow_run=None,
            include_logs=False,
            method="auto",
            top=40,
            json=True,
            html=None,
        )
        try:
            result = json.loads(_quiet(advise_command.run, args))
        except UserError as err:
            _one_line(err)
            return
    assert _finite(result)
    for row in result["ranking"]:
        assert row["reads"] >= 0 and row["writes"] >= 0 and row["size_bytes"] >= 0
    assert 0 <= result["result"]["used_bytes"] <= result["fast_tier"]["capacity_bytes"]


@FAST
@given(column=st.sampled_from(["num_of_reads", "num_of_writes", "io_stall"]), row=st.integers(0, 3))
def test_advise_negative_counter_is_refused_naming_row_and_column(column, row):
    header = [*HEADERS, "io_stall"]
    rows = [[f"f{i}", "ROWS", "8192000", "100", "10", "50"] for i in range(4)]
    rows[row][header.index(column)] = "-7"
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "stats.csv"
        path.write_text(_csv(header, rows))
        try:
            objects, _, _ = advise_inputs.load_files("sqlserver", [path])
            analyse(objects, Tiers(10**12))
        except UserError as err:
            message = str(err)
        else:
            raise AssertionError("a negative counter was ranked")
    assert f"line {row + 2}" in message and column in message and "-7" in message


VALID_ROW = st.tuples(
    st.sampled_from(["a", "b", "c", "d_log", "tempdev", "x.ldf"]),
    st.sampled_from(["ROWS", "LOG", "", "FILESTREAM"]),
    st.integers(0, 10**15),
    st.integers(0, 10**12),
    st.integers(0, 10**12),
    st.integers(0, 10**12),
)


@FAST
@given(
    rows=st.lists(VALID_ROW, min_size=1, max_size=12),
    capacity=st.integers(0, 10**16),
    slow=st.one_of(st.none(), st.floats(0, 1e6)),
    method=st.sampled_from(["auto", "exact", "greedy"]),
    logs=st.booleans(),
)
def test_advise_valid_counters_always_give_consistent_advice(rows, capacity, slow, method, logs):
    header = [*HEADERS, "io_stall"]
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "stats.csv"
        path.write_text(_csv(header, [list(map(str, r)) for r in rows]))
        objects, _, _ = advise_inputs.load_files("sqlserver", [path])
    fast = 0.5 if slow is None or slow > 0.5 else slow / 2
    try:
        result = analyse(
            objects,
            Tiers(capacity, fast, "given", slow, None if slow is None else "given"),
            include_logs=logs,
            method=method,
        )
    except UserError as err:
        _one_line(err)
        return
    assert _finite(json.loads(json.dumps(result)))
    assert 0 <= result["result"]["used_bytes"] <= capacity
    chosen = [r for r in result["ranking"] if r["chosen"]]
    assert sum(r["size_bytes"] for r in chosen) == result["result"]["used_bytes"]
    assert 0 <= result["result"]["io_share"] <= 1 + 1e-9


def test_advise_documented_plain_csv_is_accepted():
    """docs/advise.md: any CSV with name, kind, size_bytes, reads, writes (and io_stall)."""
    text = "name,kind,size_bytes,reads,writes,io_stall\norders,table,6442450944,60000,6000,150000\n"
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "plain.csv"
        path.write_text(text)
        objects, _, _ = advise_inputs.load_files("sqlserver", [path])
    assert [(o.name, o.kind, o.size_bytes, o.reads, o.writes) for o in objects] == [
        ("orders", "table", 6442450944, 60000, 6000)
    ]


@FAST
@given(
    field=st.sampled_from(["size_bytes", "reads", "writes", "read_stall_ms"]),
    value=st.one_of(
        st.integers(-(10**20), -1), st.floats(allow_nan=True, allow_infinity=True), st.text()
    ),
)
def test_advise_run_folder_refuses_bad_counters(field, value):
    obj = {"name": "t", "kind": "table", "size_bytes": 8192, "reads": 5, "writes": 1}
    obj[field] = value
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        (folder / "results.json").write_text(json.dumps({"engine_stats": {"objects": [obj]}}))
        try:
            objects = advise_inputs.parse_run(folder)
        except UserError as err:
            _one_line(err)
            return
    assert all(0 <= (getattr(o, field) or 0) < 2**63 for o in objects)


# --- snapshot flags of `dbstor efficiency` ----------------------------------------------

SCHEDULE_TEXT = st.one_of(
    st.sampled_from(["data=2h,log=15m", "1h", "data=0s", "data=1e400h", "x=", "=2h", "2h,3h"]),
    st.text(max_size=12),
)
RATE_TEXT = st.one_of(
    st.sampled_from(["5%/h", "100%/m", "0%/h", "1e400%/h", "999999999999999999999%/s", "5%"]),
    st.text(max_size=10),
)
RETENTION_TEXT = st.one_of(
    st.sampled_from(["24h", "1e400h", "0s", "data=24h,log=48h", "99999999999999d", "-1h"]),
    st.text(max_size=10),
)
COPIES_TEXT = st.one_of(
    st.sampled_from(["16", "0", "data=16,log=96", "1e3", "-4"]), st.text(max_size=6)
)


@FAST
@given(SCHEDULE_TEXT, RATE_TEXT, RETENTION_TEXT, st.one_of(st.none(), COPIES_TEXT))
def test_snapshot_flags_give_a_model_or_a_value_error(schedule, rate, retention, copies):
    from dbstor.analysis.efficiency import snapshots
    from dbstor.units import parse_duration

    try:
        plan = snapshots.parse_schedule(schedule)
        keep = snapshots.parse_per_role(retention, parse_duration, "retention", "24h")
        change = snapshots.parse_per_role(rate, snapshots.parse_rate, "change rate", "5%/h")
        count = (
            snapshots.parse_per_role(copies, snapshots.parse_copies, "copies", "16")
            if copies is not None
            else None
        )
        result = snapshots.model({"data": (1e12, 5e11)}, plan, keep, change, count)
    except ValueError as err:
        assert str(err) and "\n" not in str(err)
        return
    assert _finite(result)
    assert all(role["copies"] >= 0 and role["snapshot_bytes"] >= 0 for role in result["roles"])

"""The plain values a study file holds: whole numbers, lists of them, strings, booleans,
choices. Each raises ValueError naming the value and what is allowed (the limit included);
study/load.py adds the file and the field.
"""

from __future__ import annotations

import datetime
import math
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from dbstor.errors import UserError
from dbstor.study.model import SLO_METRICS
from dbstor.units import (
    MAX_COUNT,
    MAX_SERIES,
    distinct_series,
    parse_block_size,
    parse_percent,
    parse_size,
)


def positive_int(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise ValueError(f"{short(value)} is not a positive whole number")
    if value > MAX_COUNT:
        raise ValueError(f"{value} is too large: at most {MAX_COUNT}")
    return value


def count(value: Any) -> int:
    """A whole number from 0 (e.g. fdatasync: every N writes, 0 for never)."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"{short(value)} is not a whole number from 0")
    if value > MAX_COUNT:
        raise ValueError(f"{value} is too large: at most {MAX_COUNT}")
    return value


def short(value: Any) -> str:
    shown = repr(value)
    return shown if len(shown) <= 40 else shown[:37] + "..."


def int_list(value: Any) -> tuple[int, ...]:
    """A load series: positive whole numbers, each once, at most MAX_SERIES of them."""
    if not isinstance(value, list) or not value:
        raise ValueError("must be a non-empty list of positive whole numbers, e.g. [1, 2, 4, 8]")
    if len(value) > MAX_SERIES:
        raise ValueError(f"{len(value):,} values: a series has at most {MAX_SERIES:,} points")
    return distinct_series(positive_int(v) for v in value)


def load_values(value: Any) -> tuple[int, ...]:
    """A database's users or instances: a list, or "auto" (none: the search finds them)."""
    if value == "auto":
        return ()
    if isinstance(value, str):
        raise ValueError(f'{value!r} is neither a list nor "auto": e.g. [1, 2, 4, 8] or "auto"')
    return int_list(value)


def nonempty(value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ValueError("must be a non-empty string")
    return value


def named_profiles(value: Any) -> list[str]:
    """[study] profiles: a name or a list of names, each once."""
    names = [nonempty(x) for x in value] if isinstance(value, list) else [nonempty(value)]
    twice = next((n for n in names if names.count(n) > 1), None)
    if twice is not None:
        raise ValueError(f"{twice} is named twice: name each profile once")
    return names


def boolean(value: Any) -> bool:
    if not isinstance(value, bool):
        raise ValueError("must be true or false")
    return value


def one_of(choices: tuple[str, ...]) -> Callable[[Any], str]:
    def parse(value: Any) -> str:
        if not isinstance(value, str) or value not in choices:
            raise ValueError(f"{short(value)} is not one of {', '.join(choices)}")
        return value

    return parse


LABEL_RULE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,39}")
PROFILE_NAME_RULE = (
    "a profile's name is a letter or digit, then letters, digits, '.', '_' or '-', at most 40 "
    "characters (it names the test files and the run folder)"
)


def target_label(value: Any) -> str:
    """A target's label, the same rule from a flag or a study file: a letter or digit, then
    letters, digits, '.', '_' or '-', at most 40 in all."""
    if not isinstance(value, str) or not LABEL_RULE.fullmatch(value):
        raise ValueError(
            f"{short(value)}: a label is a letter or digit, then letters, digits, '.', '_' or "
            "'-', at most 40 characters (e.g. array-a_fc.1)"
        )
    return value


def host_names(value: Any) -> tuple[str, ...]:
    """A list of host names, each named once."""
    if not isinstance(value, list) or not value:
        raise ValueError('must be a non-empty list of host names, e.g. ["db1", "db2"]')
    names = tuple(nonempty(v).strip() for v in value)
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise ValueError(f"host {twice[0]} is named twice: name each host once")
    return names


def host_port(value: Any) -> str:
    """The Ray head's address, HOST:PORT."""
    text = nonempty(value).strip()
    host, sep, port = text.rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise ValueError(f'{short(value)} is not HOST:PORT, e.g. "10.0.0.5:6379"')
    return text


def repeated_path(paths: Any) -> Any:
    """The first folder given twice in `paths` (two spellings of one folder count: the
    paths are compared resolved), or None: each folder is given once."""
    seen = set()
    for path in paths:
        try:
            key = path.resolve()
        except (OSError, RuntimeError):
            key = path
        if key in seen:
            return path
        seen.add(key)
    return None


def label_from_name(name: str, fallback: str) -> str:
    """A label made from a directory's name, held to the label rule: other characters
    become '-', a leading '.', '_' or '-' goes, at most 40 characters; fallback if nothing
    is left."""
    made = "".join(c if c.isascii() and (c.isalnum() or c in "._-") else "-" for c in name)
    made = made.lstrip("._-")[:40]
    return made if LABEL_RULE.fullmatch(made) else fallback


def parse_block_split(value: Any) -> tuple[tuple[int, float], ...]:
    if not isinstance(value, dict) or not value:
        raise ValueError('must be a table of size = percent, e.g. { "8K" = 70, "64K" = 30 }')
    split = tuple((parse_block_size(size), parse_percent(pct)) for size, pct in value.items())
    sizes = [size for size, _ in split]
    if len(set(sizes)) != len(sizes):  # "8K" and "8KiB" are one size
        twice = next(s for s in sizes if sizes.count(s) > 1)
        raise ValueError(f"the block size of {twice} bytes is given twice: give each size once")
    if abs(sum(pct for _, pct in split) - 100) > 0.01:
        raise ValueError("the percentages must add up to 100")
    return split


PLACE_ROLES = ("data", "log", "temp", "fast")  # the target roles an object can be put on
_PLACE_NAME = re.compile(r"[A-Za-z0-9_*?\[\]]+")


def place_pattern(text: str) -> str:
    """A table or index name, or a glob of them (* ? [..]), e.g. trade_history, i_trade_*."""
    if not isinstance(text, str) or not _PLACE_NAME.fullmatch(text):
        raise ValueError(
            f"{short(text)} is not a table or index name (letters, digits, _ and the globs * ? [])"
        )
    return text


def place_role(role: Any) -> str:
    if role not in PLACE_ROLES:
        raise ValueError(
            f"{short(role)} is not a target role: give one of {', '.join(PLACE_ROLES)}"
        )
    return str(role)


def parse_place(value: Any) -> dict[str, str]:
    """[databases] place = {"trade_history" = "fast", "i_trade_*" = "fast"}: object name
    patterns -> the target role whose path holds them."""
    if not isinstance(value, dict) or not value:
        raise ValueError('must be a table of names and roles, e.g. { trade_history = "fast" }')
    return {place_pattern(name): place_role(role) for name, role in value.items()}


def role_paths_problem(roles: dict[str, list[Path]]) -> tuple[str, str] | None:
    """The study file's key and what is wrong with a target's folders by role (data, log, temp, fast),
    or None: a
    folder listed twice (in one role or two), which would put two roles' files in one place
    while the report says they are apart (the fast role on the data folder moves nothing)."""
    seen: dict[Path, str] = {}
    for role in PLACE_ROLES:
        for path in roles.get(role, ()):
            if path in seen:
                first = seen[path]
                field = "paths" if role == "data" else role  # the study file's key
                if first == role:
                    return field, f"{path} is given twice: give each folder once"
                return field, (
                    f"{path} is both the {first} folder and the {role} folder: give {role} a "
                    f"folder of its own (on the storage it measures), or drop {role} to keep "
                    f"its files with {first}"
                )
            seen[path] = role
    return None


def plain_table(value: Any) -> dict[str, Any]:
    """A TOML table as a dict (facts, options); ValueError for anything else."""
    if not isinstance(value, dict):
        raise ValueError('must be a table, e.g. { protocol = "FC", drives = 48 }')
    return dict(value)


def plain_value(value: Any, where: str) -> Any:
    """A study file's free-form value (a target's facts) as plain JSON: dates and times as
    ISO text; NaN or infinity refused in one line naming the field (they are no fact)."""
    if isinstance(value, datetime.date | datetime.time):
        return value.isoformat()
    if isinstance(value, float) and not math.isfinite(value):
        raise UserError(
            f"{where}: {value} is not a finite number; give a number, or write it as text "
            '(e.g. "n/a")'
        )
    if isinstance(value, dict):
        return {str(k): plain_value(v, f"{where}.{k}") for k, v in value.items()}
    if isinstance(value, list):
        return [plain_value(v, f"{where}[{i}]") for i, v in enumerate(value)]
    return value


def positive_size(value: Any) -> int:
    """A test file's size: at least 1 MiB."""
    size = parse_size(value)
    if size < 1024 * 1024:
        raise ValueError(f"{value!r}: must be at least 1MiB")
    return size


def drives_fact(facts: dict[str, Any]) -> int | None:
    """A target's `drives` fact as a count (48, "48", "48x800GB"), None when not a count."""
    value = facts.get("drives")
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    match = re.match(r"\s*(\d+)\s*(?:x|$)", str(value)) if isinstance(value, str) else None
    return int(match.group(1)) if match else None


def parse_slo_metric(value: Any) -> str:
    """An SLO metric's name (read_lat_p99_ms, read_lat_mean_ms, ...)."""
    return one_of(SLO_METRICS)(value)

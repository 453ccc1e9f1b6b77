"""The flags that say where a database's files go: --target ROLE=PATH (data, log, temp,
fast) and --place NAME=ROLE (a table or index, or a glob of them, on a role's path)."""

from __future__ import annotations

import argparse
import dataclasses
from pathlib import Path

from dbstor.commands.common import parse_flag
from dbstor.errors import UserError
from dbstor.study.model import Study, Target
from dbstor.study.values import (
    PLACE_ROLES,
    label_from_name,
    place_pattern,
    place_role,
    repeated_path,
    role_paths_problem,
    target_label,
)


def parse_target(items: list[str], label: str | None) -> Target:
    """A Target from --target [ROLE=]PATH[,PATH...] flags (a bare path is data)."""
    roles: dict[str, list[Path]] = {}
    for item in items:
        role, sep, paths = item.partition("=")
        if not sep:
            role, paths = "data", item
        if role not in PLACE_ROLES:
            hint = f" (for the path {item} write data={item})" if Path(item).exists() else ""
            raise UserError(
                f"--target {item!r}: the role must be data, log, temp or fast, "
                f"e.g. --target log=/mnt/log{hint}"
            )
        given = [Path(p).expanduser().absolute() for p in paths.split(",") if p.strip()]
        if not given:
            raise UserError(f"--target {item!r}: give a path, e.g. --target {role}=/mnt/lun1")
        roles.setdefault(role, []).extend(given)
    for role, paths in roles.items():
        twice = repeated_path(paths)
        if twice is not None:
            raise UserError(f"--target {role}: {twice} is given twice: give each folder once")
    if "data" not in roles:
        raise UserError(
            "--target: give the data directory, e.g. --target /mnt/lun1 or --target data=/mnt/lun1"
        )
    if (problem := role_paths_problem(roles)) is not None:
        raise UserError(f"--target: {problem[1]}")
    if label is not None:
        name = parse_flag("--label", target_label, label)
    else:
        name = label_from_name(roles["data"][0].name, "target")
    return Target(
        label=name,
        paths=tuple(roles["data"]),
        log=tuple(roles.get("log", ())),
        temp=tuple(roles.get("temp", ())),
        fast=tuple(roles.get("fast", ())),
    )


def add_place_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--place",
        action="append",
        default=[],
        metavar="NAME=ROLE",
        help=(
            "put a table or index (a glob such as i_trade_*) on a role's path, e.g. "
            "--place trade_history=fast with --target fast=/mnt/flash; repeatable; with a "
            "study file, added to each [[databases]] place (postgres: tables and indexes; "
            "mariadb: tables)"
        ),
    )


def parse_place_flags(items: list[str]) -> dict[str, str]:
    place: dict[str, str] = {}
    for item in items:
        name, sep, role = item.partition("=")
        if not sep:
            raise UserError(f"--place {item!r}: give NAME=ROLE, e.g. --place trade_history=fast")
        pattern = parse_flag("--place", place_pattern, name)
        where = parse_flag("--place", place_role, role)
        if place.get(pattern, where) != where:
            raise UserError(
                f"--place: {pattern} is put on both {place[pattern]} and {where}: give each "
                "table or index one role"
            )
        place[pattern] = where
    return place


def with_place(study: Study, items: list[str]) -> Study:
    """The study with --place added to every database's place (the flag wins)."""
    if not items:
        return study
    place = parse_place_flags(items)
    if not study.databases:
        raise UserError(
            "--place applies to database runs: give --engine or a study with [[databases]]"
        )
    databases = tuple(dataclasses.replace(d, place={**d.place, **place}) for d in study.databases)
    return dataclasses.replace(study, databases=databases)

"""The load series of `dbstor run` from its flags: users, instances, rate or streams, one
of them per run, each value checked (study/values and units hold the bounds)."""

from __future__ import annotations

import argparse

from dbstor.commands.common import parse_flag
from dbstor.errors import UserError
from dbstor.study.model import DEFAULT_RATE_USERS, LoadSeries
from dbstor.units import parse_int_list


def one_user_count(args: argparse.Namespace, flag: str, default: int) -> int:
    users = parse_flag("--users", parse_int_list, args.users) if args.users else [default]
    if len(users) != 1:
        raise UserError(
            f"--users: with {flag} give one number, the users per instance, e.g. --users 8"
        )
    return users[0]


def series_from_flags(args: argparse.Namespace) -> LoadSeries:
    given = [f for f in ("instances", "rate", "streams") if getattr(args, f)]
    if len(given) > 1:
        raise UserError(
            f"--{given[0]} and --{given[1]}: give one load series per run (--users, --instances, --rate or --streams)"
        )
    if args.instances == "auto":
        return LoadSeries(kind="instances", users=one_user_count(args, "--instances", 4), auto=True)
    if args.instances:
        return LoadSeries(
            kind="instances",
            values=tuple(parse_flag("--instances", parse_int_list, args.instances)),
            users=one_user_count(args, "--instances", 4),
        )
    if args.rate:
        return LoadSeries(
            kind="rate",
            values=tuple(parse_flag("--rate", parse_int_list, args.rate)),
            users=one_user_count(args, "--rate", DEFAULT_RATE_USERS),
            rate_unit="TPS",
        )
    if args.streams:
        if args.users:
            raise UserError("--users does not apply to --streams: each stream is one client")
        return LoadSeries(
            kind="streams", values=tuple(parse_flag("--streams", parse_int_list, args.streams))
        )
    if args.workload == "dss":
        if args.users:
            raise UserError(
                "--users does not apply to dss: give query streams, e.g. --streams 1,2,4"
            )
        return LoadSeries(kind="streams", values=(1,))
    if args.users == "auto":  # searched upward, then fractions of what it found
        return LoadSeries(kind="users", auto=True)
    try:
        values = parse_int_list(args.users) if args.users else [1, 2, 4, 8, 16]
    except ValueError as exc:
        raise UserError(f"--users: {exc}, or auto") from None
    return LoadSeries(kind="users", values=tuple(values))

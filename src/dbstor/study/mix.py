"""The study file's [mix] table: several of the study's workloads started together on one
storage, point by point, beside the same workloads alone (docs/mix.md).

    [mix]
    workloads = ["brokerage", "dss", "io-log"]   # [[databases]] workloads, fio profiles

Every named workload first runs alone (the study's own runs: the baseline), then all of
them together on each target, each in its own process with its own users, streams or
fio jobs, every point started at one instant. Checked here, before anything runs: the
names (each a workload of the study's [[databases]] or one of its profiles), at least two,
each once; that every member has the same number of load points (the points are started
together one by one) and no auto series (its points are found while it runs); no
[cluster] and no [[events]] (not run inside a mix yet); no two members on one managed
engine (their files on the target would take the same names). That each target is one storage (every path on one device) is checked in the
preflight (runs/mix.py), where the paths exist.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Any

from dbstor.errors import UserError

KEYS = ("workloads",)


@dataclass(frozen=True)
class MixSpec:
    """The workloads (database workload or fio profile names) started together."""

    workloads: tuple[str, ...]

    def describe(self) -> dict[str, Any]:
        return {"workloads": list(self.workloads)}


def parse_mix(source: str, table: Any) -> MixSpec:
    """The [mix] table's fields and kinds checked; one line naming the field."""
    where = f"{source}: mix"
    if not isinstance(table, dict):
        raise UserError(f'{where}: must be a table, e.g. [mix] workloads = ["brokerage", "dss"]')
    for key in table:
        if key not in KEYS:
            hint = difflib.get_close_matches(str(key), KEYS, n=1)
            extra = f" (did you mean {hint[0]!r}?)" if hint else ""
            raise UserError(f"{where}.{key}: unknown field{extra}; allowed: {', '.join(KEYS)}")
    names = table.get("workloads")
    if not isinstance(names, list) or len(names) < 2:
        raise UserError(
            f'{where}.workloads: name two or more of the study\'s workloads, e.g. ["brokerage", '
            '"dss"]'
        )
    if not all(isinstance(n, str) and n.strip() for n in names):
        raise UserError(f"{where}.workloads: each must be a workload's name (a non-empty string)")
    workloads = tuple(names)
    twice = sorted({n for n in workloads if workloads.count(n) > 1})
    if twice:
        raise UserError(f"{where}.workloads: {twice[0]!r} is named twice: name each workload once")
    return MixSpec(workloads)


def member_names(study: Any) -> dict[str, Any]:
    """Name -> the study's DatabaseSpec or Profile of that name."""
    members: dict[str, Any] = {p.name: p for p in study.profiles}
    members.update({d.workload: d for d in study.databases})
    return members


def check_mix(study: Any) -> None:
    """A [mix] that cannot run as written, refused in one line (the Study model calls it)."""
    mix = study.mix
    if mix is None:
        return
    where = f"{study.source}: mix.workloads"
    known = member_names(study)
    workloads = [d.workload for d in study.databases]
    doubled = sorted({w for w in workloads if workloads.count(w) > 1} & set(mix.workloads))
    if doubled:
        raise UserError(
            f"{where}: {doubled[0]!r} is the workload of two [[databases]]: a mix names each "
            "workload of one [[databases]] table; keep one of them"
        )
    for name in mix.workloads:
        if name not in known:
            hint = difflib.get_close_matches(name, list(known), n=1)
            extra = f" (did you mean {hint[0]!r}?)" if hint else ""
            choices = ", ".join(known) or "none"
            raise UserError(
                f"{where}: {name!r} is not a workload of this study{extra}; its workloads: "
                f"{choices} (add a [[databases]] table or a profile to run it)"
            )
    managed: dict[str, str] = {}
    for spec in study.databases:
        if spec.workload in mix.workloads and spec.dsn is None:
            if spec.engine in managed:
                raise UserError(
                    f"{where}: {managed[spec.engine]!r} and {spec.workload!r} both run on a "
                    f"managed {spec.engine}: together their databases' files would take the "
                    "same names on the target; give one of them another engine or a dsn (or "
                    "several servers of one workload: an instances series)"
                )
            managed[spec.engine] = spec.workload
    if study.events:
        raise UserError(
            f"{where}: events inside a mix's points are not run yet (each workload's process "
            "would fire them): leave out the [[events]] or the [mix]"
        )
    if study.cluster:
        raise UserError(f"{where}: a mix runs on one host; leave out [cluster] or the [mix]")
    counts = {}
    for name in mix.workloads:
        member = known[name]
        series = member.series if name in workloads else study.series_for(member)
        if series.auto or series.kind == "auto":
            raise UserError(
                f"{where}: {name!r} has an auto series, whose points are found while it runs: "
                "give its load values (users = [4], streams = [1], ...)"
            )
        counts[name] = len(series.values)
    if len(set(counts.values())) > 1:
        listed = ", ".join(f"{n} {c}" for n, c in counts.items())
        raise UserError(
            f"{where}: the members have different numbers of load points ({listed}); they "
            "start together point by point: give each the same number of values"
        )

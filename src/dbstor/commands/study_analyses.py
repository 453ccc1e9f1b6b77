"""A study's [capacity], [efficiency], [placement] and [tco] tables, computed by the same
functions `dbstor capacity|efficiency|advise|tco --json` use: each table becomes that
command's flags and is parsed by its own parser, checked before anything runs (a bad value
is one line naming the file and the field), computed after the runs (efficiency on each
run's own files, before they are removed) and written to analyses.json in the study folder:

    {"schema": 1, "efficiency": {LABEL: ...}, "capacity": {LABEL: ...},
     "placement": {LABEL: ...}, "tco": ...}

each value exactly what the command's --json prints, or {"missing": "why"}.
"""

from __future__ import annotations

import argparse
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any, NoReturn

from dbstor.commands import advise, capacity, efficiency, tco
from dbstor.commands.consolidation import (
    cost_comparison,
    cost_headroom,
    cpu_at_same_load,
    cpu_interval,
    is_fio,
    verify_consolidation,
)
from dbstor.commands.study_placement import placement_advice
from dbstor.errors import UserError
from dbstor.results.model import Run
from dbstor.results.store import write_text_atomic
from dbstor.runs.progress import Progress
from dbstor.runs.study import StudyOutcome, render, run_study
from dbstor.study.analyses import CLUSTER_WHY, COMMANDS, STUDY_ONLY_KEYS, TABLES, cluster_skips
from dbstor.study.model import Study, Target
from dbstor.study.values import drives_fact
from dbstor.testfiles import Safety

ANALYSES_FILE = "analyses.json"
SCHEMA = 1
STUDY_ONLY = STUDY_ONLY_KEYS
Verify = Callable[[dict[str, Any], dict[str, Any] | None], dict[str, Any]]


class _Refused(Exception):
    """argparse's refusal of a table's value, raised instead of exiting."""


class _TableParser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise _Refused(message)


def _parsers() -> dict[str, argparse.ArgumentParser]:
    top = _TableParser(prog="dbstor", add_help=False)
    sub = top.add_subparsers(dest="command")
    for module in (capacity, efficiency, advise, tco):
        module.register(sub)
    return dict(sub.choices)


_PARSERS = _parsers()
_FLAG = re.compile(r"(?:argument )?--([a-z][a-z-]*)")


def as_flags(table: dict[str, Any]) -> list[str]:
    """A table's keys and values as the command's flags: true -> the flag, false -> left
    out, a table of role = value -> role=value,role=value."""
    argv = []
    for key, value in table.items():
        flag = "--" + key.replace("_", "-")
        if key in STUDY_ONLY or value is False:
            continue
        if value is True:
            argv.append(flag)
        elif isinstance(value, dict):
            argv.append(f"{flag}={','.join(f'{k}={v}' for k, v in value.items())}")
        else:
            argv.append(f"{flag}={value}")
    return argv


def _refusal(source: str, where: str, message: str) -> UserError:
    """The command's refusal with its flags named as the study file's fields."""
    text = _FLAG.sub(lambda m: m.group(1).replace("-", "_"), message)
    if _FLAG.match(message):  # "--raid-group: ..." -> "capacity.raid_group: ..."
        return UserError(f"{source}: {where}.{text}")
    return UserError(f"{source}: {where}: {text}")


class StudyAnalyses:
    """The four tables of one study: checked at once, filled in as its runs go."""

    def __init__(self, study: Study):
        self.study = study
        self.labels = [t.label for t in study.targets]
        self.baseline = study.baseline or self.labels[0]
        self.efficiency: dict[str, Any] = {}
        self.capacity: dict[str, Any] = {}
        for name in TABLES:
            for target in study.targets if name != "tco" else [None]:
                self._check(name, target)
        self.data: dict[str, Any] = {"schema": SCHEMA}
        self.cost_case: tuple[dict[str, Any], dict[str, Any] | None] = ({}, None)
        self.servers_before = None
        if study.consolidation is not None:  # [consolidation] needs [tco]: load.py checked
            args = self._args("tco", None)
            self.servers_before = int(
                self._call("tco", None, lambda: tco.resolve(None, args)).servers
            )
            after = study.consolidation.servers_after
            if after is not None and after >= self.servers_before:
                raise UserError(
                    f"{study.source}: consolidation.servers_after: {after} is not fewer than "
                    f"tco.servers ({self.servers_before}): give the count after consolidating"
                )

    def _where(self, name: str, target: Target | None) -> str:
        if target is not None and name in target.analyses:
            return f"targets[{self.study.targets.index(target)}].{name}"
        return name

    def _args(self, name: str, target: Target | None, *positional: str) -> argparse.Namespace:
        table = self.study.analysis_table(name, target)
        assert table is not None
        try:
            return _PARSERS[COMMANDS[name]].parse_args([*as_flags(table), *positional])
        except _Refused as exc:
            raise _refusal(self.study.source, self._where(name, target), str(exc)) from None

    def _call(self, name: str, target: Target | None, work: Any) -> Any:
        try:
            return work()
        except UserError as exc:
            raise _refusal(self.study.source, self._where(name, target), str(exc)) from None

    def _check(self, name: str, target: Target | None) -> None:
        table = self.study.analysis_table(name, target)
        if table is None:
            return
        where = self._where(name, target)
        for key in STUDY_ONLY:
            if key in table and table[key] not in self.labels:
                raise UserError(
                    f"{self.study.source}: {where}.{key}: {table[key]!r} is not a target "
                    f"label: {', '.join(self.labels)}"
                )
        if name == "capacity":
            args = self._args(name, target)
            walked = self._call(name, target, lambda: capacity.walk(args))
            self.capacity[target.label] = self._scoped(target, walked, where)
        elif name == "efficiency":
            args = self._args(name, target, "data")
            self._call(name, target, lambda: efficiency.check_options(args))
        elif name == "placement":
            if "fast_capacity" not in table:
                raise UserError(
                    f"{self.study.source}: {where}.fast_capacity: give the fast tier's usable "
                    'size, e.g. fast_capacity = "10GB"'
                )
            args = self._args(name, target)
            self._call(name, target, lambda: advise.check_values(args))
        else:
            if table.get("after") is not None and table["after"] == self.baseline:
                raise UserError(
                    f"{self.study.source}: {where}.after: {table['after']!r} is the baseline, "
                    "the storage before: name the new storage's target"
                )
            args = self._args(name, None)
            self._call(name, None, lambda: tco.resolve(None, args))

    def _scoped(self, target: Target, walked: dict[str, Any], where: str) -> dict[str, Any]:
        """A capacity walk whose drive count contradicts the target's `drives` fact is not
        that target's array: refused when the target's own table says so, else (the study's
        table, meant for another target) left out for it with why."""
        fact = drives_fact(target.facts)
        count = (walked.get("inputs") or {}).get("drives")
        if fact is None or count == fact:
            return walked
        said = f"{count} drives, but {target.label}'s facts say drives = {fact}"
        if "drives" in (target.analyses.get("capacity") or {}):
            raise UserError(
                f"{self.study.source}: {where}.drives: {said}; give the drives of its own array"
            )
        return {
            "missing": f"the study's [capacity] table counts {said}: it describes another "
            f"array; give {target.label} its own capacity = {{ drives = ... }}"
        }

    # --- as the runs go ------------------------------------------------------------

    def scan(self, run: Run, pairs: list[tuple[str, str]]) -> None:
        """A run's own files, before they are removed: its target's efficiency (the first
        run of a target that built files gives it)."""
        label = str(run.target.get("label"))
        target = next((t for t in self.study.targets if t.label == label), None)
        if target is None or self.study.analysis_table("efficiency", target) is None:
            return
        if self.study.databases and is_fio(run):
            return  # fio's test file is fio's data pattern, not the database's: not scanned
        if "missing" not in self.efficiency.get(label, {"missing": ""}):
            return  # an earlier run of this target measured it
        if run.status != "complete":  # Ctrl-C or a failed point: stop at once, scan nothing
            why = f"run {run.run_id} did not complete ({run.status}): its files were not scanned"
            self.efficiency.setdefault(label, {"missing": why})
            return
        if not pairs:
            self.efficiency[label] = {"missing": "its runs built no files on this host"}
            return
        args = self._args("efficiency", target, "data")
        try:
            self.efficiency[label] = efficiency.scan(args, pairs)
        except (UserError, OSError) as exc:
            self.efficiency[label] = {"missing": f"scanning run {run.run_id}'s files: {exc}"}

    def write(self, outcome: StudyOutcome) -> Path:
        """analyses.json in the study folder (the run folder of a one-run study)."""
        data = self.data = {"schema": SCHEMA}
        if self.study.analysis_table("efficiency") is not None or self.efficiency:
            data["efficiency"] = {
                t.label: self.efficiency.get(t.label, {"missing": "no run of it built files"})
                for t in self.study.targets
                if self.study.analysis_table("efficiency", t) is not None
            }
        if self.capacity:
            data["capacity"] = dict(self.capacity)
        ranked = [  # not the fast target itself: its objects are on the fast tier already
            t
            for t in self.study.targets
            if self.study.analysis_table("placement", t) is not None
            and self._fast_label(t) != t.label
        ]
        if ranked:
            data["placement"] = {t.label: self._placement(t, outcome) for t in ranked}
        if self.study.analysis_table("tco") is not None:
            comparison, note, runs = cost_comparison(
                outcome.runs, self.baseline, outcome.comparison
            )
            data["tco"] = self._tco(comparison, note)
            after = self._after()
            if after is not None:  # stated or not whether or not the case could be made
                data["headroom"] = cost_headroom(runs, self.baseline, after)
            self.cost_case = (data["tco"], comparison)
        return self._save(outcome)

    def _save(self, outcome: StudyOutcome) -> Path:
        path = outcome.folder / ANALYSES_FILE
        write_text_atomic(path, json.dumps(self.data, indent=2) + "\n")
        return path

    def verify(self, outcome: StudyOutcome, verify: Verify) -> Path:
        """The [consolidation] verify run, after analyses.json was written without it (a
        Ctrl-C during the re-run loses nothing the study measured): rewritten with it."""
        self.data["consolidation"] = verify(*self.cost_case)
        return self._save(outcome)

    def _folders(self, label: str, outcome: StudyOutcome) -> list[Path]:
        pairs = zip(outcome.runs, outcome.run_folders, strict=False)
        return [f for r, f in pairs if r.target.get("label") == label]

    def _fast_label(self, target: Target) -> str | None:
        """The target whose measured latency prices the move: `fast`, else the first
        target that is not the baseline."""
        table = self.study.analysis_table("placement", target) or {}
        return table.get("fast") or next((x for x in self.labels if x != self.baseline), None)

    def _placement(self, target: Target, outcome: StudyOutcome) -> dict[str, Any]:
        table = self.study.analysis_table("placement", target) or {}
        folders = [f for f in self._folders(target.label, outcome) if _has_objects(f)]
        if not folders:
            return {"missing": "no run of this target measured per-object I/O (a database run)"}
        args = self._args("placement", target, str(folders[0]))
        fast = self._fast_label(target)
        if "fast_latency" not in table and fast is not None:
            fast_folders = self._folders(fast, outcome)
            if not fast_folders:
                return {"missing": f"the fast target {fast} has no run to take its latency from"}
            args.fast_run = fast_folders[0]
        if "slow_latency" not in table and fast != target.label:
            args.slow_run = folders[0]  # this target's own measured latency: the stall saved
        return placement_advice(args, fast)

    def _after(self) -> str | None:
        """The cost case's new storage: [tco] after, else the first target not the baseline."""
        table = self.study.analysis_table("tco") or {}
        return table.get("after") or next((x for x in self.labels if x != self.baseline), None)

    def _tco(self, comparison: dict[str, Any] | None, note: str | None) -> dict[str, Any]:
        table = self.study.analysis_table("tco") or {}
        after = self._after()
        if after is None:
            return {"missing": "a cost case needs two targets: the baseline and the new storage"}
        if comparison is None:
            return {"missing": "no database workload ran on both targets to take the server's "
                    "CPU from"}  # fmt: skip
        cpu = cpu_at_same_load(comparison, self.baseline, after)
        if isinstance(cpu, str):  # and, with no price, what else the reader must give
            price = (
                ""
                if table.get("storage_price")
                else "; ROI, NPV and payback need storage_price too"
            )
            return {"missing": cpu + price}
        try:
            result = tco.cost_case(
                self._args("tco", None), cpu, cpu_interval(comparison, self.baseline, after)
            )
        except UserError as exc:
            return {"missing": str(exc)}
        if note:
            result.setdefault("notes", []).append(note)
        return result


def run_with_analyses(
    study: Study, out: Path, safety: Safety, progress: Progress, **workers: Any
) -> StudyOutcome:
    """run_study, with the study's tables checked first, its efficiency scanned as each run
    ends, and analyses.json written (and the report redrawn) after the last run. `workers`
    (io_worker, db_worker): a [cluster] study's, whose tables come from the merged results
    and say why where they cannot (CLUSTER_WHY)."""
    if not study.analyses and not any(t.analyses for t in study.targets):
        return run_study(study, out, safety, progress, **workers)
    analyses = StudyAnalyses(study)
    scan = None if workers else analyses.scan  # a cluster's files are on its hosts
    outcome = run_study(study, out, safety, progress, on_files=scan, **workers)
    if workers:
        analyses.efficiency = {
            t.label: {"missing": CLUSTER_WHY["efficiency"]} for t in study.targets
        }
        for line in cluster_skips(study):
            progress.say(line)

    def verify(cost_case: dict[str, Any], comparison: dict[str, Any] | None) -> dict[str, Any]:
        if workers:
            return {"missing": CLUSTER_WHY["consolidation"]}
        if any(r.status != "complete" for r in outcome.runs):
            return {"missing": "a run of the study did not complete: nothing re-run"}
        servers = int(analyses.servers_before or 0)
        return verify_consolidation(
            study, outcome, servers, cost_case, comparison, safety, progress
        )

    for step in ("write", "verify"):
        if step == "verify" and study.consolidation is None:
            break
        path = analyses.write(outcome) if step == "write" else analyses.verify(outcome, verify)
        progress.say(f"analyses: {path}")
        if (outcome.folder / "report.html").exists():
            render(outcome.folder, outcome.runs, outcome.comparison, study.name)
    return outcome


def check_as_run_would(study: Study) -> None:
    """The one validation of a study file that `dbstor study FILE` and `dbstor run FILE`
    share: its tables (StudyAnalyses), [study] pdf, and every check a run makes before it
    starts that does not need this host's targets (fio's reading of every job, each
    database's engine, workload, DSN, place, instances, load and memory). `dbstor run`
    adds the checks of the targets themselves (runs.study.preflight with local targets)."""
    from dbstor.runs.study import preflight

    StudyAnalyses(study)
    check_pdf(study)
    preflight(study, local_targets=False)


def check_pdf(study: Study) -> None:
    """[study] pdf = true needs headless Chromium: refused before anything runs."""
    from dbstor.report.pdf import find_chromium

    if study.pdf and find_chromium() is None:
        raise UserError(
            f"{study.source}: study.pdf: printing the report needs headless Chromium: "
            "install the chromium package, or remove pdf = true"
        )


def print_pdf(study: Study, outcome: StudyOutcome, progress: Progress) -> None:
    """report.pdf beside the study's report.html, when the study asks for it."""
    report = outcome.folder / "report.html"
    if study.pdf and report.exists():
        from dbstor.report.pdf import write_pdf

        progress.say(f"pdf: {write_pdf(report)}")


def _has_objects(folder: Path) -> bool:
    try:
        data = json.loads((folder / "results.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return bool((data.get("engine_stats") or {}).get("objects"))

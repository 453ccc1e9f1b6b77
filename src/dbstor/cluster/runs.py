"""Studies whose points are measured on several hosts: the entry points of `dbstor io
--cluster`, `dbstor run --cluster` and of a study file with [cluster]. Every host checks
itself before anything starts; then the study runs as on one host, with the cluster's
workers in place of this host's."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from dbstor.cluster.database import ClusterClientsWorker, ClusterDatabaseWorker
from dbstor.cluster.hosts import parse_host_list
from dbstor.cluster.io import ClusterIoWorker
from dbstor.cluster.session import ClusterSession
from dbstor.errors import UserError
from dbstor.runs.progress import Progress
from dbstor.runs.queries.checks import runs_queries
from dbstor.runs.study import StudyOutcome, run_study
from dbstor.study.model import Study, Target
from dbstor.testfiles import Safety


def _say_hosts(session: ClusterSession, progress: Progress) -> None:
    offsets = ", ".join(f"{h} {o.offset_s * 1000:+.1f} ms" for h, o in session.offsets.items())
    progress.say(f"hosts {', '.join(session.offsets)}; clock offsets {offsets}")
    for line in nice_warnings(session.facts, session.nice):
        progress.say(line)


def nice_warnings(facts: dict[str, dict[str, Any]], nice: int) -> list[str]:
    """One line for each host whose load cannot run at the coordinator's niceness."""
    return [
        f"host {name}: its load runs at nice {got['load_nice']}, not {nice} as here: Ray starts "
        "its workers at nice 15 and dbstor may lower that only as root or with CAP_SYS_NICE; "
        "on a busy host fio and the engine lose CPU to other work: start that node with "
        f"RAY_worker_niceness={nice} ray start ..."
        for name, got in facts.items()
        if got.get("load_nice") is not None and got["load_nice"] > nice
    ]


def run_study_on_hosts(
    address: str,
    hosts_text: str | None,
    study: Study,
    out: Path,
    safety: Safety,
    progress: Progress,
) -> StudyOutcome:
    """An io study with every point measured on every named host at once."""
    names = parse_host_list(hosts_text) if hosts_text else []
    with ClusterSession(address, names) as session:
        for target in study.targets:
            for path in target.paths:
                spec = {"fio": True, "target": str(path), "min_free_bytes": study.file_size}
                session.preflight(spec)
        _say_hosts(session, progress)
        return run_study(
            study,
            out,
            safety,
            progress,
            io_worker=lambda rules, say, target: ClusterIoWorker(session, rules, say),
        )


def run_database_study_on_hosts(
    address: str,
    hosts_text: str | None,
    study: Study,
    out: Path,
    safety: Safety,
    progress: Progress,
    clients_text: str | None = None,
    runner: Callable[..., StudyOutcome] = run_study,
) -> StudyOutcome:
    """A database study with its instances spread over the named hosts, in order; with
    clients_text, client hosts driving one external server instead. `runner`: as for
    run_cluster_study."""
    check_database_study(study, hosts_text, clients_text)
    if clients_text:
        names = parse_host_list(clients_text, "--clients")
    else:
        names = parse_host_list(hosts_text) if hosts_text else []
    with ClusterSession(address, names) as session:
        for spec in study.databases:
            for target in study.targets:
                paths = [p for ps in target.roles.values() for p in ps] if spec.dsn is None else []
                for path in paths or [None]:
                    session.preflight(
                        {"engine": spec.engine, "target": str(path) if path else None}
                    )
        _say_hosts(session, progress)
        worker = ClusterClientsWorker if clients_text else ClusterDatabaseWorker
        return runner(
            study,
            out,
            safety,
            progress,
            db_worker=lambda rules, say, target: worker(session, rules, say),
        )


def check_database_study(study: Study, hosts_text: str | None, clients_text: str | None) -> None:
    """What a database study on a cluster cannot do, each one line before anything starts."""
    if study.profiles:
        raise UserError("--cluster with a study of fio profiles: use dbstor io --cluster")
    for spec in study.databases:
        if runs_queries(spec):
            raise UserError(
                "--cluster runs the transaction workloads (brokerage, orders, blocks); "
                f"{spec.workload} runs its query streams from one host: drop --cluster and "
                "--hosts/--clients, and give --streams N for concurrent streams"
            )
    if not clients_text:
        return
    if hosts_text:
        raise UserError(
            "--clients and --hosts: give --clients C1,C2 (client hosts driving one external "
            "server, --dsn) or --hosts H1,H2 (one managed database per host), not both"
        )
    for spec in study.databases:
        if spec.dsn is None:
            raise UserError(
                "--clients drives one external server: give its --dsn "
                "(e.g. postgresql://bench@dbhost/bench), or --hosts for managed databases"
            )
        if spec.series.kind == "instances":
            raise UserError(
                "--clients drives one external server: give --users or --rate, not --instances"
            )


def run_cluster_study(
    study: Study,
    out: Path,
    safety: Safety,
    progress: Progress,
    runner: Callable[..., StudyOutcome] = run_study,
) -> StudyOutcome:
    """A study file with [cluster]: each target measured on its own `hosts` (every io
    profile and managed database there), or driven from its `clients` (the databases with
    a DSN: one external server). One session over every host any target names. `runner`:
    run_study, or the one that adds the study's analysis tables (commands/study_analyses)."""
    assert study.cluster is not None
    for spec in study.databases:
        if runs_queries(spec):
            raise UserError(
                f"{study.source}: [cluster]: {spec.workload} (queries) runs on one host: "
                "run it in a study without [cluster]"
            )
    pairs = [
        (t, d) for t in study.targets for d in study.databases if bool(t.clients) == bool(d.dsn)
    ]
    if not pairs and not (study.profiles and any(not t.clients for t in study.targets)):
        raise UserError(
            f"{study.source}: nothing to run: a target with clients runs the databases with a "
            "dsn, the other targets the fio profiles and the managed databases"
        )
    names: list[str] = []
    for target in study.targets:
        names += [h for h in (*target.hosts, *target.clients) if h not in names]
    with ClusterSession(study.cluster, names) as session:
        everyone = [h.name for h in session.hosts]
        for target in study.targets:
            on = list(target.clients or target.hosts) or everyone
            if target.clients:
                for spec in (d for d in study.databases if d.dsn):
                    session.preflight({"engine": spec.engine}, on)
                continue
            for path in (p for ps in target.roles.values() for p in ps):
                spec = {"fio": bool(study.profiles), "target": str(path)}
                session.preflight({**spec, "min_free_bytes": study.file_size}, on)
            for engine in {d.engine for d in study.databases if d.dsn is None}:
                session.preflight({"engine": engine}, on)
        _say_hosts(session, progress)

        def io_worker(rules: Safety, say: Callable[[str], None], target: Target) -> Any:
            return ClusterIoWorker(session, rules, say, target.hosts)

        def db_worker(rules: Safety, say: Callable[[str], None], target: Target) -> Any:
            if target.clients:
                return ClusterClientsWorker(session, rules, say, target.clients)
            return ClusterDatabaseWorker(session, rules, say, target.hosts)

        return runner(study, out, safety, progress, io_worker=io_worker, db_worker=db_worker)

"""Studies whose points are measured on several hosts: the entry points of `dbstor io
--cluster` and `dbstor run --cluster`. Every host checks itself before anything starts;
then the study runs as on one host, with the cluster's workers in place of this host's."""

from __future__ import annotations

from pathlib import Path

from dbstor.cluster.database import ClusterDatabaseWorker
from dbstor.cluster.hosts import parse_host_list
from dbstor.cluster.io import ClusterIoWorker
from dbstor.cluster.session import ClusterSession
from dbstor.errors import UserError
from dbstor.runs.progress import Progress
from dbstor.runs.queries.checks import runs_queries
from dbstor.runs.study import StudyOutcome, run_study
from dbstor.study.model import Study
from dbstor.testfiles import Safety


def _say_hosts(session: ClusterSession, progress: Progress) -> None:
    offsets = ", ".join(f"{h} {o.offset_s * 1000:+.1f} ms" for h, o in session.offsets.items())
    progress.say(f"hosts {', '.join(session.offsets)}; clock offsets {offsets}")


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
            io_worker=lambda rules, say: ClusterIoWorker(session, rules, say),
        )


def run_database_study_on_hosts(
    address: str,
    hosts_text: str | None,
    study: Study,
    out: Path,
    safety: Safety,
    progress: Progress,
) -> StudyOutcome:
    """A database study with its instances spread over the named hosts, in order."""
    if study.profiles:
        raise UserError("--cluster with a study of fio profiles: use dbstor io --cluster")
    for spec in study.databases:
        if runs_queries(spec):
            raise UserError(
                f"--cluster runs transaction workloads; {spec.workload} (queries) runs on one host"
            )
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
        return run_study(
            study,
            out,
            safety,
            progress,
            db_worker=lambda rules, say: ClusterDatabaseWorker(session, rules, say),
        )

"""`dbstor run`'s flags for several hosts through Ray (--cluster, --hosts, --clients) and
their checks, made before anything is built or started (Ray is imported only later), and
the run of a study on a cluster."""

from __future__ import annotations

import argparse
import os
from typing import TYPE_CHECKING

from dbstor.errors import UserError
from dbstor.study.model import Study
from dbstor.testfiles import Safety

if TYPE_CHECKING:
    from dbstor.runs.progress import Progress
    from dbstor.runs.study import StudyOutcome


def add_cluster_flags(parser: argparse.ArgumentParser) -> None:
    """--cluster, --hosts and --clients in their own group of `dbstor run --help`."""
    hosts = parser.add_argument_group("several hosts, through Ray (pip install 'dbstor[cluster]')")
    hosts.add_argument(
        "--cluster",
        metavar="ADDR",
        help="the Ray head, HOST:PORT: spread the instances over the hosts of --hosts, in "
        "order, one merged result (see docs/cluster.md)",
    )
    hosts.add_argument(
        "--hosts", metavar="H1,H2", help="with --cluster: the hosts to run on (default: all)"
    )
    hosts.add_argument(
        "--clients",
        metavar="C1,C2",
        help="with --cluster and --dsn: client hosts driving the one external server, the "
        "users spread over them (instead of --hosts)",
    )


def check_cluster_flags(args: argparse.Namespace, dsn_env: str) -> None:
    """--cluster, --hosts and --clients together, before anything is built or started."""
    for flag in ("hosts", "clients"):
        if getattr(args, flag) and not args.cluster:
            raise UserError(
                f"--{flag} needs --cluster ADDR (the Ray head), e.g. --cluster head:6379"
            )
    if args.clients and args.hosts:
        raise UserError(
            "--clients and --hosts: give --clients C1,C2 (client hosts driving one external "
            "server, --dsn) or --hosts H1,H2 (one managed database per host), not both"
        )
    if args.clients and args.engine and not (args.dsn or os.environ.get(dsn_env)):
        raise UserError(
            "--clients drives one external server: give its --dsn "
            "(e.g. postgresql://bench@dbhost/bench), or --hosts for managed databases"
        )


def check_cluster_flags_beside(study: Study, args: argparse.Namespace) -> None:
    """A study file with its own [cluster] takes no --cluster, --hosts or --clients."""
    if study.cluster and (args.cluster or args.hosts or args.clients):
        raise UserError(
            f"{study.source} names its cluster and each target's hosts ([cluster], hosts, "
            "clients): drop --cluster, --hosts and --clients"
        )


def run_on_cluster(
    study: Study, args: argparse.Namespace, safety: Safety, progress: Progress
) -> StudyOutcome | None:
    """The study on a cluster (a study file's [cluster], or --cluster with --hosts or
    --clients), its analysis tables computed on the merged results; None: no cluster.
    Only here is Ray imported."""
    from dbstor.commands.study_analyses import run_with_analyses

    if study.cluster:
        from dbstor.cluster.runs import run_cluster_study

        return run_cluster_study(study, args.out, safety, progress, runner=run_with_analyses)
    if not args.cluster:
        return None
    from dbstor.cluster.runs import run_database_study_on_hosts

    return run_database_study_on_hosts(
        args.cluster,
        args.hosts,
        study,
        args.out,
        safety,
        progress,
        clients_text=args.clients,
        runner=run_with_analyses,
    )

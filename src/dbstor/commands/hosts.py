"""dbstor hosts: the hosts of a Ray cluster dbstor can run on, and what each can do.

Ray is imported only here, inside run(), and only because --cluster was given.
"""

from __future__ import annotations

import argparse
import json
import sys

from rich.console import Console

from dbstor.report.kit.terminal import fitted_table


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "hosts",
        help="list the hosts of a Ray cluster: CPUs, memory, dbstor, fio, engines, clock offset",
        description=(
            "List the hosts dbstor sees in a Ray cluster (each Ray node, named by its "
            "'dbstor-host:NAME' resource or else its hostname) and what each can run. "
            "Needs the cluster extra: pip install 'dbstor[cluster]'."
        ),
    )
    parser.add_argument("--cluster", required=True, metavar="ADDR", help="the Ray head, HOST:PORT")
    parser.add_argument(
        "--hosts", metavar="H1,H2", help="only these hosts (default: every host of the cluster)"
    )
    parser.add_argument("--json", action="store_true", help="print the list as JSON")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from dbstor.cluster.hosts import parse_host_list
    from dbstor.cluster.runs import nice_warnings
    from dbstor.cluster.session import ClusterSession

    names = parse_host_list(args.hosts) if args.hosts else []
    with ClusterSession(args.cluster, names) as cluster:
        rows = []
        for host in cluster.hosts:
            facts = cluster.facts[host.name]
            offset = cluster.offsets[host.name]
            rows.append(
                {
                    "name": host.name,
                    "named_by": host.named_by,
                    "address": host.address,
                    "hostname": facts.get("hostname"),
                    "cpus": facts.get("cpus"),
                    "memory_bytes": facts.get("memory_bytes"),
                    "dbstor": facts.get("dbstor"),
                    "fio": facts.get("fio"),
                    "engines": facts.get("engines", []),
                    "clock_offset_ms": offset.offset_s * 1000,
                    "clock_bound_ms": offset.bound_s * 1000,
                    "load_nice": facts.get("load_nice"),
                }
            )
        warnings = nice_warnings(cluster.facts, cluster.nice)
    for line in warnings:
        Console(stderr=True).print(line, highlight=False)
    if args.json:
        json.dump(rows, sys.stdout, indent=2)
        sys.stdout.write("\n")
        return 0
    table = fitted_table(
        None, ["host", "address", "CPUs", "memory", "dbstor", "fio", "engines", "nice", "clock"]
    )
    for row in rows:
        memory = f"{row['memory_bytes'] / 2**30:.1f} GiB" if row["memory_bytes"] else "?"
        table.add_row(
            row["name"],
            row["address"],
            str(row["cpus"]),
            memory,
            row["dbstor"],
            row["fio"] or "missing",
            ", ".join(row["engines"]) or "none",
            str(row["load_nice"]),
            f"{row['clock_offset_ms']:+.2f} ms ± {row['clock_bound_ms']:.2f}",
        )
    Console().print(table)
    return 0

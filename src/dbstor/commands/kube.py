"""dbstor kube: a study as Kubernetes Jobs, one per storage class (render, run, collect).

`render` prints the manifests (kubectl apply -f is the user's); `run` applies them through
the Kubernetes API with the user's kubeconfig, follows each Job and collects; `collect`
copies back the run folders of Jobs started by hand and writes the study document. The
Kubernetes client is imported only by run and collect (pip install 'dbstor[kube]').
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from dbstor.errors import UserError


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("study", type=Path, metavar="STUDY.toml", help="the study file")
    parser.add_argument(
        "--storage-class",
        action="append",
        default=[],
        metavar="NAME",
        help="a storage class to test (repeatable; the first is the baseline); default: the "
        "study's targets that name storage_class",
    )
    parser.add_argument(
        "--volume-mode",
        default="Filesystem",
        choices=("Filesystem", "Block"),
        help="the PVC's volume mode; Block gives the pod a raw device (fio profiles only)",
    )
    parser.add_argument(
        "--volume-size", metavar="SIZE", help="each PVC's size (default: the study's size + 25%%)"
    )
    parser.add_argument("--namespace", default="default", help="the namespace (default: default)")
    parser.add_argument(
        "--nodes", metavar="N1,N2", help="run the pods only on these nodes (kubernetes.io/hostname)"
    )
    parser.add_argument("--image", help="the dbstor image (default: make image's)")
    parser.add_argument("--name", help="the study's name in object names (default: the file's)")
    parser.add_argument(
        "--deadline", default="4h", help="each Job's activeDeadlineSeconds, e.g. 2h (default 4h)"
    )
    parser.add_argument(
        "--dsn-secret",
        default="dbstor-dsn",
        metavar="SECRET",
        help="the Secret holding each database's dsn_env variable (key = the variable's name)",
    )


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "kube",
        help="run a study as Kubernetes Jobs, one per storage class, and compare the classes",
        description=(
            "Kubernetes: 'render' prints per storage class a PVC, a results PVC, a ConfigMap "
            "with the study and a Job running the dbstor image; 'run' applies them with your "
            "kubeconfig, follows the Jobs one class after another, copies each run folder back "
            "and writes one document comparing the classes (the first is the baseline); "
            "'collect' does the last step for Jobs started by hand."
        ),
    )
    actions = parser.add_subparsers(dest="kube_action", metavar="ACTION", required=True)
    render = actions.add_parser("render", help="print the manifests (YAML) on stdout")
    _common(render)
    render.set_defaults(handler=run_render)
    for name, text in (
        ("run", "apply, follow, collect and compare"),
        ("collect", "collect the finished Jobs' run folders and compare"),
    ):
        action = actions.add_parser(name, help=text)
        _common(action)
        action.add_argument("--kubeconfig", type=Path, help="default: $KUBECONFIG or ~/.kube")
        action.add_argument("--context", help="the kubeconfig context (default: its current)")
        action.add_argument(
            "--out", type=Path, default=Path("results"), help="where the run folders go"
        )
        action.add_argument(
            "--bind-timeout",
            default="5m",
            help="how long a PVC may stay unbound once its pod waits for it (default 5m)",
        )
        if name == "run":
            action.add_argument(
                "--keep",
                action="store_true",
                help="keep each class's PVCs, ConfigMap and Job after its run folder is back "
                "(default: deleted then; a class that failed keeps them for a look)",
            )
        action.set_defaults(handler=run_follow if name == "run" else run_collect)


def manifest_options(args: argparse.Namespace) -> dict:
    from dbstor.kube.manifests import DEFAULT_IMAGE
    from dbstor.units import first_repeat, parse_duration

    nodes = tuple(n.strip() for n in (args.nodes or "").split(",") if n.strip())
    if (twice := first_repeat(nodes)) is not None:
        raise UserError(f"--nodes: {twice} is named twice: name each node once")
    for node in nodes:
        if not re.fullmatch(r"[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?", node):
            raise UserError(f"--nodes {node[:80]!r}: not a node name (kubernetes.io/hostname)")
    image = args.image or DEFAULT_IMAGE
    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._/:@-]{0,254}", image):
        raise UserError(f"--image {image[:80]!r}: not an image reference, e.g. repo/dbstor:0.1.0")
    try:
        deadline = parse_duration(args.deadline, limit_s=30 * 86400)
    except ValueError as exc:
        raise UserError(f"--deadline {args.deadline}: {exc}") from None
    return {
        "namespace": namespace(args.namespace),
        "image": image,
        "nodes": nodes,
        "deadline_s": max(1, int(deadline)),
        "dsn_secret": namespace(args.dsn_secret, "--dsn-secret"),
    }


def namespace(value: str, flag: str = "--namespace") -> str:
    from dbstor.kube.plan import object_name

    if object_name(value) != value:
        raise UserError(f"{flag} {value[:80]!r}: give a Kubernetes name (a-z, 0-9, '-')")
    return value


def kube_plan(args: argparse.Namespace):
    from dbstor.kube.plan import plan

    return plan(args.study, args.storage_class, args.volume_mode, args.volume_size, args.name)


def run_render(args: argparse.Namespace) -> int:
    from dbstor.kube.manifests import all_objects, as_yaml_stream

    plan = kube_plan(args)
    sys.stdout.write(as_yaml_stream(plan, all_objects(plan, **manifest_options(args))))
    return 0


def run_follow(args: argparse.Namespace) -> int:
    from dbstor.kube.session import follow_study

    plan = kube_plan(args)
    return follow_study(plan, manifest_options(args), args, apply=True)


def run_collect(args: argparse.Namespace) -> int:
    from dbstor.kube.session import follow_study

    plan = kube_plan(args)
    return follow_study(plan, manifest_options(args), args, apply=False)

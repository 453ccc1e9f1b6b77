"""dbstor kube run / collect through the Kubernetes API (the official `kubernetes` client,
the user's kubeconfig): per storage class, in order, create its objects (run only), follow
its Job to the end, bring its run folder back; then one document compares the classes.

A class that cannot finish is one line naming the object (a storage class that does not
exist, a PVC still unbound after --bind-timeout, a failed pod, a Job past its deadline);
the next class still runs and the run folder keeps what finished. Objects that already
exist are never replaced (they may not be dbstor's): the line says which and how to go on.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dbstor.errors import UserError
from dbstor.kube.collect import archive_from_log, compare_classes, unpack
from dbstor.kube.manifests import class_objects, names
from dbstor.kube.plan import KubePlan, object_name
from dbstor.safefs import new_dir, user_dir
from dbstor.units import parse_duration


class ClassFailed(Exception):
    """One class could not finish: the line says which object and why; the pod, when one
    ran, whose log may still hold what finished."""

    def __init__(self, line: str, pod: str | None = None):
        super().__init__(line)
        self.pod = pod


class Clock:
    """Time for the follow loop (tests replace it with one that does not wait)."""

    interval_s = 5.0

    def now(self) -> float:
        return time.monotonic()

    def sleep(self, seconds: float) -> None:
        time.sleep(seconds)


@dataclass
class Api:
    """The typed API groups dbstor uses."""

    core: Any
    batch: Any
    storage: Any
    api_exception: type[Exception] = field(default=Exception)


def connect(kubeconfig: Path | None, context: str | None) -> Api:
    try:
        import yaml
        from kubernetes import client, config
    except ImportError:
        raise UserError(
            "dbstor kube run needs the Kubernetes client: pip install 'dbstor[kube]'"
        ) from None
    configuration = client.Configuration()
    try:
        config.load_kube_config(
            config_file=str(kubeconfig) if kubeconfig else None,
            context=context,
            client_configuration=configuration,
        )
    except (config.ConfigException, yaml.YAMLError, OSError, ValueError, TypeError) as exc:
        where = kubeconfig or "$KUBECONFIG or ~/.kube/config"
        raise UserError(f"kubeconfig {where}: {str(exc).splitlines()[0][:160]}") from None
    api = client.ApiClient(configuration)
    return Api(
        core=client.CoreV1Api(api),
        batch=client.BatchV1Api(api),
        storage=client.StorageV1Api(api),
        api_exception=client.ApiException,
    )


def follow_study(
    plan: KubePlan,
    options: dict[str, Any],
    args: argparse.Namespace,
    apply: bool,
    api: Api | None = None,
    clock: Clock | None = None,
) -> int:
    """Run (apply=True) or collect each class, then compare; 0 when every class finished,
    1 when one or more could not (each said in one line)."""
    try:
        bind_timeout_s = parse_duration(args.bind_timeout)
    except ValueError as exc:
        raise UserError(f"--bind-timeout {args.bind_timeout}: {exc}") from None
    api = api or connect(args.kubeconfig, args.context)
    clock = clock or Clock()
    user_dir(args.out, "--out")
    stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime())
    base = args.out / f"kube-{plan.name}-{stamp}"
    taken = sum(1 for _ in args.out.glob(f"{base.name}*"))  # two runs in one second
    folder = new_dir(base.with_name(f"{base.name}-{taken + 1}") if taken else base)
    namespace = options["namespace"]
    run_folders: list[Path] = []
    failed = 0
    for cls in plan.classes:
        own = names(plan, cls)
        say(f"{cls.label}: storage class {cls.storage_class}, job {namespace}/{own['job']}")
        pod: str | None = None
        created: list[dict[str, Any]] = []
        finished = False
        try:
            check_class(api, cls.storage_class)
            if apply:
                for obj in class_objects(plan, cls, **options):
                    create(api, obj)
                    created.append(obj)
            pod = follow_job(api, namespace, own, clock, bind_timeout_s)
            finished = True
        except ClassFailed as exc:
            say(f"dbstor: {cls.label}: {exc}")
            failed += 1
            pod = exc.pod
        found = bring_back(api, namespace, pod, folder / object_name(cls.label)) if pod else []
        run_folders += found
        if finished and found and not getattr(args, "keep", False):
            remove(api, created)  # what this run made, once its results are here
        elif created:
            say(
                f"  kept for a look: kubectl get job,pod,pvc,configmap -n {namespace} -l "
                f"dbstor.io/study={plan.name}; then kubectl delete the same"
            )
    comparison = compare_classes(folder, run_folders, plan.title) if run_folders else None
    say(
        f"{len(run_folders)} run folder(s) in {folder}"
        + ("; report.html compares the classes" if comparison else "")
    )
    return 1 if failed else 0


def say(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def status_of(api: Api, exc: Exception) -> int | None:
    return getattr(exc, "status", None) if isinstance(exc, api.api_exception) else None


def check_class(api: Api, name: str) -> None:
    try:
        found = api.storage.read_storage_class(name)
    except Exception as exc:
        if status_of(api, exc) == 404:
            raise ClassFailed(
                f"storage class {name} does not exist (kubectl get storageclass lists them)"
            ) from None
        raise
    mode = getattr(found, "volume_binding_mode", None)
    if mode:
        say(f"  storage class {name}: provisioner {found.provisioner}, binding {mode}")


_CREATE = {
    "PersistentVolumeClaim": ("core", "create_namespaced_persistent_volume_claim"),
    "ConfigMap": ("core", "create_namespaced_config_map"),
    "Job": ("batch", "create_namespaced_job"),
}


def create(api: Api, obj: dict[str, Any]) -> None:
    """Create one object; one that exists already is refused, never replaced."""
    group, method = _CREATE[obj["kind"]]
    meta = obj["metadata"]
    try:
        getattr(getattr(api, group), method)(meta["namespace"], obj)
    except Exception as exc:
        status = status_of(api, exc)
        if status == 409:
            raise UserError(
                f"{obj['kind']} {meta['namespace']}/{meta['name']} exists already: dbstor "
                "never replaces it; delete it (kubectl delete) or give another --name"
            ) from None
        if status is not None:
            reason = getattr(exc, "reason", "") or ""
            raise UserError(
                f"{obj['kind']} {meta['namespace']}/{meta['name']}: the API refused it "
                f"({status} {reason})"
            ) from None
        raise


_DELETE = {
    "PersistentVolumeClaim": ("core", "delete_namespaced_persistent_volume_claim"),
    "ConfigMap": ("core", "delete_namespaced_config_map"),
    "Job": ("batch", "delete_namespaced_job"),
}


def remove(api: Api, created: list[dict[str, Any]]) -> None:
    """Delete the objects this run created (the Job with its pod first); one already gone
    is fine, one that cannot be deleted is said and left."""
    for obj in reversed(created):
        group, method = _DELETE[obj["kind"]]
        meta = obj["metadata"]
        try:
            getattr(getattr(api, group), method)(
                meta["name"], meta["namespace"], propagation_policy="Background"
            )
        except Exception as exc:
            status = status_of(api, exc)
            if status is None:
                raise
            if status != 404:
                say(
                    f"dbstor: {obj['kind']} {meta['namespace']}/{meta['name']}: not deleted ({status})"
                )


def follow_job(
    api: Api, namespace: str, own: dict[str, str], clock: Clock, bind_timeout_s: float
) -> str:
    """Wait for the Job to end; its pod's name when it succeeded, else ClassFailed (with
    the pod, when there is one whose log may hold what finished)."""
    job_name, pvc_name = own["job"], own["volume"]
    unbound_since: float | None = None
    last_phase = None
    while True:
        try:
            job = api.batch.read_namespaced_job_status(job_name, namespace)
        except Exception as exc:
            if status_of(api, exc) == 404:
                raise ClassFailed(f"job {namespace}/{job_name} does not exist") from None
            raise
        pods = api.core.list_namespaced_pod(namespace, label_selector=f"job-name={job_name}")
        pod = pods.items[-1] if pods.items else None
        phase = pod.status.phase if pod is not None and pod.status else None
        if phase != last_phase and phase is not None:
            say(f"  pod {pod.metadata.name}: {phase}")
            last_phase = phase
        status = job.status
        if status and (status.succeeded or 0) >= 1:
            return pod.metadata.name if pod is not None else job_name
        failure, deadline = job_failure(job)
        if failure or phase == "Failed":  # past its deadline: the Job says so, else the pod
            line = pod_failure(pod) if phase == "Failed" and not deadline else str(failure)
            raise ClassFailed(line, pod.metadata.name if pod is not None else None)
        claim = api.core.read_namespaced_persistent_volume_claim(pvc_name, namespace)
        if claim.status is None or claim.status.phase != "Bound":
            unbound_since = clock.now() if unbound_since is None else unbound_since
            if clock.now() - unbound_since >= bind_timeout_s:
                raise ClassFailed(unbound_line(api, namespace, pvc_name, bind_timeout_s))
        else:
            unbound_since = None
        clock.sleep(clock.interval_s)


def job_failure(job: Any) -> tuple[str | None, bool]:
    """The Job's failure line, if it failed, and whether it passed its deadline."""
    for condition in (job.status.conditions if job.status else None) or []:
        if condition.type == "Failed" and condition.status == "True":
            name = f"{job.metadata.namespace}/{job.metadata.name}"
            if condition.reason == "DeadlineExceeded":
                limit = job.spec.active_deadline_seconds
                return f"job {name} passed its deadline ({limit} s, --deadline)", True
            return f"job {name} failed ({condition.reason}: {condition.message or ''})", False
    return None, False


def pod_failure(pod: Any) -> str:
    name = f"{pod.metadata.namespace}/{pod.metadata.name}"
    for state in pod.status.container_statuses or []:
        ended = state.state.terminated if state.state else None
        if ended is not None:
            why = ended.reason or "Error"
            return f"pod {name} failed: container {state.name} exited {ended.exit_code} ({why})"
    return f"pod {name} failed ({pod.status.reason or 'no container ran'})"


def unbound_line(api: Api, namespace: str, pvc: str, waited_s: float) -> str:
    """Why the PVC is unbound, from its newest event (the provisioner's words)."""
    events = api.core.list_namespaced_event(
        namespace,
        field_selector=f"involvedObject.kind=PersistentVolumeClaim,involvedObject.name={pvc}",
    )
    items = sorted(
        events.items or [],
        key=lambda e: str(e.last_timestamp or e.event_time or e.metadata.creation_timestamp),
    )
    why = f"{items[-1].reason}: {items[-1].message}" if items else "no event says why"
    return f"PVC {namespace}/{pvc} is still unbound after {waited_s:g} s ({why})"


def bring_back(api: Api, namespace: str, pod: str, dest: Path) -> list[Path]:
    """The pod's run folders under dest; [] (said) when its log holds none."""
    try:
        log = api.core.read_namespaced_pod_log(pod, namespace, container="dbstor")
    except Exception as exc:
        if status_of(api, exc) is None:
            raise
        say(f"dbstor: pod {namespace}/{pod}: its log cannot be read ({exc.status}); nothing kept")
        return []
    archive = archive_from_log(log or "")
    if archive is None:
        say(f"dbstor: pod {namespace}/{pod}: its log holds no run folder (it ended early)")
        return []
    return unpack(archive, dest)

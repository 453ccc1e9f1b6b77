"""The Kubernetes objects of a study, per storage class: a PVC for the class's volume, a
PVC for the results, a ConfigMap holding the study and a Job running the dbstor image on it.

Nothing grants more than the run needs: no service-account token, no privilege, every
capability dropped, a read-only root file system. A Filesystem volume runs as an
unprivileged user (fsGroup makes the volume writable); a Block volume runs as root inside
the container (the device node the kubelet makes is root's) and still with no capability.
"""

from __future__ import annotations

import json
from typing import Any

from dbstor import __version__
from dbstor.kube.plan import (
    DEVICE_PATH,
    MOUNT_PATH,
    RESULTS_PATH,
    STUDY_DIR,
    STUDY_FILE,
    ClassStudy,
    KubePlan,
    object_name,
)

DEFAULT_IMAGE = f"localhost/dbstor:{__version__}"
RESULTS_BYTES = 1024**3
UNPRIVILEGED_UID = 10001
BEGIN_MARK, END_MARK = "dbstor-results-begin", "dbstor-results-end"
# The container's script: fixed text, no user text in it (paths are constants, the study is
# a file). The run folder travels back base64-encoded in the log between two marks, so
# `kube collect` needs only the API's pod log, and it stays on the results volume too.
_SCRIPT = (
    "dbstor run {study} --out {results}/runs {flags}; status=$?; echo {begin}; "
    "tar -C {results} -cz runs | base64 -w 76; echo {end}; exit $status"
)


def labels(plan: KubePlan, cls: ClassStudy) -> dict[str, str]:
    return {
        "app.kubernetes.io/name": "dbstor",
        "app.kubernetes.io/managed-by": "dbstor",
        "dbstor.io/study": plan.name,
        "dbstor.io/storage-class": object_name(cls.storage_class),
    }


def names(plan: KubePlan, cls: ClassStudy) -> dict[str, str]:
    base = object_name(plan.name, cls.storage_class)
    return {
        "volume": object_name(base[:55], "volume"),
        "results": object_name(base[:54], "results"),
        "study": object_name(base[:56], "study"),
        "job": base[:63],
    }


def class_objects(
    plan: KubePlan,
    cls: ClassStudy,
    namespace: str,
    image: str,
    nodes: tuple[str, ...] = (),
    deadline_s: int = 4 * 3600,
    dsn_secret: str = "dbstor-dsn",
) -> list[dict[str, Any]]:
    """The four objects of one class, in the order to apply them."""
    meta_labels, own = labels(plan, cls), names(plan, cls)

    def meta(name: str) -> dict[str, Any]:
        return {"name": name, "namespace": namespace, "labels": meta_labels}

    volume = pvc(meta(own["volume"]), cls.storage_class, plan.volume_mode, plan.volume_bytes)
    results = pvc(meta(own["results"]), None, "Filesystem", RESULTS_BYTES)
    study = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": meta(own["study"]),
        "data": {STUDY_FILE: cls.text},
    }
    job = {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": meta(own["job"]),
        "spec": {
            "backoffLimit": 0,  # a retried measurement is another measurement
            "activeDeadlineSeconds": deadline_s,
            "template": {
                "metadata": {"labels": meta_labels},
                "spec": pod_spec(plan, cls, own, image, nodes, dsn_secret),
            },
        },
    }
    return [volume, results, study, job]


def pvc(meta: dict[str, Any], storage_class: str | None, mode: str, size: int) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "accessModes": ["ReadWriteOnce"],
        "volumeMode": mode,
        "resources": {"requests": {"storage": quantity(size)}},
    }
    if storage_class is not None:  # None: the cluster's default class (the results)
        spec["storageClassName"] = storage_class
    return {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": meta, "spec": spec}


def quantity(n_bytes: int) -> str:
    """Bytes as a Kubernetes quantity: the largest binary unit that divides them."""
    for unit, size in (("Ti", 1024**4), ("Gi", 1024**3), ("Mi", 1024**2), ("Ki", 1024)):
        if n_bytes % size == 0:
            return f"{n_bytes // size}{unit}"
    return str(n_bytes)


def pod_spec(
    plan: KubePlan,
    cls: ClassStudy,
    own: dict[str, str],
    image: str,
    nodes: tuple[str, ...],
    dsn_secret: str,
) -> dict[str, Any]:
    block = plan.volume_mode == "Block"
    flags = "--allow-overwrite --i-know-this-destroys-data" if block else ""
    script = _SCRIPT.format(
        study=f"{STUDY_DIR}/{STUDY_FILE}",
        results=RESULTS_PATH,
        flags=flags,
        begin=BEGIN_MARK,
        end=END_MARK,
    ).replace("  ", " ")
    mounts = [
        {"name": "study", "mountPath": STUDY_DIR, "readOnly": True},
        {"name": "results", "mountPath": RESULTS_PATH},
        {"name": "tmp", "mountPath": "/tmp"},
    ]
    container: dict[str, Any] = {
        "name": "dbstor",
        "image": image,
        "imagePullPolicy": "IfNotPresent",
        "command": ["/bin/sh", "-c", script],
        "env": [{"name": "HOME", "value": "/tmp"}]
        + [
            {"name": env, "valueFrom": {"secretKeyRef": {"name": dsn_secret, "key": env}}}
            for env in cls.dsn_envs
        ],
        "resources": resources(plan),
        "securityContext": {
            "allowPrivilegeEscalation": False,
            "privileged": False,
            "readOnlyRootFilesystem": True,
            "capabilities": {"drop": ["ALL"]},
        },
        "volumeMounts": mounts,
    }
    if block:
        container["volumeDevices"] = [{"name": "volume", "devicePath": DEVICE_PATH}]
    else:
        mounts.append({"name": "volume", "mountPath": MOUNT_PATH})
    user = 0 if block else UNPRIVILEGED_UID
    spec: dict[str, Any] = {
        "restartPolicy": "Never",
        "automountServiceAccountToken": False,
        "enableServiceLinks": False,
        "securityContext": {
            "runAsNonRoot": not block,
            "runAsUser": user,
            "runAsGroup": user,
            "seccompProfile": {"type": "RuntimeDefault"},
        },
        "containers": [container],
        "volumes": [
            {"name": "volume", "persistentVolumeClaim": {"claimName": own["volume"]}},
            {"name": "results", "persistentVolumeClaim": {"claimName": own["results"]}},
            {"name": "study", "configMap": {"name": own["study"]}},
            {"name": "tmp", "emptyDir": {}},
        ],
        "affinity": affinity(plan, nodes),
    }
    if not block:
        spec["securityContext"] |= {
            "fsGroup": UNPRIVILEGED_UID,
            "fsGroupChangePolicy": "OnRootMismatch",
        }
    return spec


def resources(plan: KubePlan) -> dict[str, Any]:
    """Memory requested (and limited to) the study's managed-server cap plus dbstor's own
    share; one CPU requested and no CPU limit (a throttled client would add latency that
    is not the storage's)."""
    out: dict[str, Any] = {
        "requests": {"cpu": "1", "memory": quantity(plan.memory_request_bytes)},
    }
    if plan.memory_limit_bytes is not None:
        out["limits"] = {"memory": quantity(plan.memory_limit_bytes)}
    return out


def affinity(plan: KubePlan, nodes: tuple[str, ...]) -> dict[str, Any]:
    """Never two of the study's pods on one node (they would share its CPUs and network);
    with --nodes, only on those nodes."""
    out: dict[str, Any] = {
        "podAntiAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": [
                {
                    "labelSelector": {"matchLabels": {"dbstor.io/study": plan.name}},
                    "topologyKey": "kubernetes.io/hostname",
                }
            ]
        }
    }
    if nodes:
        term = {"key": "kubernetes.io/hostname", "operator": "In", "values": list(nodes)}
        out["nodeAffinity"] = {
            "requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [{"matchExpressions": [term]}]
            }
        }
    return out


def all_objects(plan: KubePlan, **options: Any) -> list[dict[str, Any]]:
    return [obj for cls in plan.classes for obj in class_objects(plan, cls, **options)]


def as_yaml_stream(plan: KubePlan, objects: list[dict[str, Any]]) -> str:
    """A multi-document YAML stream (each document JSON, which YAML reads as it is) with a
    comment saying what it is and what each class's pod may do."""
    mode = plan.volume_mode
    head = [
        f"# dbstor {__version__} kube render: study {plan.name}, "
        f"{len(plan.classes)} storage class(es): {', '.join(c.storage_class for c in plan.classes)}",
        f"# volume mode {mode}: "
        + (
            "the pod runs as root in its container to open the raw device, with every "
            "capability dropped and no privilege"
            if mode == "Block"
            else f"the pod runs as uid {UNPRIVILEGED_UID}, no capability, no privilege"
        ),
        "# apply with: kubectl apply -f FILE (or: dbstor kube run, which also follows and collects)",
    ]
    docs = [json.dumps(obj, indent=2) for obj in objects]
    return "\n".join(head) + "\n" + "".join(f"---\n{d}\n" for d in docs)

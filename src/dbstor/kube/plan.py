"""A study made ready for Kubernetes: one study per storage class, as the pod will read it.

The user's study (TOML) names storage classes, either in its targets (`storage_class =
"gold"`) or through --storage-class flags. For each class the pod gets the same study with
one target, the class's volume as the pod sees it: a mounted directory (Filesystem) or a
device (Block, fio only). DSNs never travel in the study: a database's `dsn_env` stays a
name, and the Job fills that variable from a Secret.
"""

from __future__ import annotations

import copy
import math
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import tomli_w

from dbstor.errors import UserError
from dbstor.study.load import study_from_dict
from dbstor.study.model import Study
from dbstor.units import parse_size

VOLUME_MODES = ("Filesystem", "Block")
MOUNT_PATH = "/dbstor/volume"  # the class's volume in the pod (Filesystem)
DEVICE_PATH = "/dev/dbstor-volume"  # the class's volume in the pod (Block)
STUDY_DIR = "/etc/dbstor"  # the ConfigMap, read-only
STUDY_FILE = "study.toml"
RESULTS_PATH = "/dbstor/results"
# What dbstor, fio and a client need beside a managed server's own cap (its memory_limit).
OVERHEAD_BYTES = 512 * 1024**2
GIB = 1024**3
_DNS_NAME = re.compile(r"^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$")


@dataclass(frozen=True)
class ClassStudy:
    """The study one storage class's Job runs."""

    storage_class: str
    label: str  # the target's label in reports (the class name unless the study gave one)
    study: Study  # validated, with the pod's path (for the memory caps and the summary)
    text: str  # the study as TOML, for the ConfigMap
    dsn_envs: tuple[str, ...]  # environment variables the Job fills from the Secret


@dataclass(frozen=True)
class KubePlan:
    """Everything the manifests are made from."""

    name: str  # the study's short name in object names and labels
    title: str  # the study's own name, the comparison document's title
    volume_mode: str
    classes: tuple[ClassStudy, ...]
    volume_bytes: int
    memory_request_bytes: int
    memory_limit_bytes: int | None  # None: a database of the study has no memory cap


def storage_class_name(value: Any) -> str:
    """A storage class name as Kubernetes allows it (a DNS subdomain), or one clear line."""
    if not isinstance(value, str) or not _DNS_NAME.match(value):
        raise UserError(
            f"storage class {str(value)[:80]!r} is not a Kubernetes name: lower-case letters, "
            "digits, '-' and '.', starting and ending with a letter or digit"
        )
    return value


def object_name(*parts: str) -> str:
    """A DNS-1123 label (at most 63 characters) from the parts, for object names."""
    text = "-".join(re.sub(r"[^a-z0-9]+", "-", p.lower()).strip("-") for p in parts if p)
    text = re.sub(r"-+", "-", text).strip("-")
    return text[:63].rstrip("-") or "dbstor"


def read_study(path: Path) -> dict[str, Any]:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise UserError(f"{path}: no such study file; check the path") from None
    except tomllib.TOMLDecodeError as exc:
        raise UserError(f"{path}: not valid TOML ({exc}); fix the syntax") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise UserError(f"{path}: cannot read the study file ({exc})") from None


def class_targets(data: dict[str, Any], flags: list[str]) -> list[tuple[str, str, dict]]:
    """(class, label, facts) per class: from --storage-class when given, else from the
    targets' storage_class keys."""
    targets = data.get("targets") if isinstance(data.get("targets"), list) else []
    if flags:
        names = [storage_class_name(n) for n in flags]
        return [(n, n, {}) for n in dict.fromkeys(names)]
    named = [t for t in targets if isinstance(t, dict) and "storage_class" in t]
    if not named:
        raise UserError(
            "no storage class to test: pass --storage-class NAME (repeatable) or write "
            'storage_class = "NAME" in the study\'s [[targets]]'
        )
    out = []
    for target in named:
        name = storage_class_name(target["storage_class"])
        facts = target.get("facts") if isinstance(target.get("facts"), dict) else {}
        out.append((name, str(target.get("label") or name), facts))
    return out


def plan(
    path: Path, flags: list[str], volume_mode: str, volume_size: str | None, name: str | None
) -> KubePlan:
    """The study file read once and made into one validated study per storage class."""
    data = read_study(path)
    if volume_mode not in VOLUME_MODES:
        raise UserError(f"--volume-mode {volume_mode}: give Filesystem or Block")
    if volume_mode == "Block" and data.get("databases"):
        raise UserError(
            f"{path}: a database keeps its files in a file system: --volume-mode Block runs "
            "fio profiles only; drop --volume-mode or the [[databases]]"
        )
    classes = tuple(
        class_study(data, path, storage_class, label, facts, volume_mode)
        for storage_class, label, facts in class_targets(data, flags)
    )
    labels = [c.label for c in classes]
    if len(set(labels)) != len(labels):
        raise UserError(f"{path}: targets: labels must differ; got {', '.join(labels)}")
    study = classes[0].study
    caps = [d.memory_limit_bytes for d in study.databases]
    largest = max((c for c in caps if c is not None), default=0)  # runs go one at a time
    return KubePlan(
        name=object_name(name or path.stem)[:30].rstrip("-"),
        title=study.name,
        volume_mode=volume_mode,
        classes=classes,
        volume_bytes=volume_bytes(study, volume_size),
        memory_request_bytes=largest + OVERHEAD_BYTES,
        memory_limit_bytes=None if None in caps else largest + OVERHEAD_BYTES,
    )


def class_study(
    data: dict[str, Any], path: Path, storage_class: str, label: str, facts: dict, mode: str
) -> ClassStudy:
    """The study with one target, the class's volume as the pod sees it."""
    pod = copy.deepcopy(data)
    where = DEVICE_PATH if mode == "Block" else MOUNT_PATH
    own = {**facts, "storage_class": storage_class, "volume_mode": mode}
    pod["targets"] = [{"label": label, "paths": [where], "facts": own}]
    pod.pop("cluster", None)  # one pod measures one class; Ray is not in the picture
    study_table = pod.setdefault("study", {})
    study_table.pop("baseline", None)  # the comparison's baseline is the first class
    envs = []
    checked = copy.deepcopy(pod)
    for index, database in enumerate(checked.get("databases") or []):
        env = database.pop("dsn_env", None) if isinstance(database, dict) else None
        if env is not None:
            envs.append(str(env))
            database["dsn"] = f"{path.name}:databases[{index}]"  # checked as a name only
    study = study_from_dict(checked, source=str(path), base_dir=path.resolve().parent)
    for env in envs:
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", env):
            raise UserError(f"{path}: databases: dsn_env {env[:40]!r} is not a variable name")
    return ClassStudy(
        storage_class=storage_class,
        label=label,
        study=study,
        text=tomli_w.dumps(pod),
        dsn_envs=tuple(dict.fromkeys(envs)),
    )


def volume_bytes(study: Study, given: str | None) -> int:
    """The PVC's size: --volume-size, else the study's test-file size with a quarter more for
    the file system, rounded up to GiB; a database study needs --volume-size. 50Gi as
    Kubernetes writes it is 50GiB."""
    if given:
        try:
            return parse_size(given + "B" if re.search(r"[KMGT]i$", given) else given)
        except ValueError as exc:
            raise UserError(f"--volume-size {given}: {exc}") from None
    if study.databases:
        raise UserError(
            "--volume-size: a database study's volume holds the database, which dbstor "
            "cannot size from the study: give --volume-size, e.g. 50Gi"
        )
    return max(1, math.ceil(study.file_size * 1.25 / GIB)) * GIB

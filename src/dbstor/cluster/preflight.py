"""Checks a host runs on itself before anything starts: tools, target path, free space.

Each check returns one line naming the problem and the fix; the coordinator prefixes the
host's name and stops before any host starts work.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from dbstor import __version__


def version_problem(name: str, remote_version: str | None) -> str | None:
    """A host must run the coordinator's dbstor version."""
    if remote_version is None:
        return (
            f"host {name} has no dbstor for Ray's Python there: "
            f"pip install 'dbstor[cluster]=={__version__}' on {name}, then restart Ray there"
        )
    if remote_version != __version__:
        return (
            f"host {name} runs dbstor {remote_version}, this host {__version__}: "
            f"install dbstor {__version__} on {name} (pip install 'dbstor[cluster]=={__version__}')"
        )
    return None


def fio_problem() -> str | None:
    if shutil.which("fio") is None:
        return "fio is not installed: install it there (apt-get install fio / dnf install fio)"
    return None


def engine_problem(engine: str) -> str | None:
    from dbstor.engines.registry import all_engines

    for name, _, _, availability in all_engines():
        if name == engine:
            if availability.usable:
                return None
            return f"engine {engine} is not usable there: {availability.reason}"
    return f"engine {engine} is unknown there"


def target_problem(target: str, min_free_bytes: int) -> str | None:
    """The target must exist, be a writable directory and have room for the test files."""
    path = Path(target)
    if path.is_block_device():
        return None  # the io run's own checks decide whether a device may be used
    if not path.exists():
        return f"target {target} does not exist there: create it or mount the storage there"
    if not path.is_dir():
        return f"target {target} is not a directory there: give a directory on the storage"
    try:
        with tempfile.NamedTemporaryFile(dir=path, prefix=".dbstor-preflight-"):
            pass
    except OSError as exc:
        return f"target {target} is not writable there ({exc.strerror}): fix its permissions"
    free = shutil.disk_usage(path).free
    if free < min_free_bytes:
        return (
            f"target {target} has {free / 2**30:.1f} GiB free there, the run needs "
            f"{min_free_bytes / 2**30:.1f} GiB: free space or choose a smaller size"
        )
    return None


def run_checks(spec: Mapping[str, Any]) -> list[str]:
    """Every problem on this host for a run described by spec (plain dict):
    {"fio": bool, "engine": name or None, "target": path or None, "min_free_bytes": int}."""
    problems = []
    if spec.get("fio"):
        problems.append(fio_problem())
    if spec.get("engine"):
        problems.append(engine_problem(str(spec["engine"])))
    if spec.get("target"):
        problems.append(target_problem(str(spec["target"]), int(spec.get("min_free_bytes", 0))))
    return [p for p in problems if p]


def host_facts_brief() -> dict[str, Any]:
    """What `dbstor hosts` shows about a host."""
    from dbstor.drivers.fio_runner import fio_version
    from dbstor.engines.registry import all_engines
    from dbstor.host import host_facts

    facts = host_facts()
    fio = None
    if shutil.which("fio"):
        fio = fio_version() or "fio"
    usable = [name for name, _, _, availability in all_engines() if availability.usable]
    return {
        "hostname": facts.get("hostname"),
        "cpus": facts.get("cpus"),
        "memory_bytes": facts.get("memory_bytes"),
        "dbstor": __version__,
        "fio": fio,
        "engines": usable,
        "pid": os.getpid(),
    }

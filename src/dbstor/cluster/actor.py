"""The host agent as a Ray actor, pinned to its node; secrets handed over as Ray objects.

Imported only on --cluster (it imports Ray). The actor is owned by the coordinator's driver
and is not detached: Ray ends it when the driver dies; the lease and the guard (agent.py,
guard.py) stop its load and remove its files even when Ray cannot reach it in time.

Secrets (a DSN's password) never travel in a task's arguments, which Ray may record: the
coordinator puts the value in Ray's object store (`seal`) and the setup carries only the
object reference, wrapped in a list so that Ray does not resolve it into the arguments; the
agent reads it on its host (`unseal`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import ray
from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

from dbstor import __version__
from dbstor.cluster.agent import HostAgent

SECRETS_KEY = "sealed_secrets"


def seal(values: Mapping[str, str]) -> dict[str, list[Any]]:
    """{name: secret} -> {name: [object ref]} to put under setup[SECRETS_KEY]."""
    return {name: [ray.put(value)] for name, value in values.items()}


def unseal(setup: Mapping[str, Any]) -> dict[str, Any]:
    """The setup with its sealed secrets read back into setup['secrets'] (on the host)."""
    sealed = setup.get(SECRETS_KEY) or {}
    opened = dict(setup)
    opened.pop(SECRETS_KEY, None)
    if sealed:
        opened["secrets"] = {name: ray.get(refs[0]) for name, refs in sealed.items()}
    return opened


@ray.remote(num_cpus=0, max_restarts=0, max_task_retries=0, max_concurrency=8)
class HostActor(HostAgent):
    """HostAgent on one node; prepare() opens the sealed secrets there."""

    def prepare(self, kind: str, safety: Mapping[str, Any], setup: Mapping[str, Any]) -> dict:
        opened = unseal(setup)
        secrets = opened.get("secrets") or {}
        if "dsn" in secrets:  # a sealed DSN goes back where the worker reads it, on this host
            opened["dsn"] = secrets["dsn"]
        return super().prepare(kind, safety, opened)


def pinned(node_id: str) -> NodeAffinitySchedulingStrategy:
    """Run on exactly this node, and fail rather than move if it is gone."""
    return NodeAffinitySchedulingStrategy(node_id=node_id, soft=False)


def place_agent(name: str, node_id: str, lease_s: float, nice: int, coordinator: str = "") -> Any:
    """The host's agent, pinned to its node; its load runs at `nice` where allowed; its
    locks name `coordinator` (the run: pid, host, start)."""
    strategy = pinned(node_id)
    return HostActor.options(scheduling_strategy=strategy).remote(
        name, lease_s, nice=nice, coordinator=coordinator
    )


def version_probe(node_id: str) -> Any:
    """A task on the node that reports its dbstor version (None without dbstor).

    Defined inside a function so that Ray ships its code by value: it runs even where
    dbstor cannot be imported.
    """

    def probe() -> str | None:
        try:
            import dbstor  # noqa: F401
        except ImportError:
            return None
        try:
            from dbstor import __version__ as found  # an old dbstor may not say
        except ImportError:
            return "unknown"
        return str(found)

    task = ray.remote(num_cpus=0, max_retries=0)(probe)
    return task.options(scheduling_strategy=pinned(node_id)).remote()


def coordinator_version() -> str:
    return __version__

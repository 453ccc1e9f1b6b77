"""Which Ray nodes are dbstor hosts, by name, and which of them a run asked for.

Pure functions over the node records `ray.nodes()` returns, so they test without Ray.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from dbstor.cluster import HOST_RESOURCE_PREFIX
from dbstor.errors import UserError

NAMING_HINT = (
    "name each host when starting Ray on it: ray start ... --resources "
    f"'{{\"{HOST_RESOURCE_PREFIX}NAME\": 1}}'"
)


@dataclass(frozen=True)
class HostNode:
    name: str
    node_id: str
    address: str  # the node's IP as Ray knows it
    cpus: float  # Ray's CPU resource on that node
    memory_bytes: float
    named_by: str  # "resource" or "hostname"


def host_names_of(node: Mapping[str, Any]) -> list[str]:
    """The dbstor names a node carries as custom resources (normally one)."""
    resources = node.get("Resources") or {}
    return sorted(
        key[len(HOST_RESOURCE_PREFIX) :]
        for key in resources
        if key.startswith(HOST_RESOURCE_PREFIX) and key[len(HOST_RESOURCE_PREFIX) :]
    )


def discover(nodes: Iterable[Mapping[str, Any]]) -> list[HostNode]:
    """Every live node as a named host: by its dbstor-host resource, else by its hostname.

    Two live nodes under one name cannot be told apart: that is one clear error.
    """
    hosts: dict[str, HostNode] = {}
    for node in nodes:
        if not node.get("Alive"):
            continue
        names = host_names_of(node)
        if len(names) > 1:
            raise UserError(
                f"the Ray node at {node.get('NodeManagerAddress')} carries several host names "
                f"({', '.join(names)}): give each node one {HOST_RESOURCE_PREFIX}NAME resource"
            )
        named_by = "resource" if names else "hostname"
        name = names[0] if names else str(node.get("NodeManagerHostname") or "")
        if not name:
            continue
        resources = node.get("Resources") or {}
        host = HostNode(
            name=name,
            node_id=str(node["NodeID"]),
            address=str(node.get("NodeManagerAddress", "")),
            cpus=float(resources.get("CPU", 0.0)),
            memory_bytes=float(resources.get("memory", 0.0)),
            named_by=named_by,
        )
        if name in hosts:
            raise UserError(
                f"two Ray nodes are both named host {name} ({hosts[name].address} and "
                f"{host.address}): {NAMING_HINT} with a different NAME on each"
            )
        hosts[name] = host
    return sorted(hosts.values(), key=lambda h: h.name)


def parse_host_list(text: str, flag: str = "--hosts") -> list[str]:
    """'h1,h2' -> ['h1', 'h2']; an empty name or a host named twice is an error."""
    names = [part.strip() for part in text.split(",")]
    if not names or any(not name for name in names):
        raise UserError(f"{flag} {text!r} has an empty name: give names like db1,db2")
    seen: set[str] = set()
    for name in names:
        if name in seen:
            raise UserError(f"host {name} is named twice in {flag}: name each host once")
        seen.add(name)
    return names


def select(hosts: Sequence[HostNode], names: Sequence[str]) -> list[HostNode]:
    """The named hosts, in the order given; an unknown name is one clear error."""
    by_name = {host.name: host for host in hosts}
    chosen = []
    for name in names:
        if name not in by_name:
            known = ", ".join(sorted(by_name)) or "none"
            raise UserError(
                f"host {name} is not in the Ray cluster (hosts seen: {known}): "
                f"start Ray on it, or {NAMING_HINT}"
            )
        chosen.append(by_name[name])
    return chosen

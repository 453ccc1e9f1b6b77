"""The paths between this host and a target's storage, read from /sys without privileges:
the Fibre Channel ports (/sys/class/fc_host: speed, state, WWPN), the iSCSI sessions
(/sys/class/iscsi_session, iscsi_connection: target, state, portal), the multipath maps
(dm devices whose uuid starts with mpath-, and the paths under them) and the network
links (/sys/class/net/<nic>/speed), with the link speed a target's I/O can use when the
path is known: the FC ports its disks hang on, or the one network link an iSCSI session
can take. A point's MB/s is then stated as a share of it (TR-3476: "both at about 78% of
the available bandwidth").

Every fact that cannot be read is left out; a speed is never guessed: with several
network links and no way to tell which one carries a session, there is no link speed,
and the reason says so."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

# Fibre Channel's nominal data rate per direction: 1GFC 100 MB/s, 2GFC 200, 4GFC 400,
# 8GFC 800, 16GFC 1,600, 32GFC 3,200 (FC-PI: the "Gbit" names are 100 MB/s steps)
_FC_MB_PER_GBIT = 100.0
_HOST = re.compile(r"^host(\d+)$")
_SESSION = re.compile(r"^session(\d+)$")


def _read(path: Path) -> str | None:
    try:
        text = path.read_text(encoding="utf-8", errors="replace").strip()
    except OSError:
        return None
    return text or None


def fc_speed_mbps(speed: str | None) -> float | None:
    """'8 Gbit' -> 800.0 MB/s; 'unknown' or anything else -> None."""
    found = re.match(r"^\s*(\d+(?:\.\d+)?)\s*Gbit", speed or "")
    return float(found.group(1)) * _FC_MB_PER_GBIT if found else None


def fc_port(host: str, sysfs: Path) -> dict[str, Any] | None:
    """One FC port's facts (`host` as 'host3'), None when it is not an FC host."""
    base = sysfs / "class" / "fc_host" / host
    if not base.is_dir():
        return None
    speed = _read(base / "speed")
    facts = {
        "host": host,
        "port_name": _read(base / "port_name"),
        "port_state": _read(base / "port_state"),
        "speed": speed,
        "speed_mbps": fc_speed_mbps(speed),
        "supported_speeds": _read(base / "supported_speeds"),
    }
    return {k: v for k, v in facts.items() if v is not None}


def iscsi_session(session: str, sysfs: Path) -> dict[str, Any] | None:
    """One iSCSI session's facts (`session` as 'session1') and its connections' portals."""
    base = sysfs / "class" / "iscsi_session" / session
    if not base.is_dir():
        return None
    number = session.removeprefix("session")
    portals = []
    connections = sysfs / "class" / "iscsi_connection"
    if connections.is_dir():
        for name in sorted(os.listdir(connections)):
            if name.startswith(f"connection{number}:"):
                conn = connections / name
                address, port = _read(conn / "persistent_address"), _read(conn / "persistent_port")
                if address:
                    portals.append(f"{address}:{port}" if port else address)
    facts = {
        "session": session,
        "target": _read(base / "targetname"),
        "state": _read(base / "state"),
        "portals": portals or None,
    }
    return {k: v for k, v in facts.items() if v is not None}


def network_links(sysfs: Path) -> list[dict[str, Any]]:
    """Each physical network interface (one with a device) and its speed in Mb/s; a link
    that is down or reports -1 has no speed."""
    net = sysfs / "class" / "net"
    if not net.is_dir():
        return []
    links = []
    for name in sorted(os.listdir(net)):
        if not (net / name / "device").exists():
            continue  # lo, bridges, veth: not a path to storage
        state = _read(net / name / "operstate")
        speed = _read(net / name / "speed") if state == "up" else None
        mbits = int(speed) if speed and speed.lstrip("-").isdigit() and int(speed) > 0 else None
        links.append(
            {k: v for k, v in {"nic": name, "state": state, "speed_mbit": mbits}.items() if v}
        )
    return links


def _under(device: str, sysfs: Path) -> tuple[list[str], list[str]]:
    """The SCSI hosts and iSCSI sessions a whole disk's device path passes through."""
    real = (sysfs / "block" / device / "device").resolve()
    parts = real.parts if (sysfs / "block" / device / "device").exists() else ()
    hosts = [p for p in parts if _HOST.match(p)]
    sessions = [p for p in parts if _SESSION.match(p)]
    return hosts, sessions


def path_facts(devices: list[str], sysfs: str | os.PathLike[str] = "/sys") -> dict[str, Any]:
    """The paths under a target's devices (diskstats names, top device first, then the
    whole disks beneath it, as devices_for_path gives them).

    Returns the FC ports, iSCSI sessions, multipath maps and network links found, and
    `link_mbps` (the bandwidth a point can use: the sum of the FC ports' speeds, or the
    one up network link's for iSCSI) with `link` naming it, or `link_reason` saying why
    there is none. Empty parts are left out."""
    root = Path(sysfs)
    ports: dict[str, dict[str, Any]] = {}
    sessions: dict[str, dict[str, Any]] = {}
    multipath: dict[str, list[str]] = {}
    for device in devices:
        if ":" in device:
            continue  # a cluster host's own device: its facts are that host's
        base = root / "block" / device
        uuid = _read(base / "dm" / "uuid") or ""
        if uuid.startswith("mpath-") and (base / "slaves").is_dir():
            name = _read(base / "dm" / "name") or device
            multipath[name] = sorted(os.listdir(base / "slaves"))
        hosts, found = _under(device, root)
        for host in hosts:
            port = fc_port(host, root)
            if port is not None:
                ports[host] = port
        for session in found:
            facts = iscsi_session(session, root)
            if facts is not None:
                sessions[session] = facts
    links = network_links(root)
    result: dict[str, Any] = {}
    if ports:
        result["fc_ports"] = list(ports.values())
    if sessions:
        result["iscsi_sessions"] = list(sessions.values())
    if multipath:
        result["multipath"] = multipath
    if links:
        result["network_links"] = links
    result.update(_link(list(ports.values()), bool(sessions), links))
    return result


def _link(ports: list[dict[str, Any]], iscsi: bool, links: list[dict[str, Any]]) -> dict[str, Any]:
    """The bandwidth of the path, or why it is not known."""
    if ports:
        online = [p for p in ports if p.get("port_state") == "Online" and p.get("speed_mbps")]
        if not online:
            return {"link_reason": "no FC port under the target is Online with a known speed"}
        speed = sum(p["speed_mbps"] for p in online)
        names = ", ".join(f"{p['host']} {p['speed']}" for p in online)
        return {"link_mbps": speed, "link": f"FC {names}"}
    if iscsi:
        up = [link for link in links if link.get("speed_mbit")]
        if len(up) != 1:
            return {
                "link_reason": f"iSCSI with {len(up)} network links up: which one carries "
                "the sessions is not known"
            }
        return {
            "link_mbps": up[0]["speed_mbit"] / 8.0,
            "link": f"iSCSI over {up[0]['nic']} at {up[0]['speed_mbit']:,} Mb/s",
        }
    return {}

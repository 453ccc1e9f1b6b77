"""A real Ray cluster of named hosts on this one machine, on loopback only, for the cluster tests.

Ray replaces a --node-ip-address of 127.0.0.1 by the machine's interface address, so the
cluster runs in a network namespace of its own that has only a loopback interface: there
every Ray process binds and connects on 127.0.0.1 and cannot reach anything else. The
namespace also scopes the clean-up: every process in it is the cluster's, and nothing else
on the machine (another Ray, say) is touched. Needs root (unshare --net, nsenter).

    cluster = LoopbackCluster(tmp_dir, ["h1", "h2", "h3"]); cluster.start()
    cluster.run([python, "-m", "dbstor", "hosts", "--cluster", cluster.address])
    cluster.stop()
"""

from __future__ import annotations

import contextlib
import ipaddress
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

BIN = Path(sys.executable).parent
PORT = 6379  # the namespace is ours: Ray's usual port cannot clash with anyone's
WAIT_NODES_S = 120.0


def can_run() -> str | None:
    """Why the harness cannot run here, or None."""
    if os.geteuid() != 0:
        return "the loopback Ray cluster needs root (network namespace)"
    for tool in ("unshare", "nsenter", "ip"):
        if shutil.which(tool) is None:
            return f"{tool} is not installed"
    if not (BIN / "ray").exists():
        return "ray is not installed (pip install 'dbstor[cluster]')"
    if shutil.which("fio") is None:
        return "fio is not installed"
    return None


class LoopbackCluster:
    def __init__(self, hosts: Sequence[str], node_env: dict[str, dict[str, str]] | None = None):
        self.hosts = list(hosts)
        self.node_env = node_env or {}
        self.temp = Path(tempfile.mkdtemp(prefix="dbsr", dir="/tmp"))  # short: socket paths
        self.address = f"127.0.0.1:{PORT}"
        self.holder: subprocess.Popen | None = None
        self.ns_inode = ""

    # -- the namespace ----------------------------------------------------------------------
    def start(self) -> None:
        self.holder = subprocess.Popen(
            ["unshare", "--net", "sh", "-c", "ip link set lo up && exec sleep 100000"],
            start_new_session=True,
        )
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            with contextlib.suppress(OSError):
                inode = os.readlink(f"/proc/{self.holder.pid}/ns/net")
                if inode != os.readlink("/proc/self/ns/net"):
                    self.ns_inode = inode
                    break
            time.sleep(0.05)
        assert self.ns_inode, "could not make a network namespace"
        time.sleep(0.3)  # lo up
        head, *others = self.hosts
        self._ray_start(head, ["--head", f"--port={PORT}", "--include-dashboard=false"])
        for name in others:  # one at a time: nodes joining together time out on two cores
            self._ray_start(name, [f"--address={self.address}"])
        self.wait_nodes(len(self.hosts))

    def env(self, extra: dict[str, str] | None = None) -> dict[str, str]:
        env = dict(os.environ)
        env["PATH"] = f"{BIN}:{env.get('PATH', '')}"
        env["RAY_USAGE_STATS_ENABLED"] = "0"
        env["COLUMNS"] = "200"
        env.update(extra or {})
        return env

    def _in_ns(self, args: Sequence[str]) -> list[str]:
        assert self.holder is not None
        return ["nsenter", f"--net=/proc/{self.holder.pid}/ns/net", *args]

    def _ray_start(self, name: str, flags: list[str]) -> None:
        args = [
            str(BIN / "ray"),
            "start",
            *flags,
            "--node-ip-address=127.0.0.1",
            "--num-cpus=1",
            f"--resources={json.dumps({f'dbstor-host:{name}': 1})}",
            "--disable-usage-stats",
        ]
        if "--head" in flags:
            args.append(f"--temp-dir={self.temp}")
        log = (self.temp / f"start-{name}.log").open("w")
        proc = subprocess.Popen(
            self._in_ns(args),
            env=self.env(self.node_env.get(name)),
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        assert proc.wait(timeout=120) == 0, (self.temp / f"start-{name}.log").read_text()[-3000:]

    def wait_nodes(self, count: int) -> None:
        code = (
            "import ray,time,sys\n"
            f"ray.init(address='{self.address}', _node_ip_address='127.0.0.1', "
            "logging_level='ERROR', log_to_driver=False)\n"
            f"end=time.time()+{WAIT_NODES_S}\n"
            f"while sum(n['Alive'] for n in ray.nodes())<{count} and time.time()<end: time.sleep(0.5)\n"
            f"sys.exit(0 if sum(n['Alive'] for n in ray.nodes())>={count} else 1)\n"
        )
        assert self.run([sys.executable, "-c", code], timeout=WAIT_NODES_S + 60).returncode == 0

    # -- running things in the namespace ---------------------------------------------------------
    def run(self, args: Sequence[str], timeout: float = 300, **kw) -> subprocess.CompletedProcess:
        return subprocess.run(
            self._in_ns(args),
            env=self.env(kw.pop("env", None)),
            capture_output=True,
            text=True,
            timeout=timeout,
            **kw,
        )

    def popen(self, args: Sequence[str], **kw) -> subprocess.Popen:
        return subprocess.Popen(
            self._in_ns(args),
            env=self.env(kw.pop("env", None)),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            **kw,
        )

    def dbstor(self, *args: str, timeout: float = 300) -> subprocess.CompletedProcess:
        return self.run([sys.executable, "-m", "dbstor", *args], timeout=timeout)

    def python(self, code: str, timeout: float = 300) -> subprocess.CompletedProcess:
        return self.run([sys.executable, "-c", code], timeout=timeout)

    # -- what is in the namespace ---------------------------------------------------------------
    def pids(self) -> list[int]:
        """Every process in the cluster's network namespace (all of them are the cluster's)."""
        found = []
        for entry in os.listdir("/proc"):
            if entry.isdigit():
                with contextlib.suppress(OSError):
                    if os.readlink(f"/proc/{entry}/ns/net") == self.ns_inode:
                        found.append(int(entry))
        return found

    def cmdline(self, pid: int) -> str:
        with contextlib.suppress(OSError):
            return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
        return ""

    def find(self, needle: str) -> list[int]:
        return [pid for pid in self.pids() if needle in self.cmdline(pid)]

    def raylet_of(self, name: str) -> int:
        pids = [p for p in self.find("raylet/raylet") if f"dbstor-host:{name}," in self.cmdline(p)]
        assert len(pids) == 1, pids
        return pids[0]

    def sockets(self) -> list[tuple[int, str, str, str]]:
        """(pid, local address, remote address, state) of every TCP socket of every process."""
        holder = self.holder.pid if self.holder else 0
        table = _tcp_table(f"/proc/{holder}/net/tcp") | _tcp_table(f"/proc/{holder}/net/tcp6")
        rows = []
        for pid in self.pids():
            with contextlib.suppress(OSError):
                for fd in os.listdir(f"/proc/{pid}/fd"):
                    with contextlib.suppress(OSError):
                        link = os.readlink(f"/proc/{pid}/fd/{fd}")
                        if link.startswith("socket:[") and link[8:-1] in table:
                            rows.append((pid, *table[link[8:-1]]))
        return rows

    # -- the end ------------------------------------------------------------------------------------
    def stop(self) -> None:
        """Kill every process in the namespace, then the namespace, then the temp dir."""
        for sig in (signal.SIGTERM, signal.SIGKILL):
            for pid in self.pids():
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, sig)
            deadline = time.monotonic() + 5
            while self.pids() and time.monotonic() < deadline:
                time.sleep(0.1)
        if self.holder is not None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.holder.wait(timeout=5)
        shutil.rmtree(self.temp, ignore_errors=True)

    def session_logs(self) -> list[Path]:
        return [p for p in self.temp.rglob("*") if p.is_file() and not p.is_socket()]


STATES = {"01": "ESTABLISHED", "0A": "LISTEN", "06": "TIME_WAIT", "08": "CLOSE_WAIT"}


def _address(text: str) -> str:
    host, port = text.split(":")
    raw = bytes.fromhex(host)
    if len(raw) == 4:
        ip = ipaddress.IPv4Address(raw[::-1])
    else:
        words = b"".join(raw[i : i + 4][::-1] for i in range(0, 16, 4))
        ip = ipaddress.IPv6Address(words)
    return f"{ip}:{int(port, 16)}"


def _tcp_table(path: str) -> dict[str, tuple[str, str, str]]:
    table = {}
    with contextlib.suppress(OSError):
        for line in Path(path).read_text().splitlines()[1:]:
            parts = line.split()
            table[parts[9]] = (
                _address(parts[1]),
                _address(parts[2]),
                STATES.get(parts[3], parts[3]),
            )
    return table


def is_loopback(address: str) -> bool:
    """127.0.0.0/8 (also as an IPv4-mapped IPv6 address); ::1 too."""
    ip = ipaddress.ip_address(address.rsplit(":", 1)[0])
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return ip.is_loopback


# from 198.18.0.0/15, set aside for network tests (RFC 2544), as in netns.py; private to the
# two namespaces below: no other network sees it
HEAD_IP, CUT_IP = "198.18.231.1", "198.18.231.2"
LINK_HEAD, LINK_CUT = "dbsa", "dbsb"


def can_cut() -> str | None:
    """Why a host cannot be cut off here (besides can_run), or None."""
    return None if shutil.which("nft") else "nft is not installed (apt-get install nftables)"


class LinkedCluster(LoopbackCluster):
    """Like LoopbackCluster, but the last host is a network namespace of its own, joined to
    the others' by a veth pair with two private addresses, so the test can cut its link.

    The head and every other host run in the first namespace on HEAD_IP; the last host runs
    in its own namespace on CUT_IP. cut() drops every packet that crosses the link, in both
    directions, with nft on the head's end (silently: no reset, no unreachable, as when a
    cable or a switch port goes); mend() lets them through again. Nothing else is reachable
    from either namespace (no default route, no other interface)."""

    def __init__(self, hosts: Sequence[str], node_env: dict[str, dict[str, str]] | None = None):
        super().__init__(hosts, node_env)
        self.address = f"{HEAD_IP}:{PORT}"
        self.cut_host = self.hosts[-1]
        self.cut_holder: subprocess.Popen | None = None
        self.cut_inode = ""

    def start(self) -> None:
        self.holder = _namespace_holder()
        self.ns_inode = _wait_inode(self.holder)
        self.cut_holder = _namespace_holder()
        self.cut_inode = _wait_inode(self.cut_holder)
        time.sleep(0.3)
        cut_pid = str(self.cut_holder.pid)
        for args in (
            ["ip", "link", "add", LINK_HEAD, "type", "veth", "peer", "name", LINK_CUT],
            ["ip", "link", "set", LINK_CUT, "netns", cut_pid],
            ["sysctl", "-qw", f"net.ipv6.conf.{LINK_HEAD}.disable_ipv6=1"],  # no fe80:: either
            ["ip", "addr", "add", f"{HEAD_IP}/30", "dev", LINK_HEAD],
            ["ip", "link", "set", LINK_HEAD, "up"],
        ):
            subprocess.run(self._in_ns(args), check=True)
        for args in (
            ["sysctl", "-qw", f"net.ipv6.conf.{LINK_CUT}.disable_ipv6=1"],
            ["ip", "addr", "add", f"{CUT_IP}/30", "dev", LINK_CUT],
            ["ip", "link", "set", LINK_CUT, "up"],
        ):
            subprocess.run(self._in_cut_ns(args), check=True)
        *heads, last = self.hosts
        head, *others = heads
        self._ray_start_at(head, ["--head", f"--port={PORT}", "--include-dashboard=false"])
        for name in others:
            self._ray_start_at(name, [f"--address={self.address}"])
        self._ray_start_at(last, [f"--address={self.address}"])
        self.wait_nodes(len(self.hosts))

    def _in_cut_ns(self, args: Sequence[str]) -> list[str]:
        assert self.cut_holder is not None
        return ["nsenter", f"--net=/proc/{self.cut_holder.pid}/ns/net", *args]

    def _ray_start_at(self, name: str, flags: list[str]) -> None:
        ip = CUT_IP if name == self.cut_host else HEAD_IP
        args = [
            str(BIN / "ray"),
            "start",
            *flags,
            f"--node-ip-address={ip}",
            "--num-cpus=1",
            f"--resources={json.dumps({f'dbstor-host:{name}': 1})}",
            "--disable-usage-stats",
        ]
        if "--head" in flags:
            args.append(f"--temp-dir={self.temp}")
        enter = self._in_cut_ns if name == self.cut_host else self._in_ns
        log = (self.temp / f"start-{name}.log").open("w")
        proc = subprocess.Popen(
            enter(args), env=self.env(self.node_env.get(name)), stdout=log, stderr=subprocess.STDOUT
        )
        assert proc.wait(timeout=120) == 0, (self.temp / f"start-{name}.log").read_text()[-3000:]

    def wait_nodes(self, count: int) -> None:
        code = (
            "import ray,time,sys\n"
            f"ray.init(address='{self.address}', _node_ip_address='{HEAD_IP}', "
            "logging_level='ERROR', log_to_driver=False)\n"
            f"end=time.time()+{WAIT_NODES_S}\n"
            f"while sum(n['Alive'] for n in ray.nodes())<{count} and time.time()<end: time.sleep(0.5)\n"
            f"sys.exit(0 if sum(n['Alive'] for n in ray.nodes())>={count} else 1)\n"
        )
        assert self.run([sys.executable, "-c", code], timeout=WAIT_NODES_S + 60).returncode == 0

    # -- the link ---------------------------------------------------------------------------------
    def cut(self) -> None:
        """Drop every packet to and from the cut host, silently, both ways."""
        rules = (
            "table inet dbstor_cut {\n"
            "  chain inbound { type filter hook input priority -300; policy accept;\n"
            f'    iifname "{LINK_HEAD}" drop\n  }}\n'
            "  chain outbound { type filter hook output priority -300; policy accept;\n"
            f'    oifname "{LINK_HEAD}" drop\n  }}\n'
            "}\n"
        )
        subprocess.run(self._in_ns(["nft", "-f", "-"]), input=rules, text=True, check=True)

    def mend(self) -> None:
        subprocess.run(self._in_ns(["nft", "delete", "table", "inet", "dbstor_cut"]), check=True)

    # -- what is in the namespaces ----------------------------------------------------------------
    def pids(self) -> list[int]:
        """Every process in either namespace."""
        found = []
        for entry in os.listdir("/proc"):
            if entry.isdigit():
                with contextlib.suppress(OSError):
                    if os.readlink(f"/proc/{entry}/ns/net") in (self.ns_inode, self.cut_inode):
                        found.append(int(entry))
        return found

    def addresses(self) -> list[str]:
        """Every address of every interface in either namespace."""
        found = []
        for enter in (self._in_ns, self._in_cut_ns):
            shown = subprocess.run(enter(["ip", "-o", "addr"]), capture_output=True, text=True)
            found += [line.split()[3].split("/")[0] for line in shown.stdout.splitlines()]
        return found

    def pids_of_cut_host(self) -> list[int]:
        found = []
        for pid in self.pids():
            with contextlib.suppress(OSError):
                if os.readlink(f"/proc/{pid}/ns/net") == self.cut_inode:
                    found.append(pid)
        return found

    def sockets(self) -> list[tuple[int, str, str, str]]:
        rows = []
        for holder, inode in ((self.holder, self.ns_inode), (self.cut_holder, self.cut_inode)):
            pid = holder.pid if holder else 0
            table = _tcp_table(f"/proc/{pid}/net/tcp") | _tcp_table(f"/proc/{pid}/net/tcp6")
            for member in self.pids():
                with contextlib.suppress(OSError):
                    if os.readlink(f"/proc/{member}/ns/net") != inode:
                        continue
                    for fd in os.listdir(f"/proc/{member}/fd"):
                        with contextlib.suppress(OSError):
                            link = os.readlink(f"/proc/{member}/fd/{fd}")
                            if link.startswith("socket:[") and link[8:-1] in table:
                                rows.append((member, *table[link[8:-1]]))
        return rows

    def stop(self) -> None:
        super().stop()  # kills every process of both namespaces (pids() covers them)
        if self.cut_holder is not None:
            with contextlib.suppress(ProcessLookupError):
                self.cut_holder.kill()
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.cut_holder.wait(timeout=5)


def _namespace_holder() -> subprocess.Popen:
    return subprocess.Popen(
        ["unshare", "--net", "sh", "-c", "ip link set lo up && exec sleep 100000"],
        start_new_session=True,
    )


def _wait_inode(holder: subprocess.Popen) -> str:
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError):
            inode = os.readlink(f"/proc/{holder.pid}/ns/net")
            if inode != os.readlink("/proc/self/ns/net"):
                return inode
        time.sleep(0.05)
    raise AssertionError("could not make a network namespace")


def ip_of(address: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address:
    """The IP of 'IP:PORT' (an IPv4-mapped IPv6 address as the IPv4 address)."""
    ip = ipaddress.ip_address(address.rsplit(":", 1)[0])
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    return ip


def in_link(address: str) -> bool:
    """On loopback or one of the link's two private addresses (also IPv4-mapped)."""
    ip = ip_of(address)
    return ip.is_loopback or str(ip) in (HEAD_IP, CUT_IP)


def is_wildcard(address: str) -> bool:
    """0.0.0.0 or :: (a socket listening on every address of its namespace)."""
    return ipaddress.ip_address(address.rsplit(":", 1)[0]).is_unspecified

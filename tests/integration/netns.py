"""A private network link between two network namespaces, for tests of a cut network.

    with netns.private_link() as link:
        # link.server_ns holds link.server_addr, link.client_ns holds link.client_addr
        subprocess.run([*link.run_in(link.client_ns), "ping", "-c1", link.server_addr])
        link.cut()  # every IP packet in and out of the server namespace is dropped

Both ends of a veth pair live in namespaces the test makes, so nothing here touches the
machine's own interfaces, routes or firewall, and nothing in them is reachable from
outside the machine (or from the machine's own namespace). The addresses are from
198.18.0.0/15, the range set aside for network tests (RFC 2544).

`cut()` adds an nftables table in the server's namespace whose input and output chains
drop every IP packet: nothing is answered, neither a TCP reset nor an ICMP error, as when a
cable is pulled or a route vanishes somewhere on the path. ARP is not IP, so the client's
kernel still resolves the server's address and reports no error of its own ("no route to
host" would be a clear end that a real cut beyond the first hop does not give).

`private_link` skips the test (pytest.skip, with the reason) when it does not run as root
or `ip netns`, veth or nft is missing; at exit it kills every process still in either
namespace (all started by the test) and deletes both, which removes the veth pair.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass

import pytest

SERVER_ADDR = "198.18.0.2"
CLIENT_ADDR = "198.18.0.1"
PREFIX = 30
CUT_RULES = """table inet dbstor_cut {
  chain input { type filter hook input priority -300; policy drop; }
  chain output { type filter hook output priority -300; policy drop; }
}
"""


def _ip(*args: str) -> None:
    done = subprocess.run(["ip", *args], capture_output=True, text=True, timeout=30, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"ip {' '.join(args)} failed: {done.stderr.strip()}")


@dataclass(frozen=True)
class Link:
    """Two namespaces joined by a veth pair; the server's end can be cut."""

    server_ns: str
    client_ns: str
    server_addr: str = SERVER_ADDR
    client_addr: str = CLIENT_ADDR

    @staticmethod
    def run_in(namespace: str) -> list[str]:
        """The prefix that runs a command inside `namespace`."""
        return ["ip", "netns", "exec", namespace]

    def cut(self) -> None:
        """Drop every IP packet entering or leaving the server's namespace, silently."""
        done = subprocess.run(
            [*self.run_in(self.server_ns), "nft", "-f", "-"],
            input=CUT_RULES,
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
        if done.returncode != 0:
            raise RuntimeError(f"nft failed in {self.server_ns}: {done.stderr.strip()}")

    @staticmethod
    def pids(namespace: str) -> list[int]:
        """The processes running in `namespace` now."""
        done = subprocess.run(
            ["ip", "netns", "pids", namespace], capture_output=True, text=True, timeout=30
        )
        return [int(p) for p in done.stdout.split() if p.isdigit()]


def _skip_unless_possible() -> None:
    if os.geteuid() != 0:
        pytest.skip("a network namespace needs root")
    for tool in ("ip", "nft"):
        if shutil.which(tool) is None:
            pytest.skip(f"{tool} is not installed (apt-get install iproute2 nftables)")


def _kill_all(namespace: str) -> None:
    """SIGKILL every process left in `namespace` and wait until none is."""
    deadline = time.monotonic() + 30
    while (pids := Link.pids(namespace)) and time.monotonic() < deadline:
        for pid in pids:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        time.sleep(0.2)


@contextlib.contextmanager
def private_link() -> Iterator[Link]:
    """Two fresh namespaces joined by a veth pair with addresses up; removed at exit."""
    _skip_unless_possible()
    tag = f"{os.getpid()}"
    link = Link(server_ns=f"dbstor-srv-{tag}", client_ns=f"dbstor-cli-{tag}")
    made: list[str] = []
    try:
        for namespace in (link.server_ns, link.client_ns):
            try:
                _ip("netns", "add", namespace)
            except RuntimeError as exc:
                pytest.skip(f"cannot make a network namespace here: {exc}")
            made.append(namespace)
            _ip("-n", namespace, "link", "set", "lo", "up")
        try:
            _ip(
                "link", "add", "cli0", "netns", link.client_ns, "type", "veth",
                "peer", "name", "srv0", "netns", link.server_ns,
            )  # fmt: skip
        except RuntimeError as exc:
            pytest.skip(f"cannot make a veth pair here: {exc}")
        for namespace, device, addr in (
            (link.server_ns, "srv0", link.server_addr),
            (link.client_ns, "cli0", link.client_addr),
        ):
            _ip("-n", namespace, "addr", "add", f"{addr}/{PREFIX}", "dev", device)
            _ip("-n", namespace, "link", "set", device, "up")
        yield link
    finally:
        for namespace in made:
            _kill_all(namespace)
            with contextlib.suppress(RuntimeError):
                _ip("netns", "del", namespace)

"""A real Kubernetes API server on 127.0.0.1 for tests: Debian's etcd and a kube-apiserver
built from the Go module proxy by scripts/build-kube-apiserver (as controller-runtime's
envtest runs one). No scheduler, controller-manager or kubelet: objects are stored and
checked (schemas, defaults, admission), no pod runs and no PVC binds.

The binary is found at $KUBE_APISERVER, else /var/tmp/dbstor-kube-apiserver/kube-apiserver.
"""

from __future__ import annotations

import os
import shutil
import socket
import ssl
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

DEFAULT_BINARY = Path("/var/tmp/dbstor-kube-apiserver/kube-apiserver")
TOKEN = "dbstor-test-token"


def apiserver_binary() -> Path | None:
    path = Path(os.environ.get("KUBE_APISERVER") or DEFAULT_BINARY)
    return path if path.is_file() and os.access(path, os.X_OK) else None


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@dataclass
class ApiServer:
    url: str
    kubeconfig: Path


def _wait_ready(url: str, deadline_s: float, proc: subprocess.Popen, log: Path) -> None:
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    request = urllib.request.Request(f"{url}/readyz", headers={"Authorization": f"Bearer {TOKEN}"})
    end = time.monotonic() + deadline_s
    while time.monotonic() < end:
        if proc.poll() is not None:
            raise RuntimeError(f"kube-apiserver exited: {log.read_text()[-2000:]}")
        try:
            with urllib.request.urlopen(request, context=context, timeout=2) as answer:
                if answer.status == 200:
                    return
        except OSError:
            pass
        time.sleep(0.5)
    raise RuntimeError(f"kube-apiserver not ready in {deadline_s} s: {log.read_text()[-2000:]}")


@contextmanager
def kube_apiserver(folder: Path, binary: Path) -> Iterator[ApiServer]:
    """etcd and kube-apiserver on free 127.0.0.1 ports, stopped and removed at the end."""
    etcd_client, etcd_peer, secure = _free_port(), _free_port(), _free_port()
    data = folder / "etcd"
    certs = folder / "certs"
    certs.mkdir()
    key = certs / "sa.key"
    subprocess.run(["openssl", "genrsa", "-out", str(key), "2048"], check=True, capture_output=True)
    tokens = folder / "tokens.csv"
    tokens.write_text(f'{TOKEN},dbstor-test,1,"system:masters"\n')
    etcd_log, api_log = folder / "etcd.log", folder / "apiserver.log"
    etcd = subprocess.Popen(
        [
            shutil.which("etcd") or "/usr/bin/etcd",
            f"--data-dir={data}",
            f"--listen-client-urls=http://127.0.0.1:{etcd_client}",
            f"--advertise-client-urls=http://127.0.0.1:{etcd_client}",
            f"--listen-peer-urls=http://127.0.0.1:{etcd_peer}",
            f"--initial-advertise-peer-urls=http://127.0.0.1:{etcd_peer}",
            f"--initial-cluster=default=http://127.0.0.1:{etcd_peer}",
            "--unsafe-no-fsync",
        ],
        stdout=etcd_log.open("w"),
        stderr=subprocess.STDOUT,
    )
    api = None
    try:
        api = subprocess.Popen(
            [
                str(binary),
                f"--etcd-servers=http://127.0.0.1:{etcd_client}",
                "--bind-address=127.0.0.1",
                "--advertise-address=127.0.0.1",
                f"--secure-port={secure}",
                f"--cert-dir={certs}",
                f"--token-auth-file={tokens}",
                "--authorization-mode=AlwaysAllow",
                "--service-cluster-ip-range=10.0.0.0/24",
                "--service-account-issuer=https://127.0.0.1",
                f"--service-account-key-file={key}",
                f"--service-account-signing-key-file={key}",
                "--disable-admission-plugins=ServiceAccount",
                "--allow-privileged=false",
            ],
            stdout=api_log.open("w"),
            stderr=subprocess.STDOUT,
        )
        url = f"https://127.0.0.1:{secure}"
        _wait_ready(url, 90, api, api_log)
        config = folder / "kubeconfig"
        config.write_text(
            "apiVersion: v1\nkind: Config\n"
            f"clusters: [{{name: t, cluster: {{server: '{url}', insecure-skip-tls-verify: true}}}}]\n"
            f"users: [{{name: t, user: {{token: {TOKEN}}}}}]\n"
            "contexts: [{name: t, context: {cluster: t, user: t}}]\ncurrent-context: t\n"
        )
        yield ApiServer(url, config)
    finally:
        for proc in (api, etcd):
            if proc is not None and proc.poll() is None:
                proc.terminate()
                try:
                    proc.wait(10)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()

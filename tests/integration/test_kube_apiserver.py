"""Every manifest dbstor kube render writes, and dbstor kube run itself, against a real
kube-apiserver (scripts/build-kube-apiserver) with Debian's etcd on 127.0.0.1.

What a bare API server can show, shown on it: each object accepted by server-side dry-run
(the server's own validation and defaulting); the pod a Job would make admitted by Pod
Security Admission at `restricted` (Filesystem) or `baseline` and refused at `restricted`
(Block, root in its container); `kube run` on a storage class that does not exist (the
server's 404), a PVC that never binds (no provisioner runs here), an object that exists
(the server's 409), and a failed pod whose status the test writes as a kubelet would.
No scheduler, controller or kubelet runs, so no pod runs and no PVC binds.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from kube_apiserver import apiserver_binary, kube_apiserver

from dbstor.cli import main

IO_STUDY = """
[study]
name = "classes"
duration = "10s"
size = "2GiB"
profiles = ["io-oltp"]
"""

DB_STUDY = """
[study]
name = "pg"
[[databases]]
engine = "postgres"
workload = "orders"
users = [1, 2]
memory_limit = "2GiB"
dsn_env = "PG_DSN"
[[targets]]
storage_class = "gold"
"""


pytestmark = [
    pytest.mark.integration,
    pytest.mark.filterwarnings("ignore:Unverified HTTPS request"),
]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    binary = apiserver_binary()
    if binary is None or shutil.which("etcd") is None:
        pytest.skip("kube-apiserver (scripts/build-kube-apiserver) or etcd (etcd-server) missing")
    with kube_apiserver(tmp_path_factory.mktemp("apiserver"), binary) as running:
        yield running


@pytest.fixture(scope="module")
def api(server):
    from kubernetes import client, config

    configuration = client.Configuration()
    config.load_kube_config(str(server.kubeconfig), client_configuration=configuration)
    base = client.ApiClient(configuration)
    return client.CoreV1Api(base), client.BatchV1Api(base), client.StorageV1Api(base)


@pytest.fixture(autouse=True)
def no_waiting(monkeypatch):
    now = [0.0]

    def sleep(self, seconds: float) -> None:
        now[0] += 60.0

    monkeypatch.setattr("dbstor.kube.session.Clock.now", lambda self: now[0])
    monkeypatch.setattr("dbstor.kube.session.Clock.sleep", sleep)


def rendered(tmp_path: Path, text: str, *flags: str, capsys) -> list[dict]:
    study = tmp_path / "study.toml"
    study.write_text(text)
    assert main(["kube", "render", str(study), *flags]) == 0
    return [json.loads(d) for d in capsys.readouterr().out.split("\n---\n")[1:]]


def namespace(core, name: str, level: str) -> str:
    from kubernetes import client

    labels = {f"pod-security.kubernetes.io/{m}": level for m in ("enforce", "warn")}
    core.create_namespace(
        client.V1Namespace(metadata=client.V1ObjectMeta(name=name, labels=labels))
    )
    return name


CASES = {
    "io-fs": (IO_STUDY, ("--storage-class", "gold", "--storage-class", "silver")),
    "io-block": (IO_STUDY, ("--storage-class", "gold", "--volume-mode", "Block")),
    "db-fs": (DB_STUDY, ("--volume-size", "20Gi")),
}


@pytest.mark.parametrize("case", CASES)
def test_every_manifest_passes_the_servers_dry_run(tmp_path, capsys, api, case) -> None:
    core, batch, _ = api
    text, flags = CASES[case]
    ns = namespace(core, f"dry-{case}", "restricted")
    docs = rendered(tmp_path, text, *flags, "--namespace", ns, capsys=capsys)
    create = {
        "PersistentVolumeClaim": core.create_namespaced_persistent_volume_claim,
        "ConfigMap": core.create_namespaced_config_map,
        "Job": batch.create_namespaced_job,
    }
    for doc in docs:
        answer = create[doc["kind"]](ns, doc, dry_run="All")
        assert answer.metadata.name == doc["metadata"]["name"]
    assert core.list_namespaced_persistent_volume_claim(ns).items == []  # dry run: none made


def pod_of(job: dict, ns: str) -> dict:
    template = job["spec"]["template"]
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "probe", "namespace": ns,
            "labels": template["metadata"]["labels"]}, "spec": template["spec"]}  # fmt: skip


def test_pod_security_admits_filesystem_at_restricted_and_block_only_at_baseline(
    tmp_path, capsys, api
) -> None:
    from kubernetes.client import ApiException

    core, _, _ = api
    restricted = namespace(core, "psa-restricted", "restricted")
    baseline = namespace(core, "psa-baseline", "baseline")
    fs_job = next(d for d in rendered(tmp_path, IO_STUDY, "--storage-class", "gold",
                  capsys=capsys) if d["kind"] == "Job")  # fmt: skip
    block_job = next(d for d in rendered(tmp_path, IO_STUDY, "--storage-class", "gold",
                     "--volume-mode", "Block", capsys=capsys) if d["kind"] == "Job")  # fmt: skip
    core.create_namespaced_pod(restricted, pod_of(fs_job, restricted), dry_run="All")
    core.create_namespaced_pod(baseline, pod_of(block_job, baseline), dry_run="All")
    with pytest.raises(ApiException) as refused:
        core.create_namespaced_pod(restricted, pod_of(block_job, restricted), dry_run="All")
    assert refused.value.status == 403 and "runAsNonRoot" in refused.value.body


def kube(tmp_path: Path, server, action: str, *flags: str) -> int:
    study = tmp_path / "study.toml"
    study.write_text(IO_STUDY)
    return main(["kube", action, str(study), *flags, "--kubeconfig", str(server.kubeconfig),
                 "--out", str(tmp_path / "out"), "--namespace", "runs"])  # fmt: skip


def test_kube_run_on_the_real_server_missing_class_unbound_pvc_existing_objects_failed_pod(
    tmp_path, capsys, server, api
) -> None:
    from kubernetes import client

    core, _, storage = api
    core.create_namespace(client.V1Namespace(metadata=client.V1ObjectMeta(name="runs")))
    storage.create_storage_class(
        client.V1StorageClass(
            metadata=client.V1ObjectMeta(name="gold"),
            provisioner="example.com/none",  # nothing provisions here: the PVC stays Pending
            volume_binding_mode="WaitForFirstConsumer",
        )
    )
    status = kube(tmp_path, server, "run", "--storage-class", "nosuch", "--storage-class", "gold")
    err = capsys.readouterr().err.splitlines()
    assert status == 1
    assert (
        "dbstor: nosuch: storage class nosuch does not exist (kubectl get storageclass lists them)"
        in err
    )
    assert (
        "dbstor: gold: PVC runs/study-gold-volume is still unbound after 300 s (no event says why)"
        in err
    )
    names = {c.metadata.name for c in core.list_namespaced_persistent_volume_claim("runs").items}
    assert names == {"study-gold-volume", "study-gold-results"}  # nothing for nosuch

    status = kube(tmp_path, server, "run", "--storage-class", "gold")
    assert status == 2
    assert (
        capsys.readouterr()
        .err.splitlines()[-1]
        .startswith("dbstor: error: PersistentVolumeClaim runs/study-gold-volume exists already")
    )

    # The Job's pod, made and then failed as the Job controller and a kubelet would.
    pod = core.create_namespaced_pod("runs", {
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "study-gold-abcde", "labels": {"job-name": "study-gold"}},
        "spec": {"containers": [{"name": "dbstor", "image": "localhost/dbstor:0.1.0"}],
                 "restartPolicy": "Never", "nodeName": "node-1"},
    })  # fmt: skip
    pod.status.phase = "Failed"
    pod.status.container_statuses = [client.V1ContainerStatus(
        name="dbstor", image="localhost/dbstor:0.1.0", image_id="", ready=False,
        restart_count=0, state=client.V1ContainerState(terminated=client.V1ContainerStateTerminated(
            exit_code=1, reason="Error")))]  # fmt: skip
    core.replace_namespaced_pod_status("study-gold-abcde", "runs", pod)
    status = kube(tmp_path, server, "collect", "--storage-class", "gold")
    err = capsys.readouterr().err.splitlines()
    assert status == 1
    assert (
        "dbstor: gold: pod runs/study-gold-abcde failed: container dbstor exited 1 (Error)" in err
    )
    assert any(line.startswith("dbstor: pod runs/study-gold-abcde: its log cannot be read")
               for line in err)  # fmt: skip

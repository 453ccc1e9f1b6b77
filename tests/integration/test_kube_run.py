"""dbstor kube run / collect through the real `kubernetes` client against an API on
127.0.0.1 answering from stored exchanges (tests/fixtures/kube/*.json, each saying how it
was made): the classes followed in order, run folders brought back from the pod logs,
one document comparing them; a failed pod, an unbound PVC, a missing storage class and a
Job past its deadline each said in one line naming the object, what finished kept."""

from __future__ import annotations

import base64
import io
import json
import tarfile
from pathlib import Path

import pytest
from kube_api import api_server, kubeconfig, load_exchanges

from dbstor.cli import main

pytestmark = pytest.mark.integration

GOLDEN = Path(__file__).resolve().parents[1] / "golden"
ARCHIVES = {"gold": "fc-io-oltp", "silver": "iscsi-io-oltp"}

STUDY = """
[study]
name = "classes"
duration = "10s"
size = "2GiB"
profiles = ["io-oltp"]
"""


def archive(folder: str) -> str:
    """The lines a Job prints at its end: its run folder as base64 tar.gz between marks."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        tar.add(GOLDEN / folder, arcname=f"runs/{folder}")
    text = base64.b64encode(buffer.getvalue()).decode()
    lines = [text[i : i + 76] for i in range(0, len(text), 76)]
    return "\n".join(["dbstor-results-begin", *lines, "dbstor-results-end"])


def exchanges(name: str) -> list[dict]:
    found = load_exchanges(name)
    assert found["about"].startswith("Not recorded from a live cluster")
    out = found["exchanges"]
    for exchange in out:
        body = exchange["body"]
        if isinstance(body, str):
            for cls, folder in ARCHIVES.items():
                body = body.replace(f"ARCHIVE:{cls}", archive(folder))
            exchange["body"] = body
    return out


def kube(tmp_path: Path, server, action: str, *classes: str, extra=()) -> int:
    study = tmp_path / "study.toml"
    study.write_text(STUDY)
    flags = [f"--storage-class={c}" for c in classes]
    return main(
        ["kube", action, str(study), *flags, "--kubeconfig", str(kubeconfig(tmp_path, server)),
         "--out", str(tmp_path / "out"), *extra]
    )  # fmt: skip


@pytest.fixture(autouse=True)
def no_waiting(monkeypatch):
    """The follow loop's clock: every poll moves a minute on, and nothing sleeps."""
    now = [0.0]

    def sleep(self, seconds: float) -> None:
        now[0] += 60.0

    monkeypatch.setattr("dbstor.kube.session.Clock.now", lambda self: now[0])
    monkeypatch.setattr("dbstor.kube.session.Clock.sleep", sleep)


def posted(server) -> list[tuple[str, str]]:
    return [(r["body"]["kind"], r["body"]["metadata"]["name"]) for r in server.requests
            if r["method"] == "POST"]  # fmt: skip


def test_two_classes_run_one_after_the_other_and_are_compared(tmp_path, capsys) -> None:
    with api_server(exchanges("two-classes")) as server:
        status = kube(tmp_path, server, "run", "gold", "silver")
    err = capsys.readouterr().err
    assert status == 1  # silver's pod failed
    assert posted(server) == [
        ("PersistentVolumeClaim", "study-gold-volume"), ("PersistentVolumeClaim", "study-gold-results"),
        ("ConfigMap", "study-gold-study"), ("Job", "study-gold"),
        ("PersistentVolumeClaim", "study-silver-volume"), ("PersistentVolumeClaim", "study-silver-results"),
        ("ConfigMap", "study-silver-study"), ("Job", "study-silver"),
    ]  # fmt: skip
    assert not [r for r in server.requests if r["method"] in ("PUT", "PATCH")]
    deleted = [r["path"] for r in server.requests if r["method"] == "DELETE"]
    assert deleted == [  # gold's, once its run folder was back; silver's kept for a look
        "/apis/batch/v1/namespaces/default/jobs/study-gold",
        "/api/v1/namespaces/default/configmaps/study-gold-study",
        "/api/v1/namespaces/default/persistentvolumeclaims/study-gold-results",
        "/api/v1/namespaces/default/persistentvolumeclaims/study-gold-volume",
    ]
    assert (
        "  kept for a look: kubectl get job,pod,pvc,configmap -n default -l dbstor.io/study=study; then kubectl delete the same"
        in err.splitlines()
    )
    failed = [line for line in err.splitlines() if line.startswith("dbstor: ")]
    assert failed == [
        "dbstor: silver: pod default/study-silver-x7k2p failed: container dbstor exited 1 (Error)"
    ]
    (folder,) = (tmp_path / "out").iterdir()
    for cls, golden in ARCHIVES.items():  # what finished came back, byte for byte
        got = folder / cls / "runs" / golden / "results.json"
        assert got.read_bytes() == (GOLDEN / golden / "results.json").read_bytes()
    comparison = json.loads((folder / "comparison.json").read_text())
    assert comparison["runs"][0]["label"] == comparison["baseline"]
    assert len(comparison["runs"]) == 2
    assert "<title>classes" in (folder / "report.html").read_text()  # the study's own name


def test_an_unbound_pvc_is_one_line_with_the_provisioners_words(tmp_path, capsys) -> None:
    with api_server(exchanges("unbound-pvc")) as server:
        status = kube(tmp_path, server, "run", "bronze", extra=["--bind-timeout", "5m"])
    err = capsys.readouterr().err
    assert status == 1
    assert (
        "dbstor: bronze: PVC default/study-bronze-volume is still unbound after 300 s "
        '(ProvisioningFailed: failed to provision volume with StorageClass "bronze": rpc '
        "error: code = ResourceExhausted desc = no capacity)"
    ) in err.splitlines()
    polls = [r for r in server.requests if r["path"].endswith("/study-bronze/status")]
    assert len(polls) == 6  # polled each minute until five minutes had passed unbound


def test_a_missing_class_is_said_and_the_next_class_still_runs(tmp_path, capsys) -> None:
    with api_server(exchanges("missing-class")) as server:
        status = kube(tmp_path, server, "run", "nosuch", "gold", extra=["--keep"])
    err = capsys.readouterr().err
    assert status == 1
    assert (
        "dbstor: nosuch: storage class nosuch does not exist (kubectl get storageclass lists them)"
        in err.splitlines()
    )
    assert all("nosuch" not in name for _, name in posted(server))
    assert not [r for r in server.requests if r["method"] == "DELETE"]  # --keep
    (folder,) = (tmp_path / "out").iterdir()
    assert (folder / "gold" / "runs" / "fc-io-oltp" / "results.json").exists()


def test_a_job_past_its_deadline_is_said_as_such(tmp_path, capsys) -> None:
    with api_server(exchanges("deadline")) as server:
        status = kube(tmp_path, server, "run", "gold")
    err = capsys.readouterr().err.splitlines()
    assert status == 1
    assert "dbstor: gold: job default/study-gold passed its deadline (14400 s, --deadline)" in err
    assert (
        "dbstor: pod default/study-gold-x7k2p: its log holds no run folder (it ended early)" in err
    )


def test_an_object_that_exists_is_never_replaced(tmp_path, capsys) -> None:
    with api_server(exchanges("exists")) as server:
        status = kube(tmp_path, server, "run", "gold")
    err = capsys.readouterr().err
    assert status == 2
    assert err.splitlines()[-1] == (
        "dbstor: error: PersistentVolumeClaim default/study-gold-volume exists already: dbstor "
        "never replaces it; delete it (kubectl delete) or give another --name"
    )
    assert [r["method"] for r in server.requests] == ["GET", "POST"]


def test_collect_creates_nothing_and_brings_back_what_finished(tmp_path, capsys) -> None:
    found = [e for e in exchanges("two-classes") if e["method"] != "POST"]
    with api_server(found) as server:
        status = kube(tmp_path, server, "collect", "gold", "silver")
    assert status == 1
    assert posted(server) == []
    assert not [r for r in server.requests if r["method"] == "DELETE"]  # the user's objects
    (folder,) = (tmp_path / "out").iterdir()
    assert (folder / "report.html").exists()


def test_a_kubeconfig_that_cannot_be_read_is_one_line(tmp_path, capsys) -> None:
    study = tmp_path / "study.toml"
    study.write_text(STUDY)
    bad = tmp_path / "kubeconfig"
    bad.write_text("clusters: [")
    status = main(["kube", "run", str(study), "--storage-class", "gold", "--kubeconfig", str(bad)])
    err = capsys.readouterr().err
    assert (
        status == 2 and err.count("\n") == 1 and err.startswith(f"dbstor: error: kubeconfig {bad}")
    )


def test_the_jobs_own_script_carries_a_real_run_folder_through_its_log(tmp_path, capsys) -> None:
    """The container's command as rendered, run here with its fixed paths moved under
    tmp_path (a real dbstor run of fio, GNU tar, base64), and its output unpacked as
    `kube collect` unpacks a pod's log."""
    import os
    import subprocess
    import sys

    from dbstor.kube.collect import archive_from_log, unpack

    study = tmp_path / "study.toml"
    study.write_text(STUDY.replace('duration = "10s"', 'duration = "1s"\nwarmup = "0s"')
                     .replace('size = "2GiB"', 'size = "8MiB"') + '[load]\nkind = "iodepth"\nvalues = [1]\n')  # fmt: skip
    assert main(["kube", "render", str(study), "--storage-class", "gold"]) == 0
    docs = [json.loads(d) for d in capsys.readouterr().out.split("\n---\n")[1:]]
    config_map = next(d for d in docs if d["kind"] == "ConfigMap")
    job = next(d for d in docs if d["kind"] == "Job")
    script = job["spec"]["template"]["spec"]["containers"][0]["command"][2]
    moved = {"/etc/dbstor": tmp_path / "etc", "/dbstor/results": tmp_path / "results",
             "/dbstor/volume": tmp_path / "volume"}  # fmt: skip
    for path in moved.values():
        path.mkdir()
    text = config_map["data"]["study.toml"].replace("/dbstor/volume", str(moved["/dbstor/volume"]))
    (moved["/etc/dbstor"] / "study.toml").write_text(text)
    for fixed, here in moved.items():
        script = script.replace(fixed, str(here))
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}"}
    done = subprocess.run(
        ["sh", "-c", script], capture_output=True, text=True, env=env, timeout=120
    )
    assert done.returncode == 0, done.stderr[-2000:]
    runs = unpack(archive_from_log(done.stdout), tmp_path / "back")
    (run,) = runs
    assert (
        json.loads((run / "results.json").read_text())["target"]["facts"]["storage_class"] == "gold"
    )

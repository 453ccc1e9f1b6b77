"""dbstor kube render: the manifests per storage class, validated offline against the
Kubernetes JSON schemas of several versions (kubernetes-validate), and what they grant."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import kubernetes_validate
import pytest

from dbstor.cli import main
from dbstor.study.load import load_study, study_from_dict

VERSIONS = ("1.30.0", "1.34.0", "1.37.0")  # oldest and newest the image is meant for

IO_STUDY = """
[study]
name = "gold vs silver"
duration = "10s"
size = "2GiB"
profiles = ["io-oltp"]

[[targets]]
label = "GOLD"
storage_class = "gold"
facts = { array = "A" }

[[targets]]
storage_class = "silver.example.com"
"""

DB_STUDY = """
[study]
name = "pg on classes"

[[databases]]
engine = "postgres"
workload = "orders"
users = [1, 2]
memory_limit = "2GiB"

[[databases]]
engine = "postgres"
workload = "blocks"
users = [1]
dsn_env = "PG_PROD_DSN"

[[targets]]
label = "data"
path = "/mnt/x"
"""


def render(tmp_path: Path, text: str, *flags: str, capsys) -> tuple[int, list[dict], str]:
    study = tmp_path / "study.toml"
    study.write_text(text)
    status = main(["kube", "render", str(study), *flags])
    out, err = capsys.readouterr()
    docs = [json.loads(d) for d in out.split("\n---\n")[1:]] if status == 0 else []
    return status, docs, err


def kinds(docs: list[dict], kind: str) -> list[dict]:
    return [d for d in docs if d["kind"] == kind]


@pytest.mark.parametrize("mode", ["Filesystem", "Block"])
def test_every_manifest_is_valid_for_several_kubernetes_versions(tmp_path, capsys, mode) -> None:
    status, docs, err = render(tmp_path, IO_STUDY, "--volume-mode", mode, capsys=capsys)
    assert status == 0, err
    assert [d["kind"] for d in docs] == ["PersistentVolumeClaim", "PersistentVolumeClaim",
                                         "ConfigMap", "Job"] * 2  # fmt: skip
    for doc in docs:
        for version in VERSIONS:
            kubernetes_validate.validate(doc, version, strict=True)


def test_a_manifest_kubernetes_would_refuse_is_caught_by_the_validation(tmp_path, capsys) -> None:
    _, docs, _ = render(tmp_path, IO_STUDY, capsys=capsys)
    job = kinds(docs, "Job")[0]
    job["spec"]["template"]["spec"]["containers"][0]["resources"]["requests"]["cpu"] = ["1"]
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(job, VERSIONS[0], strict=True)


def test_each_class_gets_its_own_pvc_and_a_study_whose_target_is_the_volume(
    tmp_path, capsys
) -> None:
    _, docs, _ = render(tmp_path, IO_STUDY, capsys=capsys)
    claims = [c for c in kinds(docs, "PersistentVolumeClaim") if "storageClassName" in c["spec"]]
    assert [c["spec"]["storageClassName"] for c in claims] == ["gold", "silver.example.com"]
    assert {c["spec"]["resources"]["requests"]["storage"] for c in claims} == {"3Gi"}
    for config_map, job in zip(kinds(docs, "ConfigMap"), kinds(docs, "Job"), strict=True):
        study = study_from_dict(tomllib.loads(config_map["data"]["study.toml"]), "pod", tmp_path)
        (target,) = study.targets
        assert target.paths == (Path("/dbstor/volume"),)
        pod = job["spec"]["template"]["spec"]
        mounts = {m["mountPath"]: m["name"] for m in pod["containers"][0]["volumeMounts"]}
        claim = next(v for v in pod["volumes"] if v["name"] == mounts["/dbstor/volume"])
        assert claim["persistentVolumeClaim"]["claimName"] in {
            c["metadata"]["name"] for c in claims
        }
    labels = [study_from_dict(tomllib.loads(c["data"]["study.toml"]), "p", tmp_path).targets[0]
              for c in kinds(docs, "ConfigMap")]  # fmt: skip
    assert [t.label for t in labels] == ["GOLD", "silver.example.com"]
    assert labels[0].facts == {"array": "A", "storage_class": "gold", "volume_mode": "Filesystem"}


def test_block_mode_gives_the_device_to_fio_as_root_without_any_capability(tmp_path, capsys):
    _, docs, _ = render(tmp_path, IO_STUDY, "--volume-mode", "Block", capsys=capsys)
    job = kinds(docs, "Job")[0]
    pod = job["spec"]["template"]["spec"]
    (container,) = pod["containers"]
    assert container["volumeDevices"] == [{"name": "volume", "devicePath": "/dev/dbstor-volume"}]
    assert "/dbstor/volume" not in {m["mountPath"] for m in container["volumeMounts"]}
    assert pod["securityContext"]["runAsUser"] == 0 and "fsGroup" not in pod["securityContext"]
    assert container["securityContext"]["capabilities"] == {"drop": ["ALL"]}
    assert "--i-know-this-destroys-data" in container["command"][2]
    study = tomllib.loads(kinds(docs, "ConfigMap")[0]["data"]["study.toml"])
    assert study["targets"][0]["paths"] == ["/dev/dbstor-volume"]


def test_nothing_grants_more_than_the_run_needs(tmp_path, capsys) -> None:
    for mode in ("Filesystem", "Block"):
        _, docs, _ = render(tmp_path, IO_STUDY, "--volume-mode", mode, capsys=capsys)
        for job in kinds(docs, "Job"):
            pod = job["spec"]["template"]["spec"]
            assert pod["automountServiceAccountToken"] is False
            assert not any(k.startswith("host") for k in pod)  # hostNetwork, hostPID, ...
            assert all("hostPath" not in v for v in pod["volumes"])
            security = pod["containers"][0]["securityContext"]
            assert security["privileged"] is False and security["allowPrivilegeEscalation"] is False
            assert security["readOnlyRootFilesystem"] is True
            assert "add" not in security["capabilities"]
            assert job["spec"]["backoffLimit"] == 0
        if mode == "Filesystem":
            assert pod["securityContext"]["runAsNonRoot"] is True
            assert pod["securityContext"]["runAsUser"] != 0


def test_memory_follows_the_study_caps_and_a_dsn_comes_from_a_secret(
    tmp_path, capsys, monkeypatch
) -> None:
    monkeypatch.setenv("PG_PROD_DSN", "postgresql://app:s3cret-pw@db.example:5432/prod")
    status, docs, err = render(
        tmp_path, DB_STUDY, "--storage-class", "fast", "--volume-size", "50Gi",
        "--dsn-secret", "pg-dsn", capsys=capsys,
    )  # fmt: skip
    assert status == 0, err
    job = kinds(docs, "Job")[0]
    container = job["spec"]["template"]["spec"]["containers"][0]
    # one database has no memory cap: nothing to limit by; the request covers the cap
    assert container["resources"] == {"requests": {"cpu": "1", "memory": "2560Mi"}}
    secret_env = [e for e in container["env"] if "valueFrom" in e]
    assert secret_env == [
        {
            "name": "PG_PROD_DSN",
            "valueFrom": {"secretKeyRef": {"name": "pg-dsn", "key": "PG_PROD_DSN"}},
        }
    ]
    everything = json.dumps(docs)
    assert "s3cret-pw" not in everything and "db.example" not in everything
    assert 'dsn_env = "PG_PROD_DSN"' in kinds(docs, "ConfigMap")[0]["data"]["study.toml"]
    for doc in docs:
        kubernetes_validate.validate(doc, VERSIONS[-1], strict=True)


def test_a_capped_database_study_gets_a_memory_limit(tmp_path, capsys) -> None:
    capped = DB_STUDY.replace('dsn_env = "PG_PROD_DSN"', 'memory_limit = "1GiB"')
    _, docs, _ = render(
        tmp_path, capped, "--storage-class", "fast", "--volume-size", "50Gi", capsys=capsys
    )
    resources = kinds(docs, "Job")[0]["spec"]["template"]["spec"]["containers"][0]["resources"]
    assert resources["limits"] == {"memory": "2560Mi"}


def test_nodes_pin_the_pods_and_pods_of_one_study_never_share_a_node(tmp_path, capsys) -> None:
    _, docs, _ = render(tmp_path, IO_STUDY, "--nodes", "n1,n2", capsys=capsys)
    affinity = kinds(docs, "Job")[0]["spec"]["template"]["spec"]["affinity"]
    term = affinity["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
    assert term["nodeSelectorTerms"][0]["matchExpressions"][0]["values"] == ["n1", "n2"]
    anti = affinity["podAntiAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"][0]
    assert anti["topologyKey"] == "kubernetes.io/hostname"
    assert anti["labelSelector"]["matchLabels"] == {"dbstor.io/study": "study"}


@pytest.mark.parametrize(
    ("text", "flags", "words"),
    [
        (IO_STUDY.replace("storage_class", "label_x"), (), "no storage class to test"),
        (IO_STUDY, ("--storage-class", "Gold_Class"), "is not a Kubernetes name"),
        (DB_STUDY, ("--storage-class", "a", "--volume-mode", "Block"), "fio profiles only"),
        (DB_STUDY, ("--storage-class", "a"), "--volume-size"),
        (IO_STUDY, ("--namespace", "Bad NS"), "--namespace"),
        (IO_STUDY, ("--volume-size", "lots"), "--volume-size lots"),
        (IO_STUDY, ("--nodes", "n1,bad node"), "--nodes 'bad node'"),
        (IO_STUDY, ("--image", "img\nx"), "--image"),
        (IO_STUDY, ("--deadline", "soon"), "--deadline soon"),
        (IO_STUDY.replace('duration = "10s"', 'duration = "ten"'), (), "study.duration"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(tmp_path, capsys, text, flags, words) -> None:
    status, docs, err = render(tmp_path, text, *flags, capsys=capsys)
    assert status == 2 and docs == []
    assert err.count("\n") == 1 and words in err, err


def test_a_local_run_refuses_a_storage_class_target_and_names_kube(tmp_path) -> None:
    study = tmp_path / "s.toml"
    study.write_text(IO_STUDY)
    with pytest.raises(Exception, match="dbstor kube"):
        load_study(study)

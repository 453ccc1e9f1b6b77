"""No write through a link, no removal of what the user made: the real CLI against a
dangling symbolic link with a test file's (or database file's) name, and a user's own file
named like dbstor's manifest."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration

TINY = ("--iodepth", "1", "--duration", "1", "--warmup", "0", "--size", "16MiB", "--quiet")


@pytest.fixture
def target(tmp_path: Path) -> Path:
    path = tmp_path / "target"
    path.mkdir()
    return path


@pytest.mark.skip_without_fio
@pytest.mark.parametrize("flags", [(), ("--allow-overwrite",)])
def test_a_dangling_link_named_like_a_test_file_is_refused_and_kept(
    dbstor, tmp_path, target, flags
):
    elsewhere = tmp_path / "elsewhere" / "victim.dat"
    elsewhere.parent.mkdir()
    link = target / "dbstor-io-oltp-0.dat"
    link.symlink_to(elsewhere)
    proc = dbstor("io", "--target", target, *TINY, *flags, "--out", "out")
    dbstor.assert_user_error(proc, str(link), "symbolic link")
    assert os.readlink(link) == str(elsewhere), "the user's link was removed or changed"
    assert not elsewhere.exists(), "a file was created through the link, outside the target"
    assert sorted(p.name for p in target.iterdir()) == [link.name]


@pytest.mark.skip_without_fio
def test_a_link_to_a_real_file_is_refused_and_the_file_untouched(dbstor, tmp_path, target):
    precious = tmp_path / "precious.dat"
    precious.write_bytes(b"keep me")
    (target / "dbstor-io-oltp-0.dat").symlink_to(precious)
    proc = dbstor("io", "--target", target, *TINY, "--allow-overwrite", "--out", "out")
    dbstor.assert_user_error(proc, "symbolic link")
    assert precious.read_bytes() == b"keep me"


@pytest.mark.skip_without_fio
@pytest.mark.parametrize(
    "content",
    [
        "my own notes\n",  # not JSON
        json.dumps({"dbstor-io-oltp-0.dat": "mine"}),  # JSON, not dbstor's shape
        # dbstor's shape, but no token in the extended attribute (a copy, or hand-made)
        json.dumps({"created_by": "dbstor", "token": "x", "xattr": True, "files": {}}),
    ],
)
def test_a_users_file_named_like_the_manifest_is_refused_never_rewritten(dbstor, target, content):
    manifest = target / ".dbstor-owned.json"
    manifest.write_text(content, encoding="utf-8")
    before = manifest.stat()
    proc = dbstor("io", "--target", target, *TINY, "--out", "out")
    dbstor.assert_user_error(proc, str(manifest), "not written by dbstor")
    after = manifest.stat()
    assert manifest.read_text(encoding="utf-8") == content
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)
    assert sorted(p.name for p in target.iterdir()) == [manifest.name]


@pytest.mark.skip_without_fio
def test_a_link_named_like_the_manifest_is_refused_and_kept(dbstor, tmp_path, target):
    elsewhere = tmp_path / "notes.json"
    (target / ".dbstor-owned.json").symlink_to(elsewhere)
    proc = dbstor("io", "--target", target, *TINY, "--out", "out")
    dbstor.assert_user_error(proc, "symbolic link")
    assert os.path.islink(target / ".dbstor-owned.json") and not elsewhere.exists()


@pytest.mark.skip_without_fio
def test_dbstors_own_manifest_still_works_across_runs(dbstor, target):
    first = dbstor("io", "--target", target, *TINY, "--keep", "--out", "out")
    assert first.returncode == 0, first.stderr
    assert dbstor.leftovers(target) == [".dbstor-owned.json", "dbstor-io-oltp-0.dat"]
    second = dbstor("io", "--target", target, *TINY, "--out", "out")
    assert second.returncode == 0, second.stderr
    assert dbstor.leftovers(target) == []


def test_sqlite_refuses_a_dangling_link_with_its_database_name(dbstor, tmp_path, target):
    elsewhere = tmp_path / "elsewhere.db"
    link = target / "dbstor-sqlite-0.db"
    link.symlink_to(elsewhere)
    proc = dbstor(
        "run", "--engine", "sqlite", "--target", target, "--users", "1", "--duration", "1",
        "--warmup", "0", "--scale", "50", "--allow-overwrite", "--out", "out", "--quiet",
    )  # fmt: skip
    dbstor.assert_user_error(proc, str(link), "symbolic link")
    assert os.path.islink(link) and not elsewhere.exists()


def test_sqlite_on_a_block_device_says_to_mount_it(dbstor, loop_fs):
    proc = dbstor(
        "run", "--engine", "sqlite", "--target", loop_fs.device, "--users", "1", "--duration",
        "1", "--warmup", "0", "--scale", "50", "--out", "out", "--quiet",
    )  # fmt: skip
    dbstor.assert_user_error(proc, f"{loop_fs.device} is a block device", "mount it")

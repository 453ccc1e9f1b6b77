import json
import os
from pathlib import Path

import pytest

from dbstor.errors import UserError
from dbstor.testfiles import (
    MANIFEST,
    Safety,
    check_free_space,
    create_files,
    plan_files,
    record_created,
    reusable,
    write_zero_blocks,
)


def test_plans_files_across_paths(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir(), b.mkdir()
    files = plan_files((a, b), "io-oltp", 2, 64 << 20, Safety())
    assert [f.name for f in files.files] == ["dbstor-io-oltp-0.dat", "dbstor-io-oltp-1.dat"] * 2
    assert files.file_size == 16 << 20 and files.direct and not files.is_device


def test_refuses_a_file_it_did_not_create(tmp_path):
    foreign = tmp_path / "dbstor-io-oltp-0.dat"
    foreign.write_text("precious")
    with pytest.raises(UserError, match="was not created by dbstor.*--allow-overwrite"):
        plan_files((tmp_path,), "io-oltp", 1, 1 << 20, Safety())
    assert plan_files((tmp_path,), "io-oltp", 1, 1 << 20, Safety(allow_overwrite=True)).files == (
        foreign,
    )


def test_owned_files_are_recognised_by_inode_and_removed(tmp_path):
    files = plan_files((tmp_path,), "io-oltp", 1, 1 << 20, Safety())
    (path,) = files.files
    path.write_bytes(b"\0" * (1 << 20))
    record_created(files)
    assert reusable(files)
    assert plan_files((tmp_path,), "io-oltp", 1, 1 << 20, Safety()).files == (
        path,
    )  # ours: no refusal
    # a different file under the same name is not ours
    path.unlink()
    path.write_bytes(b"\0" * (1 << 20))
    with pytest.raises(UserError):
        plan_files((tmp_path,), "io-oltp", 1, 1 << 20, Safety())
    record_created(files)
    files.remove()
    assert not path.exists() and not (tmp_path / MANIFEST).exists()


def test_remove_never_deletes_a_foreign_file(tmp_path):
    files = plan_files((tmp_path,), "io-oltp", 1, 1 << 20, Safety())
    (path,) = files.files
    path.write_text("someone else's")  # created behind dbstor's back, never recorded
    files.remove()
    assert path.read_text() == "someone else's"


def test_block_device_needs_both_flags():
    device = next(
        (Path(d) for d in ("/dev/vda", "/dev/loop0", "/dev/sda") if Path(d).exists()), None
    )
    if device is None:
        pytest.skip("no block device node to test with")
    for safety in (Safety(), Safety(allow_overwrite=True)):
        with pytest.raises(UserError, match="block device.*--i-know-this-destroys-data"):
            plan_files((device,), "io-oltp", 1, 1 << 20, safety)
    files = plan_files(
        (device,), "io-oltp", 1, 1 << 20, Safety(allow_overwrite=True, destroy_device=True)
    )
    assert files.is_device and files.file_size == 0


@pytest.mark.parametrize("problem", ["missing", "file"])
def test_bad_directories(tmp_path, problem):
    target = tmp_path / "t"
    if problem == "file":
        target.write_text("x")
    with pytest.raises(UserError, match="does not exist|not a directory"):
        plan_files((target,), "io-oltp", 1, 1 << 20, Safety())


def test_free_space_is_checked(tmp_path):
    files = plan_files((tmp_path,), "io-oltp", 1, 1 << 20, Safety())
    files.file_size = os.statvfs(tmp_path).f_bavail * os.statvfs(tmp_path).f_frsize * 2
    with pytest.raises(UserError, match="free space or choose a smaller --size"):
        check_free_space(files)


def test_a_link_is_never_owned_nor_removed(tmp_path):
    files = plan_files((tmp_path,), "io-oltp", 1, 1 << 20, Safety())
    (path,) = files.files
    path.write_bytes(b"\0")
    record_created(files)
    real = tmp_path / "real.dat"
    path.rename(real)
    path.symlink_to(real)  # the recorded name now a link to the very file dbstor made
    files.remove()
    assert path.is_symlink() and real.exists()
    with pytest.raises(UserError, match="symbolic link"):
        plan_files((tmp_path,), "io-oltp", 1, 1 << 20, Safety(allow_overwrite=True))


def test_the_first_manifest_form_is_still_read(tmp_path):
    path = tmp_path / "dbstor-io-oltp-0.dat"
    path.write_bytes(b"\0")
    (tmp_path / MANIFEST).write_text(json.dumps({path.name: {"inode": path.stat().st_ino}}))
    files = plan_files((tmp_path,), "io-oltp", 1, 1 << 20, Safety())
    files.remove()
    assert not path.exists() and not (tmp_path / MANIFEST).exists()


def test_create_files_never_creates_through_a_link(tmp_path):
    files = plan_files((tmp_path,), "io-oltp", 1, 1 << 20, Safety())
    (path,) = files.files
    path.symlink_to(tmp_path / "outside.dat")  # appears after planning
    with pytest.raises(UserError, match="symbolic link"):
        create_files(files)
    assert not (tmp_path / "outside.dat").exists() and path.is_symlink()


def test_zero_blocks_go_only_into_dbstors_own_files_evenly(tmp_path):
    files = plan_files((tmp_path,), "io-oltp", 1, 1 << 20, Safety())
    (path,) = files.files
    path.write_bytes(b"\xff" * (1 << 20))
    record_created(files)
    assert write_zero_blocks(files, 25.0) == 32  # a quarter of 128 blocks of 8 KiB
    data = path.read_bytes()
    zero = [data[i : i + 8192] == bytes(8192) for i in range(0, len(data), 8192)]
    assert sum(zero) == 32 and zero[3] and zero[7] and not zero[0]  # every fourth block
    path.unlink()
    path.write_bytes(b"\xff" * (1 << 20))  # someone else's file under the same name
    assert write_zero_blocks(files, 25.0) == 0 and b"\0" not in path.read_bytes()

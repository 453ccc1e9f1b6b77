"""A Job's run folder out of its pod's log: only plain folders and files with relative
names come out; a link, a device or a name reaching out refuses the whole archive before
anything is written; a folder already at the destination is never written into."""

from __future__ import annotations

import base64
import io
import tarfile
from pathlib import Path

import pytest

from dbstor.errors import UserError
from dbstor.kube.collect import archive_from_log, unpack


def tar_gz(*members: tuple[str, bytes | None, bytes]) -> bytes:
    """(name, file content or None, kind: b"file" / b"dir" / b"link" / b"fifo")."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for name, content, kind in members:
            info = tarfile.TarInfo(name)
            if kind == b"dir":
                info.type = tarfile.DIRTYPE
            elif kind == b"link":
                info.type, info.linkname = tarfile.SYMTYPE, "/etc/passwd"
            elif kind == b"fifo":
                info.type = tarfile.FIFOTYPE
            info.size = len(content or b"")
            tar.addfile(info, io.BytesIO(content or b"") if content else None)
    return buffer.getvalue()


def logged(archive: bytes) -> str:
    text = base64.b64encode(archive).decode()
    body = [text[i : i + 76] for i in range(0, len(text), 76)]
    return "\n".join(["starting", "dbstor-results-begin", *body, "dbstor-results-end", ""])


GOOD = tar_gz(
    ("runs", None, b"dir"),
    ("runs/r1", None, b"dir"),
    ("runs/r1/results.json", b'{"schema": 1}', b"file"),
    ("runs/r1/samples.csv", b"t,iops\n", b"file"),
)


def test_the_run_folder_comes_back_as_it_was(tmp_path: Path) -> None:
    archive = archive_from_log(logged(GOOD))
    runs = unpack(archive, tmp_path / "gold")
    assert runs == [tmp_path / "gold" / "runs" / "r1"]
    assert (runs[0] / "results.json").read_bytes() == b'{"schema": 1}'


@pytest.mark.parametrize(
    "log",
    [
        "no marks at all\n",
        "dbstor-results-begin\n%%%not base64%%%\ndbstor-results-end\n",
        "dbstor-results-begin\nabc\n",
    ],
)
def test_a_log_without_a_whole_archive_holds_none(log: str) -> None:
    assert archive_from_log(log) is None


@pytest.mark.parametrize(
    ("member", "words"),
    [
        (("runs/../../escape", b"x", b"file"), "names"),
        (("/etc/cron.d/x", b"x", b"file"), "names"),
        (("runs/link", None, b"link"), "link or a device"),
        (("runs/fifo", None, b"fifo"), "link or a device"),
    ],
)
def test_a_hostile_archive_is_refused_before_anything_is_written(tmp_path, member, words) -> None:
    archive = tar_gz(("runs/ok.txt", b"fine", b"file"), member)
    with pytest.raises(UserError, match=words):
        unpack(archive, tmp_path / "gold")
    assert not (tmp_path / "gold").exists()
    assert not (tmp_path.parent / "escape").exists()


def test_a_damaged_archive_is_one_line(tmp_path) -> None:
    with pytest.raises(UserError, match="damaged"):
        unpack(GOOD[: len(GOOD) // 2], tmp_path / "gold")


def test_a_folder_already_there_is_never_written_into(tmp_path) -> None:
    (tmp_path / "gold").mkdir()
    with pytest.raises(UserError, match="did not make"):
        unpack(GOOD, tmp_path / "gold")
    assert list((tmp_path / "gold").iterdir()) == []


def test_a_link_at_the_destination_is_refused(tmp_path) -> None:
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "gold").symlink_to(tmp_path / "elsewhere")
    with pytest.raises(UserError, match="symbolic link"):
        unpack(GOOD, tmp_path / "gold")
    assert list((tmp_path / "elsewhere").iterdir()) == []

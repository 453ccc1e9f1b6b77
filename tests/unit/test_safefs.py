"""safefs on real files: what is at a name dbstor writes decides, never a link's target."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from dbstor.errors import UserError
from dbstor.safefs import (
    create_file,
    empty_dir,
    is_dbstor_html,
    make_dir,
    new_dir,
    open_for_append,
    remove_file,
    write_file,
)

THEIRS = "the user's own\n"


def test_a_new_file_then_its_own_rewrite(tmp_path):
    path = tmp_path / "results.json"
    write_file(path, "one")
    write_file(path, "two")  # this process wrote it: replaced
    assert path.read_text() == "two"
    assert [p.name for p in tmp_path.iterdir()] == ["results.json"]  # no temporary left


@pytest.mark.parametrize("dangling", [False, True])
def test_a_link_is_refused_and_its_target_untouched(tmp_path, dangling):
    target = tmp_path / "target.html"
    if not dangling:
        target.write_text(THEIRS)
    (tmp_path / "report.html").symlink_to(target)
    with pytest.raises(UserError, match="is a symbolic link"):
        write_file(tmp_path / "report.html", "<html>", is_dbstor_html)
    assert os.path.islink(tmp_path / "report.html")
    assert (target.read_text() == THEIRS) if not dangling else not target.exists()


def test_a_foreign_file_is_refused_and_dbstors_own_page_replaced(tmp_path):
    page = tmp_path / "page.html"
    page.write_text(THEIRS)
    with pytest.raises(UserError, match="not written by dbstor"):
        write_file(page, "<html>", is_dbstor_html, fix="give another --html file")
    assert page.read_text() == THEIRS
    page.write_text('<!DOCTYPE html><meta name="generator" content="dbstor 0.1">')
    write_file(page, "new", is_dbstor_html)  # an earlier page of dbstor's, another process
    assert page.read_text() == "new"


def test_a_folder_is_made_new_or_refused(tmp_path):
    new_dir(tmp_path / "run")
    for name, make in (
        ("again", lambda p: p.mkdir()),
        ("file", lambda p: p.write_text(THEIRS)),
        ("link", lambda p: p.symlink_to(tmp_path / "run")),
        ("dangling", lambda p: p.symlink_to(tmp_path / "nowhere")),
    ):
        make(tmp_path / name)
        with pytest.raises(UserError) as caught:
            new_dir(tmp_path / name)
        assert "\n" not in str(caught.value)
    assert list((tmp_path / "run").iterdir()) == [] and not (tmp_path / "nowhere").exists()


def test_appending_only_to_its_own_file(tmp_path):
    theirs = tmp_path / "theirs.csv"
    theirs.write_text(THEIRS)
    with pytest.raises(UserError, match="not written by dbstor"):
        open_for_append(theirs)
    (tmp_path / "link.csv").symlink_to(theirs)
    with pytest.raises(OSError):
        open_for_append(tmp_path / "link.csv")  # O_NOFOLLOW: ELOOP, said by the caller
    fd = open_for_append(tmp_path / "samples.csv")
    os.write(fd, b"a\n")
    os.close(fd)
    os.close(open_for_append(tmp_path / "samples.csv"))  # its own: appended again
    assert theirs.read_text() == THEIRS


def test_a_file_an_earlier_dbstor_wrote_is_its_own(tmp_path):
    """Another process's file carries dbstor's mark (an extended attribute): replaced."""
    path = tmp_path / "index.json"
    code = f"from pathlib import Path; from dbstor.safefs import write_file; write_file(Path({str(path)!r}), '{{}}')"
    subprocess.run([sys.executable, "-c", code], check=True)
    write_file(path, '{"runs": []}')
    assert path.read_text() == '{"runs": []}'


def _plant_link(tmp_path, name, to_folder=False):
    target = tmp_path / ("theirs" if to_folder else "theirs.txt")
    if to_folder:
        target.mkdir()
        (target / "keep.txt").write_text(THEIRS)
    else:
        target.write_text(THEIRS)
    (tmp_path / name).symlink_to(target)
    return target


@pytest.mark.parametrize("to_folder", [False, True])
def test_create_file_never_through_a_link(tmp_path, to_folder):
    target = _plant_link(tmp_path, "db.sqlite", to_folder)
    with pytest.raises(UserError, match="is a symbolic link"):
        create_file(tmp_path / "db.sqlite")
    assert (tmp_path / "db.sqlite").is_symlink()
    assert (target / "keep.txt" if to_folder else target).read_text() == THEIRS


def test_create_file_exclusive_refuses_what_is_there(tmp_path):
    (tmp_path / "f").write_text(THEIRS)
    with pytest.raises(UserError, match="exists"):
        create_file(tmp_path / "f", exclusive=True)
    create_file(tmp_path / "f")  # not exclusive: a regular file there is kept as it is
    assert (tmp_path / "f").read_text() == THEIRS
    (tmp_path / "d").mkdir()
    with pytest.raises(UserError, match="not a regular file"):
        create_file(tmp_path / "d")
    create_file(tmp_path / "new", exclusive=True)
    assert (tmp_path / "new").read_bytes() == b""


def test_remove_file_removes_only_a_regular_file(tmp_path):
    target = _plant_link(tmp_path, "x.db-wal")
    assert remove_file(tmp_path / "x.db-wal") is False  # a link: left, its target too
    assert (tmp_path / "x.db-wal").is_symlink() and target.read_text() == THEIRS
    (tmp_path / "d").mkdir()
    assert remove_file(tmp_path / "d") is False and (tmp_path / "d").is_dir()
    assert remove_file(tmp_path / "missing") is False
    (tmp_path / "mine").write_text("x")
    assert remove_file(tmp_path / "mine") is True and not (tmp_path / "mine").exists()


def test_make_dir_uses_a_folder_and_refuses_a_link(tmp_path):
    assert make_dir(tmp_path / "a") is True
    assert make_dir(tmp_path / "a") is False  # there already: used
    target = _plant_link(tmp_path, "b", to_folder=True)
    with pytest.raises(UserError, match="is a symbolic link"):
        make_dir(tmp_path / "b")
    (tmp_path / "c").write_text(THEIRS)
    with pytest.raises(UserError, match="exists"):
        make_dir(tmp_path / "c")
    assert sorted(p.name for p in target.iterdir()) == ["keep.txt"]


def test_empty_dir_never_follows_a_link_inside(tmp_path):
    target = _plant_link(tmp_path, "x", to_folder=True)
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "sub").mkdir()
    (folder / "sub" / "f").write_text("x")
    (folder / "link").symlink_to(target)
    empty_dir(folder)
    assert list(folder.iterdir()) == []
    assert (target / "keep.txt").read_text() == THEIRS

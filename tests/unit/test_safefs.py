"""safefs on real files: what is at a name dbstor writes decides, never a link's target."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from dbstor.errors import UserError
from dbstor.safefs import is_dbstor_html, new_dir, open_for_append, write_file

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

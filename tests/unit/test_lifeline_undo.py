"""The watcher's undo of an event: a throttle rule written back, never through a link; a
snapshot deleted only when it is a directory of dbstor's own name."""

from __future__ import annotations

import io
import json
import os

from dbstor import lifeline
from dbstor.lifeline_undo import delete_subvolumes, lift_throttles


def test_the_rule_that_was_there_is_written_back(tmp_path):
    rule = tmp_path / "blkio.throttle.write_iops_device"
    rule.write_text("")
    lift_throttles({(str(rule), "7:3"): "7:3 0"})
    assert rule.read_text() == "7:3 0"


def test_a_link_in_place_of_the_rule_is_not_followed(tmp_path):
    victim = tmp_path / "victim"
    victim.write_text("keep")
    os.symlink(victim, tmp_path / "rule")
    lift_throttles({(str(tmp_path / "rule"), "7:3"): "7:3 0"})
    assert victim.read_text() == "keep"


def test_only_what_was_not_forgotten_is_undone(tmp_path):
    lifted, kept = tmp_path / "lifted", tmp_path / "kept"
    for f in (lifted, kept):
        f.write_text("")
    messages = [
        {"op": "throttle", "path": str(lifted), "device": "7:3", "restore": "7:3 0"},
        {"op": "throttle", "path": str(kept), "device": "7:3", "restore": "7:3 0"},
        {"op": "forget-throttle", "path": str(kept), "device": "7:3"},
    ]
    lifeline.watch(io.StringIO("".join(json.dumps(m) + "\n" for m in messages)))
    assert lifted.read_text() == "7:3 0" and kept.read_text() == ""


def test_a_directory_that_is_not_a_snapshot_of_dbstors_is_left(tmp_path):
    plain = tmp_path / ".dbstor-snapshot-1-x"  # its name, but not a subvolume root
    plain.mkdir()
    other = tmp_path / "data"
    other.mkdir()
    delete_subvolumes({str(plain), str(other)})
    assert plain.is_dir() and other.is_dir()

"""Whether an io run's target still holds its test files, checked before each point and
after a point fails: a target folder removed, a test file gone or a file system turned
read-only during the run is said in one line naming it, instead of fio's own words (and
before fio, which makes a missing folder anew, can bring the folder back)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from dbstor.errors import UserError

KEPT = "the points measured before it are kept"


def why_unusable(files: Sequence[Path], writes: bool) -> str | None:
    """Why the test files cannot be measured any more, or None while they can. `writes`:
    the profile writes, so a file system turned read-only stops it too."""
    for path in files:
        folder = path.parent
        if not os.path.isdir(folder):
            return (
                f"the target folder {folder} was removed during the run (with the test file "
                f"{path.name}); {KEPT}: put the folder back and run again"
            )
        if not os.path.lexists(path):
            return (
                f"the test file {path} was removed during the run; {KEPT}: run again to lay "
                "it out anew"
            )
    for folder in sorted({p.parent for p in files}):
        if writes and _read_only(folder):
            return (
                f"the file system under {folder} became read-only during the run; {KEPT}: "
                "make it writable and run again"
            )
    return None


def check_usable(files: Sequence[Path], writes: bool) -> None:
    """UserError when the test files cannot be measured any more (why_unusable)."""
    why = why_unusable(files, writes)
    if why is not None:
        raise UserError(why)


def _read_only(folder: Path) -> bool:
    try:
        return bool(os.statvfs(folder).f_flag & os.ST_RDONLY)
    except OSError:
        return False


def left_behind(left: Sequence[tuple[Path, str]]) -> str | None:
    """The line naming the test files dbstor could not remove, or None when none is left."""
    if not left:
        return None
    named = "; ".join(f"{path} ({reason})" for path, reason in left)
    return (
        f"warning: the test file(s) dbstor made could not be removed and are left: {named}; "
        "remove them once their file system is writable"
    )

"""A finished Job's run folder, from its pod's log to this machine, and the document
comparing the storage classes.

The Job's script ends by printing its run folders as a base64 tar.gz between two marks
(manifests.py), whether the run succeeded or not, so what finished comes back through the
API's pod log alone. Unpacking takes only folders and regular files with plain relative
names; a link, a device or a name reaching out ("..", "/") refuses the archive.
"""

from __future__ import annotations

import base64
import binascii
import io
import json
import tarfile
from pathlib import Path, PurePosixPath
from typing import Any

from dbstor.errors import UserError
from dbstor.kube.manifests import BEGIN_MARK, END_MARK
from dbstor.safefs import make_dir, new_dir, write_file

MAX_ARCHIVE_BYTES = 512 * 1024**2


def archive_from_log(log: str) -> bytes | None:
    """The tar.gz between the marks of the log; None when the log has none (the container
    never reached the end of its script, or the log was rotated away)."""
    lines = log.splitlines()
    try:
        begin = len(lines) - 1 - lines[::-1].index(BEGIN_MARK)
        end = lines.index(END_MARK, begin)
    except ValueError:
        return None
    try:
        return base64.b64decode("".join(lines[begin + 1 : end]), validate=True)
    except (binascii.Error, ValueError):
        return None


def archive_entries(archive: bytes, name: str) -> list[tuple[PurePosixPath, bytes | None]]:
    """(relative path, content; None for a folder) per member, checked before anything is
    written: plain relative names, folders and regular files only, a bounded total."""
    entries: list[tuple[PurePosixPath, bytes | None]] = []
    total = 0
    try:
        with tarfile.open(fileobj=io.BytesIO(archive), mode="r:gz") as tar:
            for member in tar:
                path = PurePosixPath(member.name)
                if not path.parts or path.is_absolute() or ".." in path.parts:
                    raise UserError(f"{name}: the results archive names {member.name!r}; refused")
                if not (member.isdir() or member.isfile()):
                    raise UserError(
                        f"{name}: the results archive holds a link or a device; refused"
                    )
                total += member.size
                if total > MAX_ARCHIVE_BYTES:
                    raise UserError(f"{name}: the results archive unpacks to over 512 MiB; refused")
                handle = tar.extractfile(member) if member.isfile() else None
                entries.append((path, handle.read() if handle else None))
    except (tarfile.TarError, EOFError, OSError) as exc:
        raise UserError(f"{name}: the Job's results archive is damaged ({exc})") from None
    return entries


def unpack(archive: bytes, dest: Path) -> list[Path]:
    """The archive's folders and files under dest (made new); the run folders in it
    (those holding a results.json), in the archive's order."""
    entries = archive_entries(archive, dest.name)
    new_dir(dest)
    runs = []
    for path, content in entries:
        target = dest.joinpath(*path.parts)
        for parent in reversed(target.relative_to(dest).parents[:-1]):
            make_dir(dest / parent)
        if content is None:
            make_dir(target)
            continue
        write_file(target, content)
        if target.name == "results.json":
            runs.append(target.parent)
    return runs


def compare_classes(folder: Path, run_folders: list[Path], title: str) -> dict[str, Any] | None:
    """The study document over every class's runs: comparison.json and report.html in
    folder, the first class the baseline."""
    from dbstor.analysis.study_compare import study_comparison
    from dbstor.results.store import read_run_folder
    from dbstor.runs.study import render

    runs = [read_run_folder(f) for f in run_folders]
    if not runs:
        return None
    comparison = study_comparison(runs, None)
    if comparison is not None:
        write_file(folder / "comparison.json", json.dumps(comparison, indent=2) + "\n")
    render(folder, runs, comparison, title)
    return comparison

"""Every file dbstor reads that a user names or could have put in its way (a study file, a
results.json, a histogram, a CSV of file statistics) is checked here before it is read:
a regular file (not a FIFO, which would hang; not /dev/zero, which never ends; not a
folder), no larger than the limit for its kind, read by descriptor so what was checked is
what is read. A refusal is one line naming the file, what it is, and what to give instead.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from dbstor.errors import UserError

MiB = 1024 * 1024
STUDY_FILE_BYTES = 4 * MiB  # a study file is hand-written TOML: a few KiB
RESULTS_BYTES = 512 * MiB  # results.json of a long run with many points and queries
HISTOGRAM_BYTES = 64 * MiB  # one point's latency bins
TABLE_BYTES = 256 * MiB  # a CSV or JSON the user exported from another tool

_KINDS = (
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISFIFO, "a FIFO (a named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def kind_of(mode: int) -> str:
    """What a file that is not a regular file is, in words."""
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


def read_bytes(path: Path, what: str, limit: int) -> bytes:
    """The whole of the regular file at path, at most `limit` bytes; a refusal otherwise.
    Opened without blocking (a FIFO never hangs) and checked by its descriptor."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOCTTY)
    except IsADirectoryError:
        raise UserError(f"{path}: is a folder, not {what}; give the file") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise UserError(f"{path}: is {kind_of(info.st_mode)}, not {what}; give a regular file")
        if info.st_size > limit:
            raise UserError(
                f"{path}: {info.st_size:,} bytes is too large for {what} "
                f"(at most {limit:,}); give the right file"
            )
        os.set_blocking(fd, True)
        chunks, total = [], 0
        while chunk := os.read(fd, 1 << 20):
            chunks.append(chunk)
            total += len(chunk)
            if total > limit:  # it grew while read (a file still being written)
                raise UserError(f"{path}: grew past {limit:,} bytes while read, for {what}")
        return b"".join(chunks)
    finally:
        os.close(fd)


def read_text(path: Path, what: str, limit: int) -> str:
    """read_bytes as UTF-8 text; a byte-order mark at the start is named, not mis-read."""
    data = read_bytes(path, what, limit)
    if data.startswith(b"\xef\xbb\xbf"):
        raise UserError(
            f"{path}: starts with a byte-order mark (U+FEFF), which {what} may not hold; "
            "save it as UTF-8 without a BOM"
        )
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UserError(
            f"{path}: is not UTF-8 text (byte {exc.start}); give {what} saved as UTF-8"
        ) from None


def check_input_file(path: Path, what: str, limit: int) -> None:
    """The checks of read_bytes alone, for a reader that opens the file itself (a library
    that takes a name)."""
    try:
        info = os.stat(path)
    except OSError:
        return  # the reader says what is wrong with a missing file
    if not stat.S_ISREG(info.st_mode):
        raise UserError(f"{path}: is {kind_of(info.st_mode)}, not {what}; give a regular file")
    if info.st_size > limit:
        raise UserError(
            f"{path}: {info.st_size:,} bytes is too large for {what} (at most {limit:,})"
        )


def read_toml(path: Path, what: str, limit: int = STUDY_FILE_BYTES) -> dict[str, object]:
    """A TOML file a user wrote (a study, a consolidation, a preset), read as read_text does;
    a missing file, bad syntax or nesting hundreds of levels deep is one line naming it."""
    import tomllib

    try:
        return tomllib.loads(read_text(path, what, limit))
    except FileNotFoundError:
        raise UserError(f"{path}: no such file; give the path of {what}") from None
    except tomllib.TOMLDecodeError as exc:
        raise UserError(f"{path}: not valid TOML ({exc}); fix the syntax") from None
    except RecursionError:
        raise UserError(
            f"{path}: nested too deeply (arrays or tables inside each other hundreds of "
            f"levels down); {what} needs a few levels"
        ) from None
    except OSError as exc:
        raise UserError(f"{path}: cannot read {what} ({exc.strerror})") from None

"""One-line messages from a server's output: the line that says what went wrong, the fix
when the cause is known, and never a password."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from dbstor.engines.base import mask_dsn

_MEANINGFUL = re.compile(r"FATAL|PANIC|ERROR|error|Error|refused|denied|cannot|could not|Can't")
_KNOWN = (  # what a log line means -> the fix to name
    (
        "Address already in use",
        "the port is taken by another program: run again (dbstor picks a new port)",
    ),
    ("No space left on device", "the target is full: free space or choose another path"),
    ("Permission denied", "the server account cannot use that path: fix its permissions"),
    (
        "Cannot allocate memory",
        "not enough memory: lower the buffer size or raise the memory limit",
    ),
    ("Out of memory", "not enough memory: lower the buffer size or raise the memory limit"),
    ("Invalid argument", "the file system may not support O_DIRECT: choose another path"),
)


def last_line(text: str) -> str:
    """The line that says what went wrong (a known cause, else the last error line, else the
    last line), shortened, with the fix when the cause is known."""
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    if not lines:
        return "no output"
    for needle, fix in _KNOWN:
        found = next((ln for ln in reversed(lines) if needle in ln), None)
        if found:
            return f"{_short(found)}; {fix}"
    return _short(next((ln for ln in reversed(lines) if _MEANINGFUL.search(ln)), lines[-1]))


def _short(line: str) -> str:
    return line if len(line) <= 300 else line[:297] + "..."


def log_tail(path: Path) -> str:
    """last_line() of a log file's end, or 'no log' when there is none."""
    try:
        with path.open("rb") as handle:
            handle.seek(max(0, path.stat().st_size - 65536))
            return last_line(handle.read().decode(errors="replace"))
    except OSError:
        return "no log"


def hide(text: str, secrets: Sequence[str]) -> str:
    """One line of a message with DSN passwords masked and the given secrets removed."""
    line = (str(text).strip().splitlines() or [""])[0]
    for secret in secrets:
        if secret:
            line = line.replace(secret, "***")
    return mask_dsn(line)

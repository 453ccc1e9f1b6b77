"""Every value that goes into a fio job file passes here: escaped where fio has an escape,
refused in one line where it has none.

fio reads a job file line by line: `;` and `#` start a comment anywhere in a value, a newline
ends the option, `$` introduces `${ENV}` and the keywords `$ncpus`, `$mb_memory` and
`$pagesize` (fio substitutes and evaluates them), blanks around a value are dropped, and in
`filename=` a `:` separates names unless written `\\:`. A path fio would read differently
from the one dbstor checked would make fio write a file dbstor never looked at (a user's), and
a newline would let a name add options of its own (exec_prerun runs a shell command). So a
value must reach fio exactly as dbstor means it, or not at all.
"""

from __future__ import annotations

from pathlib import Path

from dbstor.errors import UserError

# What fio does with each character that has no escape in a job file.
_NO_ESCAPE = {
    ";": "starts a comment in fio's job file",
    "#": "starts a comment in fio's job file",
    "$": "makes fio substitute a variable or a keyword ($ncpus, ${HOME})",
    "\\": "is fio's escape character",
    "\n": "ends an option in fio's job file",
    "\r": "ends an option in fio's job file",
}


def _refusal(value: str, what: str) -> str | None:
    """Why fio cannot take value as written, or None when it can."""
    for char, reason in _NO_ESCAPE.items():
        if char in value:
            return f"{char!r} {reason}"
    control = next((c for c in value if ord(c) < 32 or ord(c) == 127), None)
    if control is not None:
        return f"the control character {control!r} cannot be written in fio's job file"
    if value != value.strip():
        return "fio drops blanks at the start and end of a value"
    if not value:
        return "fio needs a value"
    return None


def fio_value(value: object, what: str) -> str:
    """value as a job-file value; UserError naming `what`, the value and the character
    when fio would read it differently."""
    text = str(value)
    why = _refusal(text, what)
    if why is not None:
        raise UserError(
            f"{what} {text[:120]!r}: fio cannot take it ({why}); rename it without that "
            "character (dbstor refuses rather than let fio use another file or option)"
        )
    return text


def fio_path(path: Path | str, what: str) -> str:
    """One file name for filename=: refused as fio_value refuses, ':' escaped as '\\:'."""
    return fio_value(str(path), what).replace(":", "\\:")


def fio_paths(paths: tuple[Path, ...], what: str) -> str:
    """filename='s value for several files: each escaped, joined by fio's ':'."""
    return ":".join(fio_path(p, what) for p in paths)


def job_line(key: str, value: object) -> str:
    """One `key=value` line; the key is dbstor's own (a fio option name), the value is
    checked (a value from outside must be checked by its caller with a name for it)."""
    if not key.replace("_", "").isalnum():
        raise ValueError(f"not a fio option name: {key!r}")
    return f"{key}={fio_value(value, f'fio option {key}')}"

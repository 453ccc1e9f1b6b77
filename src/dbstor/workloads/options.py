"""Reading workload options (from --option KEY=VALUE or a study's options table): every
bad value is one line naming the workload, the option and what it must be."""

from __future__ import annotations

from typing import Any

from dbstor.errors import UserError

TRUE = ("1", "true", "yes", "on")
FALSE = ("0", "false", "no", "off", "")


def option_flag(workload: str, name: str, value: Any) -> bool:
    """true/false, yes/no, on/off, 1/0 (or a bool)."""
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in TRUE or text in FALSE:
        return text in TRUE
    raise UserError(f"{workload} option {name} must be true or false, not {value!r}")


def option_whole(workload: str, name: str, value: Any) -> int:
    """A whole number (a seed, a count)."""
    try:
        if isinstance(value, bool) or int(value) != float(value):
            raise ValueError
        return int(value)
    except (TypeError, ValueError, OverflowError):
        raise UserError(f"{workload} option {name} must be a whole number, not {value!r}") from None

"""An argument with a NUL byte (a path or a value no operating system takes) is refused
with one line naming it and its flag, status 2, before any command runs (the fuzz test of
the flags found `dbstor study F --shrink '\\x00'` ending in a traceback)."""

from __future__ import annotations

import pytest
from cli_calls import call_cli


@pytest.mark.parametrize(
    ("argv", "named"),
    [
        (["study", "s.toml", "--shrink", "\x00"], "--shrink: "),
        (["study", "s\x00.toml"], "the argument"),
        (["io", "--target", "a\x00b"], "--target: "),
        (["report", "run\x00"], "the argument"),
    ],
)
def test_a_nul_byte_is_refused_in_one_line_naming_where(argv, named):
    code, out, err = call_cli(argv)
    assert code == 2, (out, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "NUL byte" in lines[0] and named in lines[0], err
    assert "\x00" not in err  # shown escaped, the line stays printable

"""How the analysis commands (advise, tco) hand over a result: --html, --json or a table."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from typing import Any

from dbstor.errors import UserError
from dbstor.safefs import is_dbstor_html, write_file


def emit_result(
    args: argparse.Namespace,
    result: dict[str, Any],
    page: Callable[[], str],
    text: Callable[[], str],
) -> int:
    """Write --html FILE if asked, then --json or the text table on stdout."""
    if args.html:
        try:  # never through a link, never over a page dbstor did not write
            write_file(args.html, page(), is_dbstor_html, fix="give another --html file")
        except OSError as exc:
            raise UserError(f"--html {args.html}: cannot write it ({exc.strerror})") from None
    if args.json:
        json.dump(result, sys.stdout, indent=2, allow_nan=False)
        sys.stdout.write("\n")
    else:
        sys.stdout.write(text())
    return 0

"""dbstor serve: a results folder's index and reports over HTTP, on 127.0.0.1 by default."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from dbstor.commands.flagtypes import PORT
from dbstor.commands.index import write_index
from dbstor.errors import UserError


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "serve",
        help="serve a results folder's index and reports over HTTP (127.0.0.1 by default)",
        description=(
            "Serve RESULTS_DIR read-only over HTTP: the index (rebuilt on each visit, reading "
            "only new or changed runs), every report, and the comparison of runs chosen on the "
            "index page. Listens on 127.0.0.1 unless --address says otherwise; anyone who can "
            "reach another address can read every result in the folder."
        ),
        epilog="example: dbstor serve results/ --port 8470",
    )
    parser.add_argument("results_dir", type=Path, metavar="RESULTS_DIR", help="the folder to serve")
    parser.add_argument(
        "--port", type=PORT, default=8470, help="TCP port (default 8470; 0: any free one)"
    )
    parser.add_argument(
        "--address",
        default="127.0.0.1",
        help="address to listen on (default 127.0.0.1; another one makes the results readable "
        "by whoever reaches it)",
    )
    parser.set_defaults(handler=run)


def warning_for(address: str) -> str | None:
    """What a listener on `address` must be warned of (None on loopback)."""
    from dbstor.catalog.server import is_loopback

    if is_loopback(address):
        return None
    return (
        f"warning: listening on {address}: anyone who reaches it can read every result in "
        "the folder (no password, no TLS)"
    )


def run(args: argparse.Namespace) -> int:
    # imported when the command runs, not by `dbstor --help`
    from dbstor.catalog.server import close, serve

    root = args.results_dir
    try:  # bound first: an address refused leaves no index behind
        server = serve(root, args.address, args.port, lambda: write_index(root))
    except OSError as exc:
        raise UserError(
            f"cannot listen on {args.address}:{args.port} ({exc.strerror}): choose another "
            "--port or --address"
        ) from None
    except (TypeError, ValueError):  # not a host name at all: b'\x80', an embedded NUL
        raise UserError(
            f"--address {args.address!r} is not an address or host name: give one such as 127.0.0.1"
        ) from None
    try:
        write_index(root)
        host, port = server.server_address[:2]
        said = warning_for(args.address)
        if said:
            print(said, file=sys.stderr)
        print(
            f"serving {root} at http://{host}:{port}/ (Ctrl-C stops)", file=sys.stderr, flush=True
        )
        server.serve_forever()
    finally:
        close(server)
    return 0

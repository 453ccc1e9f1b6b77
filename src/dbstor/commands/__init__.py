"""One module per dbstor subcommand; each defines register(subparsers) and a handler."""

"""`python -m dbstor`: the same command line as the `dbstor` script."""

from dbstor.cli import main

raise SystemExit(main())

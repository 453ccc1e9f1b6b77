from dbstor.cli import main

raise SystemExit(main())

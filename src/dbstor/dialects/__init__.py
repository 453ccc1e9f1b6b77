"""What differs between the SQL dialects, one package per dialect (sqlglot's shape).

Each dialect package's `__init__` holds a `Dialect` subclass with every difference that
is not one workload's own (types, DDL, placeholders, locking reads, transactions,
statement timeouts, bulk load, statistics); a workload's own SQL on a dialect is the
submodule `dbstor.dialects.<dialect>.<workload>`. Workloads and drivers ask
`registry.get(name)` for a dialect and `Dialect.part(workload)` for its SQL; a workload
runs on the dialects that have its part. Nothing outside engines/ and this package
branches on a dialect's or engine's name (tests/unit/test_dialects.py).
"""

"""Query runs: TPC-H-like query streams as power and throughput runs (checks, prepare,
point, worker, summary, run)."""

"""io runs: fio at rising load points on a target (plan, prepare, point, worker, summary, run)."""

"""Database runs: virtual users on real database instances at rising load points (plan,
point, worker, summary, run)."""

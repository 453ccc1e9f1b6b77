"""Drivers: what puts load on the target (fio jobs now; database virtual users later)."""

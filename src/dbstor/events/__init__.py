"""Events at a time inside a point: what each kind does (actions), when (schedule), and
what the load felt (impact)."""

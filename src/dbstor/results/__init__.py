"""Results: the versioned model of a run, its atomic store and its loader."""

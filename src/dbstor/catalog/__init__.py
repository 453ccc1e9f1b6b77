"""Many runs in one place: the index of a results folder, trends and their steps, the
regression gate, SQL export and the read-only server."""

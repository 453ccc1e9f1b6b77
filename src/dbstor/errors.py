"""Two kinds of failure: the user's (bad input, exit 2, one clear line) and ours (a bug).

Only cli.py maps these to exit codes; everything else raises.
"""


class UserError(Exception):
    """Bad input or an unusable environment: one line naming the problem and the fix."""

    exit_code = 2


class PointFailed(Exception):
    """A load point could not finish (the engine died, the disk filled up).

    Finished points stay on disk; the run ends with a non-zero status.
    """

"""Two kinds of failure: the user's (bad input, exit 2, one clear line) and ours (a bug).

Only cli.py maps these to exit codes; everything else raises.
"""

_stopped_by: list[int] = []  # the signal (SIGTERM, SIGHUP) that stopped this run, if one did


def note_stop_signal(signum: int) -> None:
    """Remember the first stop signal (cli.py's handler), for the exit status and words."""
    if not _stopped_by:
        _stopped_by.append(signum)


def stop_signal() -> int | None:
    """The stop signal that came, if one did."""
    return _stopped_by[0] if _stopped_by else None


def forget_stop_signal() -> None:
    _stopped_by.clear()


def interruption() -> tuple[int, str]:
    """How the run was interrupted: exit status (128 + the signal) and a name for it
    ("Ctrl-C", "SIGTERM", "SIGHUP")."""
    import signal

    signum = _stopped_by[0] if _stopped_by else signal.SIGINT
    name = "Ctrl-C" if signum == signal.SIGINT else signal.Signals(signum).name
    return 128 + signum, name


class UserError(Exception):
    """Bad input or an unusable environment: one line naming the problem and the fix."""

    exit_code = 2


class PointFailed(Exception):
    """A load point could not finish (the engine died, the disk filled up).

    Finished points stay on disk; the run ends with a non-zero status.
    """


_FULL_WORDS = (
    "no space left on device",  # the OS's ENOSPC, as drivers and DuckDB quote it
    "database or disk is full",  # SQLite
    "disk full",
    "got error 28",  # MariaDB/MySQL: errno 28 from the storage engine
    "is full",  # MariaDB/MySQL 1114: the table 'x' is full
)


def is_disk_full(exc: BaseException) -> bool:
    """Whether an exception from the OS or a database driver means a full file system
    (ENOSPC or EDQUOT; PostgreSQL's SQLSTATE 53100; the messages SQLite, MariaDB and DuckDB
    give), so that a caller can say so in one line instead of a traceback."""
    import errno

    if isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return True
    if getattr(exc, "sqlstate", None) == "53100":
        return True
    text = str(exc).lower()
    return any(words in text for words in _FULL_WORDS)

"""dbstor: run storage vendors' database studies on your own storage."""

__version__ = "0.1.0"

# Before anything else is imported: a stop signal while the command starts ends it with
# one line and 128 + the signal (stopsignals.py); only in the dbstor process itself.
from dbstor import stopsignals as _stopsignals

if _stopsignals.running_as_command():
    _stopsignals.exit_at_once()

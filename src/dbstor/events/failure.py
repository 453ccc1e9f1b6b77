"""The one error of an event occurrence that could not be started or undone."""


class EventFailed(Exception):
    """An occurrence could not be started or undone; the message says why."""

"""dbstor: run storage vendors' database studies on your own storage."""

__version__ = "0.1.0"

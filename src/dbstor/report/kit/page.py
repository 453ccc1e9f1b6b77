"""A standalone page around one report section (dbstor advise --html, dbstor tco --html)."""

from __future__ import annotations

from html import escape


def standalone_page(title: str, css: str, section: str) -> str:
    """A small self-contained HTML page around one report section, to forward by mail."""
    return (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        f'<meta name="generator" content="dbstor"><title>{escape(title)}'
        f"</title><style>{css}</style></head><body><h1>{escape(title)}</h1>"
        f"{section}</body></html>\n"
    )

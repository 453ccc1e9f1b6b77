"""The report printed to PDF by headless Chromium: the same document, page breaks
between its sections (the stylesheet's print rules), no chart cut across pages."""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path

from dbstor.errors import UserError
from dbstor.safefs import write_file

PDF_FILE = "report.pdf"
_BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
_TIMEOUT_S = 180


def find_chromium() -> str | None:
    """The headless browser to print with, or None when none is installed."""
    return next((path for name in _BROWSERS if (path := shutil.which(name))), None)


def write_pdf(html_path: Path) -> Path:
    """Print html_path to report.pdf beside it; returns the PDF's path.

    Raises UserError naming the package when no Chromium is installed or it fails."""
    html_path = Path(html_path).resolve()
    browser = find_chromium()
    if browser is None:
        raise UserError("--pdf needs headless Chromium: install the chromium package")
    out = html_path.with_name(PDF_FILE)
    with tempfile.TemporaryDirectory(prefix="dbstor-pdf-") as scratch:
        profile = Path(scratch) / "profile"
        partial = Path(scratch) / PDF_FILE  # Chromium writes in dbstor's private scratch
        command = [
            browser,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--no-first-run",
            f"--user-data-dir={profile}",
            "--no-pdf-header-footer",
            f"--print-to-pdf={partial}",
            html_path.as_uri(),
        ]
        try:
            done = subprocess.run(command, capture_output=True, timeout=_TIMEOUT_S, check=False)
        except subprocess.TimeoutExpired:
            raise UserError(
                f"{browser} did not print {html_path.name} within {_TIMEOUT_S} s"
            ) from None
        if done.returncode != 0 or not partial.is_file() or partial.stat().st_size == 0:
            tail = done.stderr.decode(errors="replace").strip().splitlines()[-1:] or ["no message"]
            raise UserError(f"{browser} could not print {html_path.name} to PDF: {tail[0]}")
        # never through a link, never over a PDF dbstor did not write
        write_file(out, partial.read_bytes(), fix="render into another folder")
    return out

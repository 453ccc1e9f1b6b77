"""Dropping a database's files from the host's page cache, so that a cold point starts
with nothing of them cached (Engine.drop_cache after a restart)."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class CacheDrop:
    """What dropping a database's files from the host's page cache did."""

    files: int = 0  # files whose cached pages were dropped
    bytes: int = 0  # their size
    failed: dict[str, int] = field(default_factory=dict)  # reason -> files not dropped

    @property
    def note(self) -> str | None:
        """One line for the run notes when some files could not be dropped, else None."""
        if not self.failed:
            return None
        count = sum(self.failed.values())
        why = "; ".join(f"{reason} ({n} files)" for reason, n in self.failed.items())
        return (
            f"{count} of {count + self.files} database files could not be dropped from the page "
            f"cache: {why}; their pages may still be served from memory"
        )


def _files_under(paths: Iterable[Path]) -> Iterator[Path]:
    """Regular files at or under `paths`, each once; symbolic links are not followed."""
    seen: set[tuple[int, int]] = set()
    for path in paths:
        candidates: Iterable[Path]
        if path.is_dir() and not path.is_symlink():
            candidates = (
                Path(root, name) for root, _, names in os.walk(path) for name in sorted(names)
            )
        else:
            candidates = [path]
        for candidate in candidates:
            try:
                st = candidate.lstat()
            except OSError:
                continue  # gone since it was listed
            if candidate.is_symlink() or not candidate.is_file():
                continue
            if (st.st_dev, st.st_ino) not in seen:
                seen.add((st.st_dev, st.st_ino))
                yield candidate


def drop_page_cache(paths: Iterable[str | os.PathLike[str]]) -> CacheDrop:
    """Write back and drop from the host's page cache every regular file at or under
    `paths` (fdatasync, then posix_fadvise POSIX_FADV_DONTNEED), so that the next reads go
    to the storage. Pages a process has mapped stay; an array's own cache is not touched.
    Never raises: what could not be dropped is counted by reason."""
    out = CacheDrop()
    files = list(_files_under(Path(p) for p in paths))
    if not hasattr(os, "posix_fadvise"):
        if files:
            out.failed["this platform has no posix_fadvise"] = len(files)
        return out
    for file in files:
        try:
            fd = os.open(file, os.O_RDONLY)
        except OSError as exc:
            reason = exc.strerror or type(exc).__name__
            out.failed[reason.lower()] = out.failed.get(reason.lower(), 0) + 1
            continue
        try:
            with contextlib.suppress(OSError):
                os.fdatasync(fd)  # dirty pages are not dropped: write them back first
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
            out.files += 1
            out.bytes += os.fstat(fd).st_size
        except OSError as exc:
            reason = (exc.strerror or type(exc).__name__).lower()
            out.failed[reason] = out.failed.get(reason, 0) + 1
        finally:
            os.close(fd)
    return out

"""The memory flags of a managed server (--buffer, --memory-limit): how they are said back,
and the values no server can start with, refused naming the flag and a value that works."""

from __future__ import annotations

import contextlib
from pathlib import Path

from dbstor.engines.base import EngineSettings
from dbstor.errors import UserError
from dbstor.units import format_size

SERVER_DEFAULT_BUFFER = 32 << 20  # PostgreSQL's and MariaDB's buffer without --buffer
SERVER_HEADROOM = 64 << 20  # beside the buffer: the server's processes and its page cache
MIN_MEMORY_LIMIT = SERVER_DEFAULT_BUFFER + SERVER_HEADROOM  # 96 MiB: the smallest that runs


def host_memory_bytes() -> int | None:
    """MemTotal of /proc/meminfo (None when unreadable)."""
    with contextlib.suppress(OSError, ValueError, IndexError):
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                return int(line.split()[1]) * 1024
    return None


def memory_flags(settings: EngineSettings) -> str:
    """'--buffer 1.0 GiB --memory-limit 2.0 GiB' for the memory settings given, or ''."""
    parts = []
    if settings.buffer_bytes:
        parts.append(f"--buffer {format_size(settings.buffer_bytes)}")
    if settings.memory_limit_bytes:
        parts.append(f"--memory-limit {format_size(settings.memory_limit_bytes)}")
    return " ".join(parts)


def _example(n_bytes: int) -> str:
    """A round size at most n_bytes (a power of two MiB), as a flag takes it: '2048MiB'."""
    mib = max(1, n_bytes >> 20)
    return f"{1 << (mib.bit_length() - 1)}MiB"


def check_buffer_fits_host(buffer: int | None, cap: int | None = None) -> None:
    """A buffer (a server's, or an embedded engine's cache) of at least the host's memory
    is refused: it would never be filled, and the report would state it as the cache; so is
    a memory cap above the host's memory, which would cap nothing."""
    memory = host_memory_bytes()
    if cap is not None and memory is not None and cap > memory:
        raise UserError(
            f"--memory-limit {format_size(cap)} is more than this host's memory "
            f"({format_size(memory)}), so it caps nothing: give less, e.g. --memory-limit "
            f"{_example(memory // 2)}, or drop it"
        )
    if buffer is not None and memory is not None and buffer >= memory:
        raise UserError(
            f"--buffer {format_size(buffer)} is more than this host's memory "
            f"({format_size(memory)}): give less than that, e.g. --buffer {_example(memory // 8)}"
        )


def check_memory_flags(
    title: str, settings: EngineSettings, headroom: int = SERVER_HEADROOM
) -> None:
    """Refuse, naming the flag and a value that works, memory settings no server can run
    with: a cap below its buffer (--buffer, else 32 MiB) plus the engine's headroom for its
    processes and page cache (PostgreSQL 64 MiB: under that it is killed by the cap at one
    user), a buffer larger than the host's memory or than the cap."""
    buffer, cap = settings.buffer_bytes, settings.memory_limit_bytes
    check_buffer_fits_host(buffer, cap)
    if buffer is not None and cap is not None and buffer >= cap:
        raise UserError(
            f"--buffer {format_size(buffer)} does not fit in --memory-limit {format_size(cap)}: "
            f"give a buffer under the limit, e.g. --buffer {_example(cap // 4)}"
        )
    used = buffer or SERVER_DEFAULT_BUFFER
    least = used + headroom
    if cap is not None and cap < least:
        raise UserError(
            f"--memory-limit {format_size(cap)} is too small for a {title} server: give at "
            f"least {format_size(least)} (its buffer of {format_size(used)} + "
            f"{format_size(headroom)} for its processes), e.g. --memory-limit "
            f"{-(-least >> 20)}MiB"
        )


# an embedded engine's cap (the database's share beside its client processes' own memory):
# the smallest measured to run. SQLite: 1 MiB was killed by the cap at 2 users, 4 and 8 MiB
# at 8 users, 16 MiB ran 8 users and the capped query test; DuckDB: 48 MiB ran TPC-H at
# scale 0.5 (docs/dss.md), its own limit being at least 16 MiB under the cap.
EMBEDDED_MIN_LIMIT = {"sqlite": 16 << 20, "duckdb": 48 << 20}


def check_embedded_cap(name: str, title: str, limit: int | None) -> None:
    """Refuse, before anything starts, a cap an embedded engine cannot run under."""
    least = EMBEDDED_MIN_LIMIT.get(name)
    if limit is not None and least is not None and limit < least:
        raise UserError(
            f"--memory-limit {format_size(limit)} is too small for {title}: give at least "
            f"{format_size(least)}, e.g. --memory-limit {least >> 20}MiB"
        )

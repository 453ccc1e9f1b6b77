"""The compressors an estimate can use (lz4, zstd) and the block fingerprint.

lz4 and zstandard are the optional 'efficiency' extra; without them the command says how to
install them. Both release the GIL while they compress. Fingerprints use xxhash when it is
installed, else SHA-1 from hashlib (which uses the CPU's SHA instructions where present and
measured faster than BLAKE2 here); 64 bits of the digest are kept.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable

from dbstor.errors import UserError

INSTALL_HINT = "pip install 'dbstor[efficiency]'"
DEFAULT_ZSTD_LEVEL = 3
COMPRESSORS = ("lz4", "zstd")


def parse_compressor(text: str) -> str:
    """'lz4', 'zstd' or 'zstd:N' (level 1..19) -> canonical name. ValueError otherwise."""
    name = text.strip().lower()
    if name == "lz4":
        return "lz4"
    if name == "zstd":
        return f"zstd:{DEFAULT_ZSTD_LEVEL}"
    if name.startswith("zstd:"):
        level = name[5:]
        if level.isdigit() and 1 <= int(level) <= 19:
            return f"zstd:{int(level)}"
    raise ValueError(f"unknown compressor {text!r}; use lz4, zstd or zstd:LEVEL (1..19)")


def short_name(name: str) -> str:
    """'zstd:3' -> 'zstd'."""
    return name.split(":", 1)[0]


def check_available() -> None:
    """Raise UserError naming the install command if lz4 or zstandard is missing."""
    missing = []
    try:
        import lz4.block  # noqa: F401
    except ImportError:
        missing.append("lz4")
    try:
        import zstandard  # noqa: F401
    except ImportError:
        missing.append("zstandard")
    if missing:
        raise UserError(
            f"dbstor efficiency needs the Python packages {' and '.join(missing)}; "
            f"install them with: {INSTALL_HINT}"
        )


def make_compressor(name: str) -> Callable[[bytes], int]:
    """A function returning the compressed length of its input (raw block, no frame extras)."""
    check_available()
    if name == "lz4":
        import lz4.block

        compress = lz4.block.compress

        def lz4_len(data: bytes) -> int:
            return len(compress(data, store_size=False))

        return lz4_len
    if name.startswith("zstd:"):
        import zstandard

        level = int(name.split(":", 1)[1])
        compressor = zstandard.ZstdCompressor(
            level=level, write_checksum=False, write_content_size=False, write_dict_id=False
        )
        zcompress = compressor.compress

        def zstd_len(data: bytes) -> int:
            return len(zcompress(data))

        return zstd_len
    raise ValueError(f"unknown compressor {name!r}")


def make_fingerprint() -> tuple[str, Callable[[bytes], int]]:
    """(name, function) giving a 64-bit fingerprint of a block."""
    try:
        import xxhash  # type: ignore[import-not-found]

        return "xxh3_64", xxhash.xxh3_64_intdigest
    except ImportError:
        pass
    sha1 = hashlib.sha1
    from_bytes = int.from_bytes

    def sha1_64(data: bytes) -> int:
        return from_bytes(sha1(data).digest()[:8], "little")

    return "sha1/64", sha1_64

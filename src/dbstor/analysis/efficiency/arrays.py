"""Array models as data: how an array stores deduplicated, compressed blocks.

A model says three things: the size of the blocks it fingerprints for deduplication, the
size of the compression groups it compresses as one piece, and the sizes a compressed group
may occupy on disk (its "buckets"). A compressed group is stored in the smallest bucket that
holds it; if none does, it is stored uncompressed. So an 8 KiB group stored in 4 KiB blocks
never saves more than 2:1, and a 32 KiB group never more than 8:1, whatever the compressor.

Every preset names the source of its numbers (see docs/efficiency.md).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from dbstor.units import parse_size

KIB = 1024


@dataclass(frozen=True)
class ArrayModel:
    """How one array stores data: fingerprint block, compression group, buckets."""

    name: str
    block: int  # allocation unit: compressed groups round up to whole blocks
    dedup_block: int  # size of the blocks fingerprinted for deduplication
    group: int | None  # compression group; None = the array does not compress
    buckets: tuple[int, ...] = ()  # allowed stored sizes, ascending; empty = multiples of block
    description: str = ""
    source: str = ""
    extra: dict[str, str] = field(default_factory=dict)

    @property
    def compresses(self) -> bool:
        return self.group is not None

    def stored_size(self, compressed: int, length: int, group: int | None = None) -> int:
        """Bytes a group of `length` bytes takes when it compresses to `compressed` bytes.

        `group` is the group size this length belongs to (default: the model's own); the
        model's buckets apply to its own group size, other sizes round up to whole blocks.
        """
        own = group is None or group == self.group
        whole = self.uncompressed_size(length, group)
        if own and self.buckets:
            for bucket in self.buckets:
                if compressed <= bucket and bucket < length:
                    return bucket
            return whole
        return min(_round_up(compressed, self.block), whole)

    def uncompressed_size(self, length: int, group: int | None = None) -> int:
        """Bytes a group of `length` bytes takes stored as it is: what compression is set
        against, so that a short group (a small file's tail) that takes a whole block either
        way never reads as compression below 1:1."""
        own = group is None or group == self.group
        if own and self.buckets and self.block > length:
            return length
        return _round_up(length, self.block)

    def to_dict(self) -> dict[str, object]:
        return {
            "name": self.name,
            "block": self.block,
            "dedup_block": self.dedup_block,
            "group": self.group,
            "buckets": list(self.buckets) or None,
            "compresses": self.compresses,
            "description": self.description,
            "source": self.source,
        }


def _round_up(n: int, unit: int) -> int:
    return -(-n // unit) * unit


PRESETS: dict[str, ArrayModel] = {
    "ontap-adaptive": ArrayModel(
        name="ontap-adaptive",
        block=4 * KIB,
        dedup_block=4 * KIB,
        group=8 * KIB,
        description=(
            "NetApp ONTAP inline (adaptive) compression: 8 KiB compression groups stored in "
            "4 KiB WAFL blocks (at most 2:1 per group), inline zero-block detection, 4 KiB "
            "deduplication: the inline compression behind the TR-4403 and TR-4415 figures."
        ),
        source=(
            "NetApp ONTAP docs, 'Compression' concept page (compression groups stored as "
            "blocks); AWS FSx for ONTAP user guide, 'Managing storage efficiency' (ONTAP "
            "organises files in 4 KB blocks, deduplicates 4 KB at a time, compresses inline "
            "with 8 KB compression groups)"
        ),
    ),
    "ontap-secondary": ArrayModel(
        name="ontap-secondary",
        block=4 * KIB,
        dedup_block=4 * KIB,
        group=32 * KIB,
        description=(
            "NetApp ONTAP secondary compression / inactive-data compression: 32 KiB "
            "compression groups stored in 4 KiB blocks (at most 8:1 per group), 4 KiB "
            "deduplication; more savings, more CPU, meant for sequential or cold data."
        ),
        source=(
            "NetApp ONTAP docs, 'Move between secondary compression and adaptive "
            "compression'; AWS FSx for ONTAP user guide (32 KB compression groups for "
            "inactive data compression)"
        ),
    ),
    "generic-4k-dedup": ArrayModel(
        name="generic-4k-dedup",
        block=4 * KIB,
        dedup_block=4 * KIB,
        group=None,
        description=(
            "A generic block array that deduplicates 4 KiB blocks and removes zero blocks "
            "but does not compress."
        ),
        source="dbstor convention (4 KiB is the common dedup block of flash arrays)",
    ),
    "xtremio-x2": ArrayModel(
        name="xtremio-x2",
        block=1 * KIB,
        dedup_block=16 * KIB,
        group=16 * KIB,
        buckets=tuple(k * KIB for k in range(1, 17) if k != 14),
        description=(
            "Dell EMC XtremIO X2: 16 KiB blocks, deduplicated and compressed as one, stored "
            "in buckets of 1 KiB to 16 KiB in 1 KiB steps without 14 KiB. Lets dbstor's "
            "figures be set beside qdda's default array."
        ),
        source="qdda manual (bsjerps/qdda, doc/qdda.md, section STORAGE ARRAYS)",
    ),
}

DEFAULT_ARRAY = "ontap-adaptive"
_CUSTOM_KEYS = ("block", "group", "dedup", "buckets")


def resolve_array(spec: str) -> ArrayModel:
    """'ontap-adaptive' or 'custom:block=4K,group=32K[,dedup=4K][,buckets=1K/2K/4K]'.

    Raises ValueError with a message that lists what is allowed.
    """
    text = spec.strip()
    if text in PRESETS:
        return PRESETS[text]
    if not text.startswith("custom:"):
        names = ", ".join(PRESETS)
        raise ValueError(f"unknown array {spec!r}; use one of {names} or custom:block=4K,group=32K")
    fields: dict[str, str] = {}
    for part in text[len("custom:") :].split(","):
        if not part.strip():
            continue
        key, sep, value = part.partition("=")
        key = key.strip().lower()
        if not sep or key not in _CUSTOM_KEYS:
            raise ValueError(
                f"bad array field {part!r} in {spec!r}; use block=, group=, dedup=, buckets= "
                "(e.g. custom:block=4K,group=32K)"
            )
        if key in fields:
            raise ValueError(f"{spec!r}: {key}= is given twice; give each field once")
        fields[key] = value.strip()
    if "block" not in fields:
        raise ValueError(f"{spec!r}: a custom array needs block= (e.g. custom:block=4K,group=32K)")
    block = _size(fields["block"], spec)
    group_text = fields.get("group", "none")
    group = None if group_text.lower() in ("none", "0", "off") else _size(group_text, spec)
    dedup = _size(fields["dedup"], spec) if "dedup" in fields else block
    buckets: tuple[int, ...] = ()
    if "buckets" in fields:
        if group is None:
            raise ValueError(f"{spec!r}: buckets= needs a compression group (group=)")
        buckets = tuple(sorted({_size(b, spec) for b in fields["buckets"].split("/") if b}))
        if not buckets or buckets[-1] > group:
            raise ValueError(f"{spec!r}: buckets must be sizes up to the group size, like 1K/2K/4K")
    if group is not None:
        if group % dedup:
            raise ValueError(f"{spec!r}: the group size must be a multiple of the dedup block")
        if not buckets and group % block:
            raise ValueError(f"{spec!r}: the group size must be a multiple of the block size")
    if dedup > 1024 * KIB or (group or 0) > 1024 * KIB:
        raise ValueError(f"{spec!r}: block and group sizes are limited to 1 MiB")
    return ArrayModel(
        name=text,
        block=block,
        dedup_block=dedup,
        group=group,
        buckets=buckets,
        description="custom array given on the command line",
        source="user input",
    )


def _size(text: str, spec: str) -> int:
    try:
        value = parse_size(text)
    except ValueError as exc:
        raise ValueError(f"{spec!r}: {exc}") from None
    if value < 512 or value % 512:
        raise ValueError(f"{spec!r}: {text!r} must be a multiple of 512 bytes (e.g. 4K)")
    return value

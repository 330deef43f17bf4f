"""A `.pyc` header of a wheel (its flavor, PEP 552) and the source it stands for. Apart from `k3diff.wheel.surfaces`,
which every run imports, as only a wheel that ships bytecode builds one."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum


class PycFlavor(StrEnum):
    """How the import system decides whether a `.pyc` is current (PEP 552)."""

    TIMESTAMP = "timestamp"
    CHECKED_HASH = "checked-hash"
    UNCHECKED_HASH = "unchecked-hash"
    UNKNOWN = "unknown"


@dataclass(frozen=True)
class Bytecode:
    """A `.pyc` header and the source it stands for."""

    magic: str
    """The first four bytes, hex (names the Python version that wrote it)."""
    flavor: PycFlavor
    """Timestamp, checked hash or unchecked hash."""
    source: str | None
    """The archive path of the source it caches, None when the wheel holds no such source."""
    shadows_source: bool
    """True when the import system would run it instead of the wheel's source: an unchecked
    hash, or a checked hash that is the source's hash, whatever the code inside."""
    code_sha256: str | None = None
    """SHA-256 of a timestamp `.pyc`'s code (everything after its 16-byte header), so a rebuild
    that only restamps the header (the source's mtime and size) is not a bytecode change;
    None for other flavors, or one too large or unreadable."""
    stamp: int | None = field(default=None, compare=False)
    """A timestamp `.pyc`'s header mtime (the source mtime it is current for); None for other
    flavors. Not compared: a restamped header alone is no bytecode change (`code_sha256`)."""

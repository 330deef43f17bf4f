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


FLAVORS = {0: PycFlavor.TIMESTAMP, 1: PycFlavor.UNCHECKED_HASH, 3: PycFlavor.CHECKED_HASH}
"""A `.pyc` header's PEP 552 flags and the flavor they say (any other flags: UNKNOWN)."""


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
    stamped_size: int | None = field(default=None, compare=False)
    """A timestamp `.pyc`'s header source size (the size, mod 2**32, of the source it is
    current for); None for other flavors. Not compared, as `stamp`."""
    source_size: int | None = field(default=None, compare=False)
    """The size the wheel declares for `source` (what an install writes), None without one."""
    source_key: str | None = field(default=None, compare=False)
    """The installed path of the source it stands for (`source`'s when the wheel holds it, in
    the case the file system finds it in: `surfaces.source_of`)."""

    @property
    def never_current(self) -> bool:
        """A timestamp pyc whose header's source size is not its source's: the import system
        checks the size beside the mtime, so no install, whatever mtime it gives the source,
        makes it current (`stale_header`)."""
        return self.flavor is PycFlavor.TIMESTAMP and stale_header(
            self.stamped_size, self.source_size
        )


def stale_header(stamped_size: int | None, source_size: int | None) -> bool:
    """A timestamp pyc header's source size that the source it caches can never match: both
    known and different (mod 2**32, as CPython compares them). A header whose size matches is
    current for any install that stamps the source with the header's mtime: an unzip (the
    entry's date in the local zone, or its extended-timestamp field) or uv, which installs every file with the time it first
    unpacked the wheel into its cache, a time an attacker can predict and the run's clock
    cannot rule out."""
    return (
        stamped_size is not None and source_size is not None and stamped_size != source_size % 2**32
    )

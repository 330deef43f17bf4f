"""The inflate library `ZipArchive` streams with: ISA-L (`isal`) where it is installed, which is
several times faster than zlib, and zlib otherwise; CRC-32 likewise; and the one-step sniff of
an entry's first content bytes."""

from __future__ import annotations

import zlib
from typing import Any, Protocol

from k3diff.zip.directory import DEFLATED, STORED, ZipEntry

SNIFF_INPUT = 4096
"""Compressed bytes read to sniff content magic: a deflate block header is under 1 KiB, so
this always yields the first few dozen content bytes."""

_fast_zlib: Any
try:  # ISA-L inflate is much faster; releases the GIL like zlib does.
    from isal import isal_zlib as _fast_zlib

    INFLATE_LIBRARY = "isal"
    _crc32 = _fast_zlib.crc32  # several times faster than zlib's on large chunks
    INFLATE_ERRORS: tuple[type[Exception], ...] = (zlib.error, _fast_zlib.error)
except ImportError:  # pragma: no cover - depends on the platform
    _fast_zlib = None
    INFLATE_LIBRARY = "zlib"
    _crc32 = zlib.crc32
    INFLATE_ERRORS = (zlib.error,)


class Decompressor(Protocol):
    """The part of zlib's decompressobj that streaming inflate uses."""

    def decompress(self, data: bytes | memoryview, max_length: int = ...) -> bytes: ...

    @property
    def unconsumed_tail(self) -> bytes: ...

    @property
    def eof(self) -> bool: ...

    @property
    def unused_data(self) -> bytes: ...


class _Crc32(Protocol):
    def __call__(self, data: bytes | memoryview, value: int = 0, /) -> int: ...


crc32: _Crc32 = _crc32
"""CRC-32 of `data` (continuing from `value`) with the fastest installed library: its C function
itself, with no call of ours around it (it runs once for every entry of a wheel)."""


def new_decompressor() -> Decompressor:
    """A raw-deflate inflater of the fastest installed library."""
    module: Any = _fast_zlib if _fast_zlib is not None else zlib
    decompressor: Decompressor = module.decompressobj(-15)
    return decompressor


def sniff(entry: ZipEntry, raw: bytes | memoryview, size: int) -> bytes:
    """The first `size` content bytes from the first raw bytes of a stored or deflated entry."""
    if entry.method == STORED:
        return bytes(raw[:size])
    # zlib, not ISA-L: for a few dozen bytes the cost is setting up the inflater, and zlib's is
    # half of ISA-L's (this runs for thousands of entries whose path says nothing).
    try:
        return zlib.decompressobj(-15).decompress(raw, size)
    except zlib.error:
        return b""


def sniffable(entry: ZipEntry) -> bool:
    """Whether the entry's first content bytes can be sniffed: stored or deflated, not
    encrypted, not empty (any other entry sniffs as b"")."""
    return not entry.flags & 0x1 and entry.method in (STORED, DEFLATED) and entry.size > 0


def head_from_data(entry: ZipEntry, data: bytes | memoryview, size: int) -> bytes:
    """`ZipArchive.head` from `data`, the entry's compressed bytes from their start (at least
    `SNIFF_INPUT` of them, or all): what a proof already read, sniffed without another read."""
    if not sniffable(entry):
        return b""
    return sniff(entry, data[:SNIFF_INPUT], size)

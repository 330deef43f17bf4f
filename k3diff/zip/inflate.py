"""The inflate library `ZipArchive` streams with: ISA-L (`isal`) where it is installed, which is
several times faster than zlib, and zlib otherwise; CRC-32 likewise; and the one-step sniff of
an entry's first content bytes."""

from __future__ import annotations

import zlib
from collections.abc import Callable, Iterable, Iterator
from typing import Any, Protocol

from k3diff.zip.directory import DEFLATED, STORED, ZipEntry

SNIFF_INPUT = 4096
"""Compressed bytes read to sniff content magic: a deflate block header is under 1 KiB, so
this yields the first few dozen content bytes of any stream a zip tool writes; one that gives
fewer (led by empty stored blocks) is inflated on (`sniff_on`)."""

_fast_zlib: Any
_igzip: Any
try:  # ISA-L inflate is much faster; releases the GIL like zlib does.
    from isal import igzip_lib as _igzip
    from isal import isal_zlib as _fast_zlib

    INFLATE_LIBRARY = "isal"
    _crc32 = _fast_zlib.crc32  # several times faster than zlib's on large chunks
    INFLATE_ERRORS: tuple[type[Exception], ...] = (zlib.error, _fast_zlib.error)
    _WHOLE_ERRORS: tuple[type[Exception], ...] = (*INFLATE_ERRORS, _igzip.IsalError)
except ImportError:  # pragma: no cover - depends on the platform
    _fast_zlib = _igzip = None
    INFLATE_LIBRARY = "zlib"
    _crc32 = zlib.crc32
    INFLATE_ERRORS = _WHOLE_ERRORS = (zlib.error,)


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


def whole_content(
    method: int, raw: bytes | memoryview, size: int, with_crc: bool
) -> tuple[bytes, int | None] | None:
    """The content of `raw`, a whole stored or deflated stream, in one step, and its CRC-32 when
    `with_crc` (else None); None unless the stream ends exactly at the end of `raw` and the
    content is exactly `size` bytes (a streaming read then says what is wrong). At most
    `size` + 1 bytes are inflated: a deflate bomb cannot make it allocate more.

    With ISA-L this is igzip's own inflater, the engine `isal_zlib` wraps: the CRC-32 is
    computed while inflating (`DECOMP_GZIP_NO_HDR`: raw deflate, no header or trailer read), and
    it costs about a tenth fewer instructions than `isal_zlib`'s decompressobj plus a separate
    `crc32` on a wheel's small entries."""
    if method == STORED:
        if len(raw) != size:
            return None
        data = bytes(raw)
        return data, crc32(data) if with_crc else None
    if _igzip is None:  # pragma: no cover - depends on the platform
        return _whole_zlib(raw, size, with_crc)
    flag = _igzip.DECOMP_GZIP_NO_HDR if with_crc else _igzip.DECOMP_DEFLATE
    decompressor = _igzip.IgzipDecompressor(flag)
    try:
        out = decompressor.decompress(raw, size + 1)
    except _WHOLE_ERRORS:
        return None
    if not decompressor.eof or decompressor.unused_data or len(out) != size:
        return None
    return out, int(decompressor.crc) if with_crc else None


def _whole_zlib(
    raw: bytes | memoryview, size: int, with_crc: bool
) -> tuple[bytes, int | None] | None:  # pragma: no cover - only without ISA-L
    """`whole_content` of a deflated stream with zlib."""
    decompressor = zlib.decompressobj(-15)
    try:
        out = decompressor.decompress(raw, size + 1)
    except zlib.error:
        return None
    if not decompressor.eof or decompressor.unused_data or len(out) != size:
        return None
    return out, crc32(out) if with_crc else None


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


def sniff_on(chunks: Iterable[bytes | memoryview], size: int) -> bytes:
    """The first `size` content bytes of the raw deflate stream `chunks` (from its start),
    inflated until it gives them or ends: `sniff` of a stream whose first `SNIFF_INPUT` bytes
    give fewer (a hostile one led by empty stored blocks, 5 bytes each). b"" if it does not
    inflate, as `sniff`; at most `size` bytes are ever inflated."""
    inflater = zlib.decompressobj(-15)
    head = b""
    try:
        for chunk in chunks:
            head += inflater.decompress(chunk, size - len(head))
            if len(head) >= size or inflater.eof:
                break
    except zlib.error:
        return b""
    return head


def sniffable(entry: ZipEntry) -> bool:
    """Whether the entry's first content bytes can be sniffed: stored or deflated, not
    encrypted, not empty (any other entry sniffs as b"")."""
    return not entry.flags & 0x1 and entry.method in (STORED, DEFLATED) and entry.size > 0


def head_from_data(entry: ZipEntry, data: bytes | memoryview, size: int) -> bytes:
    """`ZipArchive.head` from `data`, the entry's compressed bytes from their start (at least
    `SNIFF_INPUT` of them, or all): what a proof already read, sniffed without another read."""
    if not sniffable(entry):
        return b""
    head = sniff(entry, data[:SNIFF_INPUT], size)
    if len(head) < size and len(data) > SNIFF_INPUT and entry.method == DEFLATED:
        return sniff_on((data,), size)  # content past its first SNIFF_INPUT bytes (`sniff_on`)
    return head


class StreamProblem(Exception):
    """A deflate stream that cannot be read to its end, worded as the report says it."""


def inflate_stream(
    steps: Callable[[], Iterator[bytes]], compressed_size: int, chunk: int, crc: list[int] | None
) -> Iterator[bytes]:
    """The content of the raw deflate stream that `steps()` yields, in pieces of at most `chunk`
    bytes; raises StreamProblem when it does not inflate, ends early, or ends before the
    `compressed_size` bytes declared for it. `crc` (one item) receives the content's CRC-32,
    computed while inflating, once the stream has ended; None: not computed.

    With ISA-L this is igzip's own inflater (`DECOMP_GZIP_NO_HDR`: raw deflate, the CRC-32 kept
    as it inflates): against `isal_zlib`'s decompressobj plus a `crc32` pass it costs about a
    tenth fewer instructions on large entries (no unconsumed input copied per step, no output
    buffer grown from 16 KiB each step). Where it fails, the message comes from the
    decompressobj path (`_streamed_zlib`, `steps()` read again), so that reports word a corrupt
    stream as they always did."""
    if _igzip is None:  # pragma: no cover - depends on the platform
        yield from _streamed_zlib(steps(), compressed_size, chunk, crc)
        return
    flag = _igzip.DECOMP_GZIP_NO_HDR if crc is not None else _igzip.DECOMP_DEFLATE
    decompressor = _igzip.IgzipDecompressor(flag)
    fed = 0
    try:
        for data in steps():
            fed += len(data)
            out = decompressor.decompress(data, chunk)
            while True:
                if out:
                    yield out
                if decompressor.eof or decompressor.needs_input or not out:
                    break
                out = decompressor.decompress(b"", chunk)
            if decompressor.eof:
                break
    except _igzip.IsalError as exc:
        for _ in _streamed_zlib(steps(), compressed_size, chunk, None):
            pass  # raises the decompressobj path's StreamProblem
        raise StreamProblem(f"corrupt deflate data ({exc})") from exc  # pragma: no cover
    _check_end(decompressor.eof, fed - len(decompressor.unused_data), compressed_size)
    if crc is not None:
        crc[0] = int(decompressor.crc)


def _check_end(eof: bool, used: int, compressed_size: int) -> None:
    """Raise StreamProblem unless the stream ended, after all its declared compressed bytes."""
    if not eof:
        raise StreamProblem("deflate stream ends early (truncated)")
    if used < compressed_size:
        raise StreamProblem(
            f"deflate stream ends after {used} of the {compressed_size} compressed "
            "bytes the directory declares"
        )


def _streamed_zlib(
    steps: Iterator[bytes], compressed_size: int, chunk: int, crc: list[int] | None
) -> Iterator[bytes]:
    """`inflate_stream` with `new_decompressor`'s zlib-style inflater and a separate CRC-32."""
    decompressor = new_decompressor()
    fed = value = 0
    try:
        for data in steps:
            fed += len(data)
            out = decompressor.decompress(data, chunk)
            # A full output chunk may leave input (unconsumed_tail) or output pending inside
            # the inflater; keep draining until it returns less than a full chunk.
            while True:
                if out:
                    if crc is not None:
                        value = crc32(out, value)
                    yield out
                tail = decompressor.unconsumed_tail
                if not tail and len(out) < chunk:
                    break
                out = decompressor.decompress(tail, chunk)
            if decompressor.eof:
                break
    except INFLATE_ERRORS as exc:
        raise StreamProblem(f"corrupt deflate data ({exc})") from exc
    _check_end(decompressor.eof, fed - len(decompressor.unused_data), compressed_size)
    if crc is not None:
        crc[0] = value

"""Prove runs of identical entries with one read and one compare per run.

A patch wheel rebuilt from its base usually keeps most local records (header, compressed data,
descriptor) byte for byte and in the same order. Where consecutive pairs occupy equally long,
back-to-back records in both archives, the whole stretch is read once on each side and compared;
if the bytes are equal, every entry in it has equal local headers and equal compressed bytes
under the same method: identical, proven by raw bytes, without the per-entry reads and Python
bookkeeping that dominate a wheel of ten thousand small files. In a stretch that differs, each
record is compared on its own (a record alone is the shortest span): equal ones are identical
just the same, the others fall back to entry-by-entry comparison.
"""

from __future__ import annotations

import zlib
from collections.abc import Mapping, Sequence
from itertools import compress, repeat
from operator import add, and_, eq, ge, itemgetter, le, not_, sub
from typing import NamedTuple

from k3diff.errors import CorruptEntryError
from k3diff.native.sniff import MAGIC_PREFIXES, SCREEN_BYTES, SNIFF_BYTES, is_native_magic
from k3diff.wheels.pairing import EntryPair
from k3diff.wheels.sniffchild import HeadScreen
from k3diff.zip.archive import ZipArchive
from k3diff.zip.directory import DEFLATED, STORED, ZipEntry
from k3diff.zip.inflate import SNIFF_INPUT, sniff, sniffable

SPAN_BYTES = 2 << 20
"""Largest stretch read at once per side (two such buffers per worker thread). Small, so that
the buffers' pages, which glibc keeps and reuses from task to task where `cli.quickexit` asks it
to, are few (speed63b: case e's span reads took 7.7 k minor faults at 8 MiB, 1.3 k at 2 MiB)."""
SPAN_ENTRIES = 1024
"""Most records in one span: a wheel's thousands of small headers make several tasks, which
the workers share, rather than one that finishes last."""


class Span(NamedTuple):
    """Back-to-back records that are equally long and equally placed in both archives (a named
    tuple: the schedule's private plan, defined in a tenth of a frozen dataclass's ≈ 1 ms)."""

    indices: tuple[int, ...]
    """Positions of the pairs in the pair list, in archive order."""
    base_start: int
    """Offset of the first record in the base archive."""
    patch_start: int
    """Offset of the first record in the patch archive."""
    length: int
    """Bytes of the stretch (the same in both archives)."""


def plan_spans(
    base: ZipArchive, patch: ZipArchive, pairs: Sequence[EntryPair]
) -> tuple[list[Span], list[int]]:
    """Spans covering the pairs that can be proven a stretch at a time, and the other pairs.

    A pair is a candidate when both entries declare the same size, CRC-32, method and
    compressed size and their records (`record_ends`) are equally long; candidates back to back
    in both archives, in base offset order, form a span of at most `SPAN_BYTES` and
    `SPAN_ENTRIES` records."""
    base_ends, patch_ends = base.record_ends(), patch.record_ends()
    singles: list[int] = []
    found: list[tuple[int, int, int, int]] = []  # (base offset, patch offset, length, index)
    for index, pair in enumerate(pairs):
        b, p = pair.base, pair.patch
        if (
            b is None
            or p is None
            or (b.size, b.crc32, b.method, b.compressed_size)
            != (p.size, p.crc32, p.method, p.compressed_size)
        ):
            singles.append(index)
            continue
        base_end, patch_end = base_ends.get(b.position), patch_ends.get(p.position)
        start_b, start_p = b.header_offset, p.header_offset
        if (
            base_end is None
            or patch_end is None
            or base_end - start_b > SPAN_BYTES
            or base_end - start_b != patch_end - start_p
        ):
            singles.append(index)
            continue
        found.append((start_b, start_p, base_end - start_b, index))
    found.sort()
    spans: list[Span] = []
    run: list[int] = []
    start_b = start_p = size = 0
    for offset_b, offset_p, length, index in found:
        follows = run and offset_b == start_b + size and offset_p == start_p + size
        if not follows or size + length > SPAN_BYTES or len(run) >= SPAN_ENTRIES:
            if run:
                spans.append(Span(tuple(run), start_b, start_p, size))
            run, start_b, start_p, size = [], offset_b, offset_p, 0
        run.append(index)
        size += length
    if run:
        spans.append(Span(tuple(run), start_b, start_p, size))
    return spans, singles


def read_span(base: ZipArchive, patch: ZipArchive, span: Span) -> tuple[bytes, bytes] | None:
    """Both archives' bytes of the span (base, patch), or None when either read comes up
    short. Two large reads: `pread` releases the GIL, so other threads work meanwhile."""
    patch_bytes = patch.pread(span.length, span.patch_start)
    base_bytes = base.pread(span.length, span.base_start)
    if len(patch_bytes) != span.length or len(base_bytes) != span.length:
        return None
    return base_bytes, patch_bytes


def equal_records(
    base: ZipArchive,
    patch: ZipArchive,
    pairs: Sequence[EntryPair],
    span: Span,
    base_bytes: bytes,
    patch_bytes: bytes,
) -> tuple[list[int], list[int]]:
    """The span's pairs proven identical by raw bytes, and the others, when the whole
    stretches differ: a record is one back-to-back part of its span, at the same place in
    both, so each is compared on its own (one edited entry does not send a whole span back to
    entry-by-entry proofs). A record whose bytes differ is still identical when its compressed
    bytes are equal (`_equal_data`): a wheel built again, whose local headers carry other
    times (torch 2.5.0 against 2.5.1: every record), proven as `proof.prove` proves it."""
    if base_bytes == patch_bytes:
        return list(span.indices), []
    same: list[int] = []
    differ: list[int] = []
    starts = [_patch_offset(pairs[index]) - span.patch_start for index in span.indices]
    ends = [*starts[1:], span.length]
    base_view = memoryview(base_bytes)
    # `_equal_data` inlined for data offsets the local-header pass found (every record of a
    # wheel built again differs: its thousands of calls were a fifth of that span work).
    known_base, known_patch = base.known_data_offsets(), patch.known_data_offsets()
    base_start, patch_start, length = span.base_start, span.patch_start, span.length
    for index, start, end in zip(span.indices, starts, ends, strict=True):
        # startswith compares a zero-copy view in place (memcmp); slicing would copy.
        if patch_bytes.startswith(base_view[start:end], start):
            same.append(index)
            continue
        pair = pairs[index]
        base_entry, patch_entry = pair.base, pair.patch
        assert base_entry is not None and patch_entry is not None
        data_b = known_base.get(base_entry.position)
        data_p = known_patch.get(patch_entry.position)
        if data_b is None or data_p is None:
            equal = _equal_data(base, patch, pair, span, base_view, patch_bytes)
        else:  # `_equal_data` with the offsets `data_offset` would return without a read
            at_b, at_p, size = data_b - base_start, data_p - patch_start, base_entry.compressed_size
            equal = (
                at_b >= 0
                and at_p >= 0
                and at_b + size <= length
                and at_p + size <= length
                and patch_bytes.startswith(base_view[at_b : at_b + size], at_p)
            )
        (same if equal else differ).append(index)
    return same, differ


def _equal_data(
    base: ZipArchive,
    patch: ZipArchive,
    pair: EntryPair,
    span: Span,
    base_view: memoryview,
    patch_bytes: bytes,
) -> bool:
    """Whether the pair's compressed bytes, inside the span's stretches already read, are equal:
    the raw-bytes proof of `proof.prove_reading` (a span's pairs declare the same size, CRC-32,
    method and compressed size), made without reading them again. An entry whose data offset
    is unreadable or lies outside the stretch is left to that proof (False)."""
    assert pair.base is not None and pair.patch is not None
    try:
        start_b = base.data_offset(pair.base) - span.base_start
        start_p = patch.data_offset(pair.patch) - span.patch_start
    except CorruptEntryError:  # overlapping: the proof says so
        return False
    size = pair.base.compressed_size
    if min(start_b, start_p) < 0 or max(start_b, start_p) + size > span.length:
        return False
    return patch_bytes.startswith(base_view[start_b : start_b + size], start_p)


def _patch_offset(pair: EntryPair) -> int:
    assert pair.patch is not None
    return pair.patch.header_offset


def span_head(archive: ZipArchive, entry: ZipEntry, stretch: memoryview, start: int) -> bytes:
    """`archive.head(entry, SNIFF_BYTES)` from `stretch`, the archive's bytes from offset
    `start` on, already read: the same first compressed bytes at the same data offset (known
    since `local_headers`), without a read of their own."""
    if not sniffable(entry):
        return b""
    try:
        offset = archive.data_offset(entry) - start
    except CorruptEntryError:
        return b""  # overlapping: its content is not read (W611 says so), as `head` does
    wanted = min(entry.compressed_size, SNIFF_INPUT)
    raw = stretch[offset : offset + wanted]
    if offset < 0 or len(raw) < wanted:  # not inside the stretch: read as `head` does
        return archive.head(entry, SNIFF_BYTES)
    head = sniff(entry, raw, SNIFF_BYTES)
    if len(head) < SNIFF_BYTES and wanted == SNIFF_INPUT:  # content further on: `head` finds it
        return archive.head(entry, SNIFF_BYTES)
    return head


def span_native(
    archive: ZipArchive,
    entry: ZipEntry,
    stretch: memoryview,
    start: int,
    known: Mapping[int, int],
) -> bool:
    """`is_native_magic(span_head(archive, entry, stretch, start))`, in a few C calls for an
    entry whose data offset is `known` (`ZipArchive.known_data_offsets`) and lies in the
    stretch: the sniff of thousands of headers and data files of a rebuilt wheel, where the
    function calls around one small inflate cost more than the inflate. Any other entry is
    sniffed by `span_head` itself."""
    if entry.flags & 0x1 or entry.size <= 0:
        return False  # not sniffable: `span_head` gives b""
    method, size = entry.method, entry.compressed_size
    offset = known.get(entry.position)
    wanted = size if size < SNIFF_INPUT else SNIFF_INPUT
    if offset is None or offset < start or offset - start + wanted > len(stretch):
        return is_native_magic(span_head(archive, entry, stretch, start))
    at = offset - start
    if method == DEFLATED:
        try:  # zlib, not ISA-L, as `inflate.sniff`: cheaper to set up for a few dozen bytes
            head = zlib.decompressobj(-15).decompress(stretch[at : at + wanted], SNIFF_BYTES)
        except zlib.error:
            return False
        if len(head) < SNIFF_BYTES and wanted == SNIFF_INPUT:  # content further on (`head`)
            return is_native_magic(archive.head(entry, SNIFF_BYTES))
    elif method == STORED:
        head = bytes(stretch[at : at + min(wanted, SNIFF_BYTES)])
    else:
        return False
    return is_native_magic(head)


_FIELDS = itemgetter(1, 2, 3, 5, 6)
"""A `ZipEntry`'s position, method, flags, compressed size and size, in one C call."""
_INFLATE = type(zlib.decompressobj()).decompress
# SCREEN_BYTES content bytes are inflated to screen a head, not SNIFF_BYTES: ≈ 1.3 µs less of
# the ≈ 7.5 µs of each of a wheel's many sniffs.


def span_natives(
    archive: ZipArchive,
    entries: Sequence[ZipEntry],
    stretch: memoryview,
    start: int,
    known: Mapping[int, int],
    screen: HeadScreen | None = None,
) -> list[bool]:
    """`[span_native(archive, entry, stretch, start, known) for entry in entries]`, with the
    deflated entries of `span_native`'s quick case (not encrypted, not empty, data offset
    known and inside the stretch: every `.h` of a rebuilt wheel) screened by C-level maps
    (`SCREEN_BYTES` inflated), no Python frame per entry; those `screen` (the child's answer
    for `archive`, `sniffchild`) cleared at the same data offset are not inflated at all. Every
    other entry, every entry the screen passes, and every entry of a batch in which an
    inflate fails, is sniffed by `span_native` itself."""
    if not entries:
        return []
    quick_all = _all_quick(entries, stretch, start, known)
    if quick_all is not None:
        return _quick_natives(archive, entries, stretch, start, known, screen, *quick_all)
    position, method, flags, compressed, size = zip(*map(_FIELDS, entries), strict=True)
    offsets = list(map(known.get, position, repeat(-1)))  # -1: not known
    at = list(map(sub, offsets, repeat(start)))
    end = list(map(add, at, map(min, compressed, repeat(SNIFF_INPUT))))
    quick = list(
        map(
            all,
            zip(
                map(eq, method, repeat(DEFLATED)),
                map(not_, map(and_, flags, repeat(0x1))),
                map(ge, size, repeat(1)),
                map(ge, at, repeat(0)),
                map(le, end, repeat(len(stretch))),
                strict=True,
            ),
        )
    )
    # Quick entries the child cleared: no magic prefix at that very offset, nothing to inflate.
    inflated = quick if screen is None else _uncleared(quick, screen, position, offsets)
    chosen = list(compress(range(len(entries)), inflated))
    try:
        heads = list(
            map(
                _INFLATE,
                map(zlib.decompressobj, repeat(-15, len(chosen))),
                map(
                    stretch.__getitem__, map(slice, compress(at, inflated), compress(end, inflated))
                ),
                repeat(SCREEN_BYTES),
            )
        )
    except zlib.error:  # a damaged stream (`span_native` says False for it): one at a time
        return [span_native(archive, entry, stretch, start, known) for entry in entries]
    natives = [False] * len(entries)
    for number, head in zip(chosen, heads, strict=True):
        # Rare: sniffed whole, its inflate's error included; also a head cut short whose content
        # may start past the first SNIFF_INPUT compressed bytes (`ZipArchive.head` finds it).
        if head.startswith(MAGIC_PREFIXES) or (
            len(head) < SCREEN_BYTES and compressed[number] > SNIFF_INPUT
        ):
            natives[number] = span_native(archive, entries[number], stretch, start, known)
    for number in compress(range(len(entries)), map(not_, quick)):
        natives[number] = span_native(archive, entries[number], stretch, start, known)
    return natives


def _all_quick(
    entries: Sequence[ZipEntry], stretch: memoryview, start: int, known: Mapping[int, int]
) -> tuple[list[int], list[int], list[int]] | None:
    """(positions, data offsets, compressed sizes) when every entry is of `span_natives`'
    quick case (deflated, not encrypted, not empty, its data offset known and its first
    `SNIFF_INPUT` compressed bytes inside the stretch), judged by one C call over each column
    (a count, a set, a minimum, a maximum) instead of a test per entry; None when any is not.
    Nearly every span of a rebuilt wheel: its silent entries are `.h` headers."""
    count = len(entries)
    if list(map(_METHOD, entries)).count(DEFLATED) != count:
        return None
    if min(map(_SIZE, entries)) < 1 or any(flag & 0x1 for flag in set(map(_FLAGS, entries))):
        return None
    position = list(map(_POSITION, entries))
    offsets = list(map(known.get, position, repeat(-1)))  # -1: not known
    if min(offsets) < start:
        return None  # not known (a span starts at 0 at the least), or before the stretch
    compressed = list(map(_COMPRESSED, entries))
    ends = map(add, offsets, map(min, compressed, repeat(SNIFF_INPUT)))
    if max(ends) - start > len(stretch):
        return None
    return position, offsets, compressed


def _quick_natives(
    archive: ZipArchive,
    entries: Sequence[ZipEntry],
    stretch: memoryview,
    start: int,
    known: Mapping[int, int],
    screen: HeadScreen | None,
    position: list[int],
    offsets: list[int],
    compressed: list[int],
) -> list[bool]:
    """`span_natives` when every entry is of its quick case (`_all_quick`): the same screen
    and the same inflates, of the entries `screen` did not clear only."""
    numbers: Sequence[int] = range(len(entries))
    chosen_offsets, chosen_compressed = offsets, compressed
    if screen is not None:
        numbers = list(compress(numbers, map(not_, screen.cleared(position, offsets))))
        chosen_offsets = list(map(offsets.__getitem__, numbers))
        chosen_compressed = list(map(compressed.__getitem__, numbers))
    at = list(map(sub, chosen_offsets, repeat(start)))
    ends = list(map(add, at, map(min, chosen_compressed, repeat(SNIFF_INPUT))))
    try:
        heads = list(
            map(
                _INFLATE,
                map(zlib.decompressobj, repeat(-15, len(at))),
                map(stretch.__getitem__, map(slice, at, ends)),
                repeat(SCREEN_BYTES),
            )
        )
    except zlib.error:  # a damaged stream (`span_native` says False for it): one at a time
        return [span_native(archive, entry, stretch, start, known) for entry in entries]
    natives = [False] * len(entries)
    for number, head in zip(numbers, heads, strict=True):
        # As `span_natives`: a magic prefix, or a head cut short of a longer stream.
        if head.startswith(MAGIC_PREFIXES) or (
            len(head) < SCREEN_BYTES and compressed[number] > SNIFF_INPUT
        ):
            natives[number] = span_native(archive, entries[number], stretch, start, known)
    return natives


_POSITION, _METHOD, _FLAGS, _COMPRESSED, _SIZE = map(itemgetter, (1, 2, 3, 5, 6))
"""`ZipEntry.position`, `.method`, `.flags`, `.compressed_size` and `.size`, as C-level
getters."""


def _uncleared(
    quick: list[bool], screen: HeadScreen, position: Sequence[int], offsets: Sequence[int]
) -> list[bool]:
    """`quick` less the entries `screen` cleared at the data offset known here."""
    cleared = screen.cleared(position, offsets)
    return list(map(and_, quick, map(not_, cleared)))

"""What the pool takes from the region child's answer (`regionchild`) instead of reading.

A span (`spans.Span`) whose two stretches lie in one region the child found equal, at the same
place in it, is what `spans.equal_records` would find equal after reading both: every pair in it
identical by raw bytes. The span's patch bytes are then read only if its silent entries (no kind
from the path) need them: not where every one is of `span_natives`' quick case and the sniff
child cleared all but a few (`FEW_SNIFFS`), which are sniffed one by one from their own heads
(`natives_unread`), as `span_natives` would sniff them from the span's bytes. A single pair's
compressed bytes (`proof.raw_equal`) lying in one such region, at the data offsets this process
read from the local headers, are equal likewise (`pair_answer`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractContextManager
from itertools import compress
from operator import not_
from typing import TypeVar

from k3diff.wheels.pairing import EntryPair
from k3diff.wheels.proof import raw_equal
from k3diff.wheels.regionchild import ProvenRegions
from k3diff.wheels.sniffchild import HeadScreen
from k3diff.wheels.spans import Span, all_quick, span_native
from k3diff.zip.archive import ZipArchive
from k3diff.zip.directory import ZipEntry

T = TypeVar("T")

FEW_SNIFFS = 16
"""Most entries of a span sniffed one by one (a read each) instead of reading its stretch."""
_EMPTY = memoryview(b"")

Regions = Callable[[], ProvenRegions | None]
"""`EarlyRaw.proven`: the child's answer when it is in, None otherwise (never waited for)."""


def span_proven(regions: Regions | None, span: Span) -> bool:
    """Whether the child found the span's two stretches equal (`base_bytes == patch_bytes` in
    `spans.equal_records`, without reading either)."""
    proven = None if regions is None else regions()
    return proven is not None and proven.covers(span.base_start, span.patch_start, span.length)


def unscreened(
    entries: Sequence[ZipEntry], span: Span, known: Mapping[int, int], screen: HeadScreen | None
) -> list[int] | None:
    """Which of `entries` (their numbers) `span_natives` over the span's patch stretch would
    sniff from its bytes, when every one is of its quick case (`spans.all_quick`): those
    `screen` did not clear at the data offset `known` here; None when any entry is not of it, or
    there is no screen (all of them would be read)."""
    if screen is None:
        return None
    quick = all_quick(entries, span.length, span.patch_start, known)
    if quick is None:
        return None
    return list(compress(range(len(entries)), map(not_, screen.cleared(quick[0], quick[1]))))


def natives_unread(
    patch: ZipArchive,
    entries: Sequence[ZipEntry],
    span: Span,
    known: Mapping[int, int],
    screen: HeadScreen | None,
) -> list[bool] | None:
    """`span_natives` of `entries` without the span's patch bytes: those `screen` cleared are
    not native, as there; the few others (at most `FEW_SNIFFS`) sniffed one by one from their
    own first bytes (`spans.span_native`, which reads them as `ZipArchive.head` does); None when
    more would be sniffed (the caller reads the stretch)."""
    numbers = unscreened(entries, span, known, screen)
    if numbers is None or len(numbers) > FEW_SNIFFS:
        return None
    natives = [False] * len(entries)
    for number in numbers:
        natives[number] = span_native(patch, entries[number], _EMPTY, span.patch_start, known)
    return natives


def proven_span(
    identical: Callable[[bytes | None], T | None],
    patch: ZipArchive,
    span: Span,
    turn: AbstractContextManager[object],
) -> T | None:
    """The results of a span the child proved (`span_proven`): `identical(None)` (the span's
    results, its bytes unread), or, where its silent entries need their heads sniffed from the
    span's bytes (`natives_unread` says None), the patch's stretch alone read and
    `identical(patch_bytes)`; `turn` held while either runs. None when that read comes up short
    (the caller proves the span as without the child)."""
    with turn:
        finished = identical(None)
    if finished is not None:
        return finished
    patch_bytes = patch.pread(span.length, span.patch_start)
    if len(patch_bytes) != span.length:
        return None
    with turn:
        return identical(patch_bytes)


def pair_answer(
    regions: Regions | None, base: ZipArchive, patch: ZipArchive, pair: EntryPair
) -> Callable[[], bool] | None:
    """The pair's `proof.raw_equal`, answered from the child's regions where they hold both
    entries' compressed bytes (same method and compressed size, as `raw_equal` asks), else
    compared as `raw_equal` compares; None when the child has no answer in."""
    proven = None if regions is None else regions()
    if proven is None or pair.base is None or pair.patch is None:
        return None
    return functools.partial(_raw_equal, proven, base, pair.base, patch, pair.patch)


def _raw_equal(
    proven: ProvenRegions,
    base: ZipArchive,
    base_entry: ZipEntry,
    patch: ZipArchive,
    entry: ZipEntry,
) -> bool:
    """`raw_equal(base, base_entry, patch, entry)`: its data offsets read first (raising what
    it raises: an overlapping or truncated entry), then the region's answer or the bytes."""
    at_base, at_patch = base.data_offset(base_entry), patch.data_offset(entry)
    if proven.covers(at_base, at_patch, base_entry.compressed_size):
        return True
    return raw_equal(base, base_entry, patch, entry)

"""Prove runs of identical entries with one read and one compare per run.

A patch wheel rebuilt from its base usually keeps most local records (header, compressed data,
descriptor) byte for byte and in the same order. Where consecutive pairs occupy equally long,
back-to-back records in both archives, the whole stretch is read once on each side and compared;
if the bytes are equal, every entry in it has equal local headers and equal compressed bytes
under the same method: identical, proven by raw bytes, without the per-entry reads and Python
bookkeeping that dominate a wheel of ten thousand small files. A stretch that differs falls
back to entry-by-entry comparison.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from k3diff.wheels.pairing import EntryPair
from k3diff.zip.archive import ZipArchive

SPAN_BYTES = 8 << 20
"""Largest stretch read at once per side (two such buffers per worker thread)."""


@dataclass(frozen=True)
class Span:
    """Back-to-back records that are equally long and equally placed in both archives."""

    indices: tuple[int, ...]
    """Positions of the pairs in the pair list, in archive order."""
    base_start: int
    """Offset of the first record in the base archive."""
    patch_start: int
    """Offset of the first record in the patch archive."""
    length: int
    """Bytes of the stretch (the same in both archives)."""


def _candidate(
    base_ends: dict[int, int], patch_ends: dict[int, int], pair: EntryPair
) -> int | None:
    """The record length when the pair could be proven inside a span, else None. `*_ends`:
    each archive's `record_ends`."""
    b, p = pair.base, pair.patch
    if b is None or p is None:
        return None
    if (b.size, b.crc32, b.method, b.compressed_size) != (
        p.size,
        p.crc32,
        p.method,
        p.compressed_size,
    ):
        return None
    base_end, patch_end = base_ends.get(b.position), patch_ends.get(p.position)
    if base_end is None or patch_end is None:
        return None
    length = base_end - b.header_offset
    if length > SPAN_BYTES or length != patch_end - p.header_offset:
        return None
    return length


def plan_spans(
    base: ZipArchive, patch: ZipArchive, pairs: Sequence[EntryPair]
) -> tuple[list[Span], list[int]]:
    """Spans covering the pairs that can be proven a stretch at a time, and the other pairs."""
    ends = base.record_ends(), patch.record_ends()
    lengths = {i: _candidate(*ends, pair) for i, pair in enumerate(pairs)}
    singles = [i for i, length in lengths.items() if length is None]
    order = sorted(
        (i for i, length in lengths.items() if length is not None),
        key=lambda i: pairs[i].base.header_offset,  # type: ignore[union-attr]
    )
    spans: list[Span] = []
    run: list[int] = []
    start_b = start_p = size = 0
    for i in order:
        b, p, length = pairs[i].base, pairs[i].patch, lengths[i]
        assert b is not None and p is not None and length is not None
        follows = run and b.header_offset == start_b + size and p.header_offset == start_p + size
        if not follows or size + length > SPAN_BYTES:
            if run:
                spans.append(Span(tuple(run), start_b, start_p, size))
            run, start_b, start_p, size = [], b.header_offset, p.header_offset, 0
        run.append(i)
        size += length
    if run:
        spans.append(Span(tuple(run), start_b, start_p, size))
    return spans, singles


def read_equal_span(base: ZipArchive, patch: ZipArchive, span: Span) -> bytes | None:
    """The patch's bytes of the span when both archives hold the same bytes there, else None."""
    patch_bytes = patch.pread(span.length, span.patch_start)
    base_bytes = base.pread(span.length, span.base_start)
    if len(patch_bytes) != span.length or base_bytes != patch_bytes:
        return None
    return patch_bytes

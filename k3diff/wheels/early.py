"""The huge pairs' raw-bytes comparisons, started as soon as both central directories are read.

On the CUDA shape a few libraries hold most of the bytes (libtorch_cuda.so: 560 MB compressed).
Comparing their raw bytes is memory-bound work that holds the GIL only between reads, so it
runs on the second core while the main thread reads RECORD, builds the installed views, pairs
the entries and reads the local headers, instead of after all that. A comparison is started for
each entry name both archives hold once, with the same declared size, CRC-32, method and
compressed size above `EARLY_BYTES`: exactly the pairs whose proof (`proof.prove_reading`)
would compare raw bytes, with the same function (`proof.raw_equal`). The proof then takes the
answer, or the error the reading met, instead of reading again; a comparison the final pairing
does not ask for (another entry paired by installed path) is never read.
"""

from __future__ import annotations

import operator
from collections import Counter
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager

from k3diff.errors import ArchiveError
from k3diff.wheels.proof import raw_equal
from k3diff.zip.archive import ZipArchive
from k3diff.zip.directory import ZipEntry

EARLY_BYTES = 32 << 20
"""Compressed size from which a pair's raw comparison starts early: a handful of entries in a
CUDA wheel, none in most wheels (whose largest entries take less time than their start-up).
Above `spans.SPAN_BYTES`, so a started pair is never one a span proves instead."""

_DECLARED = operator.attrgetter("size", "crc32", "method", "compressed_size")

RawAnswer = Callable[[], bool]
"""Whether the pair's raw bytes are equal, waiting for the comparison when it still runs."""


class EarlyRaw:
    """The comparisons started, by (base entry position, patch entry position)."""

    def __init__(self, started: dict[tuple[int, int], Future[bool]]) -> None:
        self._started = started

    def answer(self, base_entry: ZipEntry | None, patch_entry: ZipEntry | None) -> RawAnswer | None:
        """The started comparison of this exact pair, or None when there is none."""
        if base_entry is None or patch_entry is None:
            return None
        future = self._started.get((base_entry.position, patch_entry.position))
        return None if future is None else future.result


@contextmanager
def raw_compares(base: ZipArchive, patch: ZipArchive) -> Iterator[EarlyRaw]:
    """Start the huge pairs' comparisons on a thread of their own (`_candidates`, largest first);
    on leaving, those not begun are cancelled and the running ones waited for."""
    candidates = _candidates(base, patch)
    if not candidates:
        yield EarlyRaw({})
        return
    worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="k3diff-early")
    try:
        started = {
            (b.position, p.position): worker.submit(raw_equal, base, b, patch, p)
            for b, p in candidates
        }
        yield EarlyRaw(started)
    finally:
        worker.shutdown(wait=True, cancel_futures=True)


def _candidates(base: ZipArchive, patch: ZipArchive) -> list[tuple[ZipEntry, ZipEntry]]:
    """Pairs by name above `EARLY_BYTES` declared alike, largest first, whose data offsets read
    from their local headers (here, on the calling thread, before any other reads them); a pair
    whose header is unreadable or overlapping is left to its proof, which says what is wrong."""
    big_base = _big_by_name(base)
    pairs = [
        (b, p)
        for p in _big_by_name(patch).values()
        if (b := big_base.get(p.name)) is not None and _DECLARED(b) == _DECLARED(p)
    ]
    pairs.sort(key=lambda pair: -pair[0].compressed_size)
    readable = []
    for b, p in pairs:
        try:
            base.data_offset(b)
            patch.data_offset(p)
        except ArchiveError:
            continue
        readable.append((b, p))
    return readable


def _big_by_name(archive: ZipArchive) -> dict[str, ZipEntry]:
    """Entries above `EARLY_BYTES` whose name the archive holds once."""
    big = [entry for entry in archive.entries if entry.compressed_size > EARLY_BYTES]
    if not big:
        return {}
    counts = Counter(entry.name for entry in archive.entries)
    return {entry.name: entry for entry in big if counts[entry.name] == 1}

"""A wheel pair's head start: both archives opened and the helper processes started before the
comparison's modules are imported.

`k3diff wheels BASE PATCH` spends ≈ 45 ms of one core importing the comparison, the finding
model and the report (packaging, `email`, `importlib.metadata`, ...) while the machine's other
core idles; the raw and sniff children (`rawchild`, `sniffchild`: ≈ 90 ms of CPU on torch's CPU
wheel) need only the central directories and the huge pairs' data offsets, which this module
reads with nothing heavier than `k3diff.zip` imported. Started here, right after the arguments
are parsed, the children do their work beside the imports, and the raw child runs nicer than
the run (`rawchild.CHILD_NICE`), so that once the comparison starts it no longer takes a core
from the comparing thread (issue 41, case e: −4 to −9 % wall; see docs/performance.md).

A head start is only ever a shortcut: `compare_wheels` takes the archives and children it
holds instead of opening and starting its own, in the same order and with the same arguments.
Anything that goes wrong here (a file that is not a readable zip, no process or thread to
spare) gives no head start, and the comparison then opens the files itself and reports what is
wrong exactly as without one.
"""

from __future__ import annotations

import operator
from collections import Counter
from pathlib import Path

from k3diff.errors import ArchiveError
from k3diff.wheels import rawchild, sniffchild
from k3diff.zip.archive import ZipArchive
from k3diff.zip.directory import ZipEntry

EARLY_BYTES = 32 << 20
"""Compressed size (both sides) from which a pair's comparison starts early: a handful of
entries in a CUDA wheel, one in the torch CPU wheel, none in most wheels (whose largest entries
take less time than their start-up). Above `spans.SPAN_BYTES`, so a started pair is never one
a span proves instead."""

SAME_LAYOUT = operator.attrgetter("method", "compressed_size")
"""What a pair compared by its raw bytes has alike (`early`: the others are recompressed)."""
_DECLARED = operator.attrgetter("size", "crc32")

Pair = tuple[ZipEntry, ZipEntry]


class HeadStart:
    """Both archives, their huge pairs (`huge_pairs`) and the children started for them: the
    raw child for the pairs whose raw bytes are compared, the sniff child where it is
    `worth_asking`. `close` ends the children and closes the archives (again: each is closed
    once, by whichever comes first)."""

    __slots__ = ("base", "heads", "pairs", "patch", "raw")

    def __init__(self, base: ZipArchive, patch: ZipArchive) -> None:
        self.base, self.patch = base, patch
        self.pairs: list[Pair] = []
        self.raw: rawchild.RawChild | None = None
        self.heads: sniffchild.SniffChild | None = None

    def start(self) -> None:
        """Find the huge pairs and start the children."""
        self.pairs = huge_pairs(self.base, self.patch)
        raw_pairs = [(b, p) for b, p in self.pairs if SAME_LAYOUT(b) == SAME_LAYOUT(p)]
        if raw_pairs:
            nice = rawchild.CHILD_NICE
            self.raw = rawchild.RawChild(self.base, self.patch, raw_pairs, nice=nice)
        if sniffchild.worth_asking(self.base, self.patch):  # read here: tests replace it
            self.heads = sniffchild.SniffChild(self.patch)
            self.heads.start()

    def close(self) -> None:
        try:
            if self.raw is not None:
                self.raw.close()
        finally:
            try:
                if self.heads is not None:
                    self.heads.close()
            finally:
                self.patch.close()
                self.base.close()


def head_start(base_path: Path, patch_path: Path) -> HeadStart | None:
    """Both archives opened as `compare_wheels` opens them (the patch's names beside the
    base's) and their children started; None, with nothing left open or running, where any of
    it fails."""
    try:
        base = ZipArchive.open(base_path)
    except Exception:  # reported by the comparison, which opens it again
        return None
    try:
        patch = ZipArchive.open(patch_path, base.entries)
    except Exception:
        base.close()
        return None
    started = HeadStart(base, patch)
    try:
        started.start()
    except Exception:
        started.close()
        return None
    return started


def huge_pairs(base: ZipArchive, patch: ZipArchive) -> list[Pair]:
    """Pairs by name above `EARLY_BYTES` declared alike (size, CRC-32), largest first, whose
    data offsets read from their local headers (here, on the calling thread, before any other
    reads them); a pair whose header is unreadable or overlapping is left to its proof, which
    says what is wrong."""
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

"""Name a native file's format for explain, and explain the formats that are not ELF.

Standalone fatbins get their images walked and paired; Mach-O, PE and anything unrecognised get
only size and hash, with a note saying so.
"""

from __future__ import annotations

import os
from pathlib import Path

from k3diff.native import cuda
from k3diff.native.model import (
    CudaImage,
    FileFacts,
    Label,
    NativeExplanation,
    NativeFormat,
)
from k3diff.native.sniff import SNIFF_BYTES, Magic, sniff_magic
from k3diff.native.streaming import ByteRange, hash_ranges

OPAQUE_NOTE = "deeper explanation (sections, symbols, build-id) is available for ELF and CUDA only"


_FORMAT_OF_MAGIC: dict[Magic, NativeFormat] = {
    Magic.ELF: "elf",
    Magic.CUBIN: "cubin",
    Magic.CUDA_FATBIN: "cuda-fatbin",
    Magic.MACH_O: "mach-o",
    Magic.PE: "pe",
}
"""Formats explain names; other native magics (ar, the fatbin wrapper) are explained opaquely."""


def sniff_format(path: Path) -> NativeFormat:
    """The format the first bytes of `path` announce, by `k3diff.native.sniff`."""
    with open(path, "rb") as stream:
        head = stream.read(SNIFF_BYTES)
    magic = sniff_magic(head)
    return "unknown" if magic is None else _FORMAT_OF_MAGIC.get(magic, "unknown")


def whole_file_facts(path: Path) -> FileFacts:
    """Size and xxh3-128 of a file, read once in chunks."""
    no_ranges: list[ByteRange[int]] = []
    with open(path, "rb", buffering=0) as stream:
        digests = hash_ranges(stream, no_ranges)
        return FileFacts(size=os.fstat(stream.fileno()).st_size, xxh3_128=digests.whole)


def explain_opaque(
    fmt: NativeFormat,
    base: Path,
    patch: Path,
    *,
    note: str | None = OPAQUE_NOTE,
    error: str | None = None,
) -> NativeExplanation:
    """Size and hash of both sides only (Mach-O, PE, unknown, or a side that did not parse)."""
    base_facts, patch_facts = whole_file_facts(base), whole_file_facts(patch)
    identical = base_facts.xxh3_128 == patch_facts.xxh3_128
    labels: tuple[Label, ...] = ("identical-content",) if identical and error is None else ()
    if error is not None:
        summary = f"not explained: {error}"
    elif identical:
        summary = "byte-identical"
    else:
        summary = f"{fmt} files differ ({base_facts.size:,} → {patch_facts.size:,} bytes)"
    return NativeExplanation(
        format=fmt,
        classification=labels,
        summary=summary,
        base=base_facts,
        patch=patch_facts,
        note=note,
        error=error,
    )


def _scan_fatbin(path: Path) -> tuple[FileFacts, list[CudaImage]]:
    with open(path, "rb", buffering=0) as stream:
        size = os.fstat(stream.fileno()).st_size
        entries = cuda.walk_fatbin(stream, 0, size)
        ranges = [
            ByteRange(n, entry.payload_offset, entry.payload_offset + entry.size)
            for n, entry in enumerate(entries)
        ]
        digests = hash_ranges(stream, ranges)
    images = [entry.image(digests.ranges[n]) for n, entry in enumerate(entries)]
    return FileFacts(size=size, xxh3_128=digests.whole), images


def explain_fatbin(base: Path, patch: Path) -> NativeExplanation:
    """Pair the images of two standalone fatbins; FatbinError (side-prefixed) when damaged."""
    scans = []
    for side, path in (("base", base), ("patch", patch)):
        try:
            scans.append(_scan_fatbin(path))
        except cuda.FatbinError as exc:
            raise cuda.FatbinError(f"{side}: {exc}") from exc
    (base_facts, base_images), (patch_facts, patch_images) = scans
    changes = cuda.diff_images("", base_images, patch_images)
    labels: tuple[Label, ...]
    if base_facts.xxh3_128 == patch_facts.xxh3_128:
        labels, summary = ("identical-content",), "byte-identical"
    elif changes:
        labels = ("cuda",)
        summary = (
            f"cuda: CUDA images {len(changes.changed)} changed, {len(changes.added)} added, "
            f"{len(changes.removed)} removed of {changes.base_images}"
        )
    else:
        labels, summary = ("layout",), "layout: every image is identical; only headers differ"
    return NativeExplanation(
        format="cuda-fatbin",
        classification=labels,
        summary=summary,
        base=base_facts,
        patch=patch_facts,
        cuda=changes,
    )

"""Recognise a native file by its first bytes, and explain the formats that are not ELF.

Standalone fatbins get their images walked and paired; Mach-O, PE and anything unrecognised get
only size and hash, with a note saying so.
"""

from __future__ import annotations

import os
import struct
from pathlib import Path

from k3diff.wheels.explain import cuda
from k3diff.wheels.explain.model import (
    CudaImage,
    FileFacts,
    Label,
    NativeExplanation,
    NativeFormat,
)
from k3diff.wheels.explain.streaming import ByteRange, hash_ranges

_ELF_MAGIC = b"\x7fELF"
_EM_CUDA = 190
_MACHO_MAGICS = (
    b"\xfe\xed\xfa\xce",
    b"\xce\xfa\xed\xfe",
    b"\xfe\xed\xfa\xcf",
    b"\xcf\xfa\xed\xfe",
)
_MACHO_FAT_MAGIC = b"\xca\xfe\xba\xbe"
_MACHO_FAT_MAX_ARCHS = 32
"""A universal binary names a handful of architectures; Java class files share its magic."""
OPAQUE_NOTE = "deeper explanation (sections, symbols, build-id) is available for ELF and CUDA only"


def sniff_format(path: Path) -> NativeFormat:
    """The format the first bytes of `path` announce."""
    with open(path, "rb") as stream:
        head = stream.read(20)
    if head.startswith(_ELF_MAGIC):
        return "cubin" if _elf_machine(head) == _EM_CUDA else "elf"
    if head.startswith(cuda.FATBIN_MAGIC_BYTES):
        return "cuda-fatbin"
    if head[:4] in _MACHO_MAGICS:
        return "mach-o"
    if head.startswith(_MACHO_FAT_MAGIC) and 0 < _fat_arch_count(head) <= _MACHO_FAT_MAX_ARCHS:
        return "mach-o"
    if head.startswith(b"MZ"):
        return "pe"
    return "unknown"


def _fat_arch_count(head: bytes) -> int:
    return int(struct.unpack(">I", head[4:8])[0]) if len(head) >= 8 else 0


def _elf_machine(head: bytes) -> int | None:
    if len(head) < 20:
        return None
    order = "<" if head[5] != 2 else ">"
    return int(struct.unpack(order + "H", head[18:20])[0])


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

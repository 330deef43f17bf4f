"""Explain an ELF pair (shared library, executable, object or cubin) section by section.

Each side is read once, front to back: the whole file, every section, the header tables, the
padding between them and every embedded CUDA image are hashed in that single pass. Dynamic symbols
and the dynamic section are parsed only when the bytes behind them differ.
"""

from __future__ import annotations

import io
import os
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass, replace
from pathlib import Path

from elftools.elf.elffile import ELFFile

from k3diff.native import cuda
from k3diff.native.compare import (
    compare_header_fields,
    compare_regions,
    compare_sections,
    compare_segments,
)
from k3diff.native.dynamic import (
    compare_dynamic,
    compare_symbols,
    read_dynamic,
    read_dynamic_symbols,
)
from k3diff.native.elf_layout import (
    PARSE_ERRORS,
    ElfLayout,
    MalformedElf,
    read_build_id,
    read_layout,
)
from k3diff.native.model import (
    CudaChanges,
    CudaImage,
    DynamicChanges,
    FileFacts,
    NativeExplanation,
    NativeFormat,
    Placement,
    SectionRow,
    SymbolChanges,
)
from k3diff.native.platform import PlatformNeeds, PlatformUnknown, read_needs
from k3diff.native.streaming import ByteRange, complement, hash_ranges
from k3diff.native.summary import classify, summarize

FATBIN_SECTION = ".nv_fatbin"
PADDING = "<padding>"
EM_CUDA = "EM_CUDA"

RangeKey = tuple[str, int | str]


@dataclass
class ElfScan:
    """One side, read: headers, hashes of every part, embedded images."""

    elf: ELFFile
    """pyelftools' view, kept open for the dynamic tables."""
    layout: ElfLayout
    """Header tables."""
    facts: FileFacts
    """Size, whole-file hash, build-id, machine."""
    section_hashes: dict[int, str]
    """Hash per section index (sections with bytes only)."""
    regions: dict[str, Placement]
    """Header tables and padding."""
    images: tuple[CudaImage, ...]
    """Images of the .nv_fatbin section (or the cubin itself)."""
    fatbin_error: str | None
    """Why .nv_fatbin could not be walked."""


def is_cubin(layout: ElfLayout) -> bool:
    return layout.machine == EM_CUDA or layout.machine == "190"


def scan_elf(stream: io.FileIO) -> ElfScan:
    """Read one side; MalformedElf when its headers point outside it or do not parse."""
    size = os.fstat(stream.fileno()).st_size
    try:
        elf = ELFFile(stream)
    except PARSE_ERRORS as exc:
        raise MalformedElf(f"unparsable ELF header ({type(exc).__name__}: {exc})") from exc
    layout = read_layout(elf, size)
    entries, fatbin_error = _fatbin_entries(stream, layout)
    ranges = list(_ranges(layout, entries))
    digests = hash_ranges(stream, ranges)
    cubin = is_cubin(layout)
    facts = FileFacts(
        size=size,
        xxh3_128=digests.whole,
        build_id=read_build_id(elf, layout),
        machine=layout.machine,
        sm_arch=cuda.cubin_sm_arch(layout.e_flags, layout.abi_version) if cubin else None,
    )
    images = tuple(entry.image(digests.ranges[("i", n)]) for n, entry in enumerate(entries))
    if cubin:
        images = (_cubin_image(facts, layout),)
    return ElfScan(
        elf=elf,
        layout=layout,
        facts=facts,
        section_hashes={
            int(key[1]): digest for key, digest in digests.ranges.items() if key[0] == "s"
        },
        regions=_regions(layout, ranges, digests.ranges),
        images=images,
        fatbin_error=fatbin_error,
    )


def _fatbin_entries(
    stream: io.FileIO, layout: ElfLayout
) -> tuple[list[cuda.FatbinEntry], str | None]:
    entries: list[cuda.FatbinEntry] = []
    for section in layout.sections:
        if section.name == FATBIN_SECTION and section.has_bytes:
            try:
                entries.extend(cuda.walk_fatbin(stream, section.offset, section.end))
            except cuda.FatbinError as exc:
                return [], f"{FATBIN_SECTION}: {exc}"
    return entries, None


def _ranges(layout: ElfLayout, entries: list[cuda.FatbinEntry]) -> Iterator[ByteRange[RangeKey]]:
    covered: list[tuple[int, int]] = []
    for section in layout.sections:
        if section.has_bytes:
            covered.append((section.offset, section.end))
            yield ByteRange(("s", section.index), section.offset, section.end)
    for name, (start, end) in layout.header_spans.items():
        covered.append((start, end))
        yield ByteRange(("r", name), start, end)
    gaps = complement(covered, layout.size)
    for start, end in gaps or [(0, 0)]:
        yield ByteRange(("r", PADDING), start, end)
    for n, entry in enumerate(entries):
        yield ByteRange(("i", n), entry.payload_offset, entry.payload_offset + entry.size)


def _regions(
    layout: ElfLayout, ranges: list[ByteRange[RangeKey]], digests: dict[RangeKey, str]
) -> dict[str, Placement]:
    regions = {
        name: Placement(start, 0, end - start, digests[("r", name)])
        for name, (start, end) in layout.header_spans.items()
    }
    padding = [r for r in ranges if r.key == ("r", PADDING)]
    regions[PADDING] = Placement(
        offset=padding[0].start,
        address=0,
        size=sum(r.end - r.start for r in padding),
        xxh3_128=digests[("r", PADDING)],
    )
    return regions


def _cubin_image(facts: FileFacts, layout: ElfLayout) -> CudaImage:
    return CudaImage(
        container_index=0,
        entry_index=0,
        kind="cubin",
        sm_arch=facts.sm_arch or 0,
        flags=layout.e_flags,
        compression=None,
        size=facts.size,
        uncompressed_size=facts.size,
        xxh3_128=facts.xxh3_128,
    )


def explain_elf(base_path: Path, patch_path: Path) -> NativeExplanation:
    """Explain an ELF pair; MalformedElf (with "base: " / "patch: " prefix) on a damaged side."""
    with ExitStack() as stack:
        scans = []
        for side, path in (("base", base_path), ("patch", patch_path)):
            stream = stack.enter_context(open(path, "rb", buffering=0))
            try:
                scans.append(scan_elf(stream))
            except MalformedElf as exc:
                raise MalformedElf(f"{side}: {exc}") from exc
        return _explain_scans(scans[0], scans[1])


def _explain_scans(base: ElfScan, patch: ElfScan) -> NativeExplanation:
    sections = compare_sections(
        base.layout.sections,
        base.section_hashes,
        patch.layout.sections,
        patch.section_hashes,
        base.layout.segments,
        patch.layout.segments,
    )
    regions = compare_regions(base.regions, patch.regions)
    dynamic, symbols = _loader_changes(base, patch, sections)
    cuda_changes = _cuda_changes(base, patch, sections)
    segments = compare_segments(base.layout.segments, patch.layout.segments)
    header_changes = compare_header_fields(base.layout.header_fields, patch.layout.header_fields)
    fmt: NativeFormat = "cubin" if is_cubin(patch.layout) else "elf"
    platform, problem = _platform(base, patch)
    labels = classify(sections, regions, segments, header_changes, dynamic, symbols, cuda_changes)
    explanation = NativeExplanation(
        format=fmt,
        classification=labels,
        summary="",
        base=base.facts,
        patch=patch.facts,
        sections=sections,
        file_regions=regions,
        segments=segments,
        header_changes=header_changes,
        dynamic=dynamic,
        symbols=symbols,
        cuda=cuda_changes,
        platform=platform,
        platform_problem=problem if fmt == "elf" else None,
    )
    return replace(explanation, summary=summarize(explanation))


def _platform(
    base: ElfScan, patch: ElfScan
) -> tuple[tuple[PlatformNeeds, PlatformNeeds] | None, str | None]:
    """Both sides' loader demands (glibc versions, DT_NEEDED, paths); None and why when a
    side's tables cannot be read."""
    try:
        return (read_needs(base.elf), read_needs(patch.elf)), None
    except PlatformUnknown as exc:
        return None, str(exc)


def _loader_changes(
    base: ElfScan, patch: ElfScan, sections: tuple[SectionRow, ...]
) -> tuple[DynamicChanges, SymbolChanges]:
    """Parse the dynamic tables only when a symbol or dynamic section's bytes differ."""
    differing = {row.category for row in sections if row.status != "identical"}
    dynamic_differs = any(
        row.type == "SHT_DYNAMIC" and row.status != "identical" for row in sections
    )
    dynamic = DynamicChanges()
    symbols = SymbolChanges()
    try:
        if dynamic_differs or "symbols" in differing:
            dynamic = compare_dynamic(read_dynamic(base.elf), read_dynamic(patch.elf))
        if "symbols" in differing:
            symbols = compare_symbols(
                read_dynamic_symbols(base.elf), read_dynamic_symbols(patch.elf)
            )
    except PARSE_ERRORS as exc:
        raise MalformedElf(f"unparsable dynamic tables ({type(exc).__name__}: {exc})") from exc
    return dynamic, symbols


def _cuda_changes(
    base: ElfScan, patch: ElfScan, sections: tuple[SectionRow, ...]
) -> CudaChanges | None:
    if is_cubin(base.layout) and is_cubin(patch.layout):
        if base.facts.xxh3_128 == patch.facts.xxh3_128:
            return None
        return cuda.diff_images("", base.images, patch.images)
    fatbin_rows = [row for row in sections if row.name == FATBIN_SECTION]
    if not fatbin_rows or all(row.status == "identical" for row in fatbin_rows):
        return None
    errors = [
        f"{side}: {scan.fatbin_error}"
        for side, scan in (("base", base), ("patch", patch))
        if scan.fatbin_error
    ]
    if errors:
        return CudaChanges(FATBIN_SECTION, 0, 0, 0, error="; ".join(errors))
    return cuda.diff_images(FATBIN_SECTION, base.images, patch.images)

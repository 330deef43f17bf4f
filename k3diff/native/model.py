"""The values `explain_native` returns: why two versions of a native entry differ.

Every type here is a frozen dataclass; `k3diff.documents.native.explanation_json` writes their
JSON form and the renderers in `k3diff.report.explain` turn them into text. Hashes are xxh3-128
hex digests of the bytes as stored in the file.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

NativeFormat = Literal["elf", "cuda-fatbin", "cubin", "mach-o", "pe", "unknown"]
Label = Literal[
    "notes-only", "debug-only", "code", "data", "symbols", "layout", "cuda", "identical-content"
]
RowStatus = Literal["identical", "changed", "added", "removed"]
Category = Literal["code", "data", "debug", "notes", "symbols", "cuda", "header", "padding"]

LABEL_ORDER: tuple[Label, ...] = (
    "identical-content",
    "notes-only",
    "debug-only",
    "code",
    "data",
    "symbols",
    "cuda",
    "layout",
)
"""Report order of classification labels, the most telling first. Their meanings:

identical-content  no byte of any section, header table or padding differs
notes-only         only notes differ (.note.*, .comment, .gnu_debuglink, build attributes)
debug-only         only debug sections (.debug_*), static symbols (.symtab/.strtab) and notes
                   differ; non-allocated sections may move, nothing loaded does: a rebuild with
                   other debug info (paths, build-id), not a change of what runs
code               an executable (SHF_EXECINSTR) section differs
data               another allocated or non-allocated section differs, or padding bytes do
symbols            dynamic symbols, DT_NEEDED/SONAME/RPATH/RUNPATH, or .symtab/.strtab differ
cuda               embedded GPU images (.nv_fatbin, a cubin, a fatbin) differ
layout             sections moved, grew, shrank, appeared or vanished; headers were rewritten
"""


if TYPE_CHECKING:
    from k3diff.native.platform import PlatformNeeds


@dataclass(frozen=True)
class FileFacts:
    """One side of the pair as a whole."""

    size: int
    """File size in bytes."""
    xxh3_128: str
    """xxh3-128 of the whole file."""
    build_id: str | None = None
    """GNU build-id (hex) from the NT_GNU_BUILD_ID note, when the file has one."""
    machine: str | None = None
    """ELF e_machine (e.g. ``EM_X86_64``, ``EM_CUDA``), when the file is ELF."""
    sm_arch: int | None = None
    """SM architecture of a standalone cubin (``90`` for sm_90)."""


@dataclass(frozen=True)
class Placement:
    """Where a section or file region sits on one side, and what its bytes hash to."""

    offset: int
    """File offset of the first byte."""
    address: int
    """Virtual address (sh_addr); 0 for regions and non-allocated sections."""
    size: int
    """Size in bytes (sh_size; for SHT_NOBITS the memory size, with no bytes in the file)."""
    xxh3_128: str | None
    """Hash of the bytes in the file; None for SHT_NOBITS, which has none."""


@dataclass(frozen=True)
class SectionRow:
    """One section (or file region outside every section) compared across the pair."""

    name: str
    """Section name; regions are named ``<elf header>``, ``<section headers>``, ``<padding>``…"""
    type: str
    """sh_type as pyelftools names it (``SHT_PROGBITS``), or ``REGION``."""
    category: Category
    """What the bytes are for: code, data, notes, symbols, cuda, header or padding."""
    status: RowStatus
    """identical, changed, added (patch only) or removed (base only)."""
    moved: bool
    """Both sides exist but offset or address differ."""
    base: Placement | None
    """The base side; None when added."""
    patch: Placement | None
    """The patch side; None when removed."""


@dataclass(frozen=True)
class SegmentInfo:
    """One program header."""

    type: str
    """p_type as pyelftools names it (``PT_LOAD``)."""
    offset: int
    """p_offset."""
    vaddr: int
    """p_vaddr."""
    filesz: int
    """p_filesz."""
    memsz: int
    """p_memsz."""
    flags: str
    """p_flags as ``RWX`` letters."""
    align: int
    """p_align."""


@dataclass(frozen=True)
class SegmentRow:
    """A program header that differs between the sides (paired by index)."""

    index: int
    """Position in the program header table."""
    status: RowStatus
    """changed, added or removed (identical headers are not listed)."""
    base: SegmentInfo | None
    """The base header; None when added."""
    patch: SegmentInfo | None
    """The patch header; None when removed."""


@dataclass(frozen=True)
class ValueChange:
    """A single named value that differs (an ELF header field, DT_SONAME, DT_RUNPATH…)."""

    field: str
    """What the value is (``e_entry``, ``DT_SONAME``, ``DT_RPATH``, ``DT_RUNPATH``)."""
    base: str | None
    """Base value as text; None when absent."""
    patch: str | None
    """Patch value as text; None when absent."""


@dataclass(frozen=True)
class DynamicChanges:
    """Differences in the dynamic section that matter to the loader."""

    needed_added: tuple[str, ...] = ()
    """DT_NEEDED libraries only the patch needs."""
    needed_removed: tuple[str, ...] = ()
    """DT_NEEDED libraries only the base needs."""
    changes: tuple[ValueChange, ...] = ()
    """DT_SONAME, DT_RPATH and DT_RUNPATH values that differ."""
    needed_rehashed: tuple[ValueChange, ...] = ()
    """DT_NEEDED entries naming the same auditwheel-vendored library under a new hash suffix
    (`libgomp-a34b3233.so.1` → `libgomp-6e1a1e6f.so.1`): rebuilt, not a new dependency."""

    def __bool__(self) -> bool:
        return bool(
            self.needed_added or self.needed_removed or self.changes or self.needed_rehashed
        )


@dataclass(frozen=True)
class DynamicSymbol:
    """One entry of .dynsym, identified by name and version."""

    name: str
    """Symbol name (mangled as stored)."""
    version: str | None
    """Symbol version (``GLIBC_2.2.5``, ``libcublas.so.12``), None when unversioned."""
    binding: str
    """STB_GLOBAL, STB_WEAK, …"""
    type: str
    """STT_FUNC, STT_OBJECT, …"""
    size: int
    """st_size."""
    defined: bool
    """False for an import (st_shndx == SHN_UNDEF)."""


@dataclass(frozen=True)
class SymbolChange:
    """A dynamic symbol present on both sides whose binding, type, size or definedness differ."""

    base: DynamicSymbol
    """The base entry."""
    patch: DynamicSymbol
    """The patch entry."""


@dataclass(frozen=True)
class SymbolChanges:
    """Dynamic symbols added, removed and changed. Addresses are ignored: they move on relink."""

    added: tuple[DynamicSymbol, ...] = ()
    """Only in the patch."""
    removed: tuple[DynamicSymbol, ...] = ()
    """Only in the base."""
    changed: tuple[SymbolChange, ...] = ()
    """On both sides, differing in binding, type, size or definedness."""

    def __bool__(self) -> bool:
        return bool(self.added or self.removed or self.changed)


@dataclass(frozen=True)
class CudaImage:
    """One embedded GPU image: a cubin or PTX entry of a fatbin container, or a whole cubin."""

    container_index: int
    """Which fatbin container holds it (0-based, in file order)."""
    entry_index: int
    """Position inside that container (0-based)."""
    kind: str
    """``cubin``, ``ptx`` or ``kind-N`` for an entry kind k3diff does not know."""
    sm_arch: int
    """Target SM architecture (``90`` for sm_90)."""
    flags: int
    """The entry's raw flags word (64-bit, host, compression, arch variants)."""
    compression: str | None
    """``lz4`` or ``zstd`` when the payload is stored compressed, else None."""
    size: int
    """Payload bytes as stored."""
    uncompressed_size: int
    """Payload bytes once decompressed (equal to size when stored plain)."""
    xxh3_128: str
    """Hash of the payload as stored."""

    @property
    def compressed(self) -> bool:
        return self.compression is not None

    @property
    def arch_label(self) -> str:
        return f"sm_{self.sm_arch}"


@dataclass(frozen=True)
class ImageChange:
    """A base image and the patch image it was paired with (same kind, arch and flags)."""

    base: CudaImage
    """The base image."""
    patch: CudaImage
    """The patch image."""


@dataclass(frozen=True)
class CudaChanges:
    """How the embedded GPU images differ.

    Images carry no names, so pairing is: equal content first; then, among the rest, the n-th
    image of a (kind, arch, flags) group in the base with the n-th in the patch.
    """

    section: str
    """Where the images live: ``.nv_fatbin``, or ``""`` for a standalone fatbin or cubin."""
    base_images: int
    """How many images the base holds."""
    patch_images: int
    """How many images the patch holds."""
    identical: int
    """How many images have an identical twin on the other side."""
    added: tuple[CudaImage, ...] = ()
    """Patch images with no counterpart."""
    removed: tuple[CudaImage, ...] = ()
    """Base images with no counterpart."""
    changed: tuple[ImageChange, ...] = ()
    """Paired images whose content differs."""
    error: str | None = None
    """Why the containers could not be walked, when they could not."""

    def __bool__(self) -> bool:
        return bool(self.added or self.removed or self.changed or self.error)


@dataclass(frozen=True)
class NativeExplanation:
    """Why two versions of one native entry differ."""

    format: NativeFormat
    """elf, cuda-fatbin, cubin, mach-o, pe or unknown (also when the two sides disagree)."""
    classification: tuple[Label, ...]
    """What kinds of difference were found, most telling first; empty when parsing failed."""
    summary: str
    """One line for a human."""
    base: FileFacts
    """The base file as a whole."""
    patch: FileFacts
    """The patch file as a whole."""
    sections: tuple[SectionRow, ...] = ()
    """Every section of either side, paired by name (and occurrence), in base order."""
    file_regions: tuple[SectionRow, ...] = ()
    """Bytes outside every section: ELF header, program and section header tables, padding."""
    segments: tuple[SegmentRow, ...] = ()
    """Program headers that differ."""
    header_changes: tuple[ValueChange, ...] = ()
    """ELF header fields that differ (e_entry, e_flags, …)."""
    dynamic: DynamicChanges = field(default_factory=DynamicChanges)
    """DT_NEEDED / DT_SONAME / DT_RPATH / DT_RUNPATH differences."""
    symbols: SymbolChanges = field(default_factory=SymbolChanges)
    """Dynamic symbols added, removed and changed."""
    cuda: CudaChanges | None = None
    """Embedded GPU image differences, when there are GPU images and their bytes differ."""
    note: str | None = None
    """A limit of the explanation the reader should know (e.g. Mach-O is not parsed)."""
    error: str | None = None
    """What is malformed, when a side could not be parsed; the rest is then only size and hash."""
    platform: tuple[PlatformNeeds, PlatformNeeds] | None = None
    """(base, patch) highest GLIBC_/GLIBCXX_/CXXABI_ versions, DT_NEEDED, RPATH/RUNPATH, for ELF
    files whose loader tables parse."""
    platform_problem: str | None = None
    """Why an ELF's (not a cubin's) loader tables could not be read, when `platform` is None
    for that reason: its platform needs are unchecked (W713 fails it)."""

    @property
    def differing_sections(self) -> tuple[SectionRow, ...]:
        return tuple(row for row in self.sections if row.status != "identical")

"""Explain why two versions of a native entry differ (``k3diff wheels --explain``).

`explain_native(base, patch)` takes the two inflated versions as files and returns a
`NativeExplanation`: which ELF sections differ (code, data, notes, symbols, CUDA images), how the
layout moved, dynamic symbols and DT_NEEDED/SONAME/RPATH/RUNPATH changes, build-ids, and which
embedded GPU images changed. Files are streamed, never held in memory. A damaged file yields an
explanation whose `error` says what is wrong, so one bad entry never stops a run.

    explain_native ─ formats.sniff_format
       ├─ elf.explain_elf        ELF and cubin: elf_layout (headers, checked) and cuda (fatbin
       │                         walk), then streaming (one pass hashes everything), compare
       │                         (pair parts), dynamic (only if its bytes differ), summary
       ├─ formats.explain_fatbin standalone .fatbin: cuda → streaming
       └─ formats.explain_opaque Mach-O, PE, unknown, malformed: size and hash only

The result types live in `model`; `k3diff.report.explain` renders them.
"""

from __future__ import annotations

from pathlib import Path

from k3diff.wheels.explain.cuda import FatbinError
from k3diff.wheels.explain.elf import explain_elf
from k3diff.wheels.explain.elf_layout import MalformedElf
from k3diff.wheels.explain.formats import explain_fatbin, explain_opaque, sniff_format
from k3diff.wheels.explain.model import (
    CudaChanges,
    CudaImage,
    DynamicChanges,
    DynamicSymbol,
    FileFacts,
    ImageChange,
    NativeExplanation,
    Placement,
    SectionRow,
    SegmentInfo,
    SegmentRow,
    SymbolChange,
    SymbolChanges,
    ValueChange,
)

__all__ = [
    "CudaChanges",
    "CudaImage",
    "DynamicChanges",
    "DynamicSymbol",
    "FileFacts",
    "ImageChange",
    "NativeExplanation",
    "Placement",
    "SectionRow",
    "SegmentInfo",
    "SegmentRow",
    "SymbolChange",
    "SymbolChanges",
    "ValueChange",
    "explain_native",
]


def explain_native(base: Path, patch: Path) -> NativeExplanation:
    """Why the native file `base` differs from `patch` (both regular files on disk).

    Raises OSError only when a file cannot be read at all; anything malformed inside a file is
    reported in the result's `error`.
    """
    base_format, patch_format = sniff_format(base), sniff_format(patch)
    if base_format != patch_format:
        return explain_opaque(
            "unknown",
            base,
            patch,
            note=f"the format changed: base is {base_format}, patch is {patch_format}",
        )
    if base_format in ("elf", "cubin"):
        try:
            return explain_elf(base, patch)
        except MalformedElf as exc:
            return explain_opaque(
                base_format, base, patch, note=None, error=f"malformed ELF: {exc}"
            )
    if base_format == "cuda-fatbin":
        try:
            return explain_fatbin(base, patch)
        except FatbinError as exc:
            return explain_opaque(
                base_format, base, patch, note=None, error=f"malformed fatbin: {exc}"
            )
    return explain_opaque(base_format, base, patch)

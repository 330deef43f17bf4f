"""Explain why two versions of a native entry differ (``k3diff wheels --explain``).

`explain_native(base, patch)` takes the two inflated versions as files and returns a
`NativeExplanation`: which ELF sections differ (code, data, notes, symbols, CUDA images), how the
layout moved, dynamic symbols and DT_NEEDED/SONAME/RPATH/RUNPATH changes, build-ids, and which
embedded GPU images changed. Files are streamed, never held in memory. A damaged file yields an
explanation whose `error` says what is wrong, so one bad entry never stops a run.

    explain_native ─ formats.sniff_format (by sniff.sniff_magic), then the EXPLAINERS registry:
       ├─ elf.explain_elf        ELF and cubin: elf_layout (headers, checked) and cuda (fatbin
       │                         walk), then streaming (one pass hashes everything), compare
       │                         (pair parts), dynamic (only if its bytes differ), summary
       ├─ formats.explain_fatbin standalone .fatbin: cuda → streaming
       └─ formats.explain_opaque Mach-O, PE, unknown, malformed: size and hash only

The result types live in `model`; `k3diff.report.explain` renders them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from k3diff.native.cuda import FatbinError
from k3diff.native.elf import explain_elf
from k3diff.native.elf_layout import MalformedElf
from k3diff.native.formats import explain_fatbin, explain_opaque, sniff_format
from k3diff.native.model import (
    NativeExplanation,
    NativeFormat,
)


@dataclass(frozen=True)
class Explainer:
    """One native explainer: the formats it reads and the error that means a damaged file."""

    formats: frozenset[NativeFormat]
    """The formats (both sides agreeing) this explainer takes."""
    explain: Callable[[Path, Path], NativeExplanation]
    """Explain `base` vs `patch`; raises `malformed` when a file is damaged."""
    malformed: type[Exception]
    """The exception the explainer raises for a damaged file."""
    problem: str
    """How a damaged file is named in the result's `error` (`malformed ELF: ...`)."""


EXPLAINERS: tuple[Explainer, ...] = (
    Explainer(frozenset({"elf", "cubin"}), explain_elf, MalformedElf, "malformed ELF"),
    Explainer(frozenset({"cuda-fatbin"}), explain_fatbin, FatbinError, "malformed fatbin"),
)
"""Tried in order, first match wins; a format no explainer takes gets `explain_opaque`."""


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
    for explainer in EXPLAINERS:
        if base_format not in explainer.formats:
            continue
        try:
            return explainer.explain(base, patch)
        except explainer.malformed as exc:
            return explain_opaque(
                base_format, base, patch, note=None, error=f"{explainer.problem}: {exc}"
            )
    return explain_opaque(base_format, base, patch)

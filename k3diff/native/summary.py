"""Turn compared parts into classification labels and the one-line summary."""

from __future__ import annotations

from collections.abc import Sequence

from k3diff.native.model import (
    LABEL_ORDER,
    Category,
    CudaChanges,
    DynamicChanges,
    Label,
    NativeExplanation,
    SectionRow,
    SegmentRow,
    SymbolChanges,
    ValueChange,
)

_NAMES_IN_SUMMARY = 4


def _resized(row: SectionRow) -> bool:
    return row.base is not None and row.patch is not None and row.base.size != row.patch.size


def _static_symbols_differ(row: SectionRow) -> bool:
    """.symtab / .strtab are not compared entry by entry, so any byte difference counts."""
    return row.status != "identical" and (row.type == "SHT_SYMTAB" or row.name == ".strtab")


def _layout_moved(
    sections: Sequence[SectionRow],
    regions: Sequence[SectionRow],
    segments: Sequence[SegmentRow],
    header_changes: Sequence[ValueChange],
) -> bool:
    """Whether anything moved, grew, shrank, appeared or vanished, or headers were rewritten."""
    if segments or header_changes:
        return True
    if any(row.moved or row.status in ("added", "removed") or _resized(row) for row in sections):
        return True
    return any(
        row.status != "identical" and (row.category == "header" or _resized(row)) for row in regions
    )


_UNLOADED_TABLES = frozenset({".symtab", ".strtab", ".shstrtab"})
"""Non-allocated sections besides debug ones that a debug-info change shifts in the file."""


def _debug_only(
    differing: set[Category],
    labels: set[Label],
    sections: Sequence[SectionRow],
    segments: Sequence[SegmentRow],
    header_changes: Sequence[ValueChange],
    dynamic: DynamicChanges,
    symbols: SymbolChanges,
) -> bool:
    """Only debug sections (and notes, static symbol tables) differ, and whatever moved is
    never loaded: no code, data, dynamic symbol, CUDA, segment or loaded-section change."""
    if "debug" not in differing or not differing <= {"debug", "notes", "symbols"}:
        return False
    if not labels <= {"symbols", "layout"} or symbols or dynamic or segments:
        return False
    if any(change.field != "e_shoff" for change in header_changes):
        return False
    for row in sections:
        shifted = row.moved or row.status in ("added", "removed") or _resized(row)
        if row.status == "identical" and not shifted:
            continue
        unloaded = row.category == "debug" or row.name in _UNLOADED_TABLES
        if not unloaded and not (row.category == "notes" and not shifted):
            return False
    return True


def classify(
    sections: Sequence[SectionRow],
    regions: Sequence[SectionRow],
    segments: Sequence[SegmentRow],
    header_changes: Sequence[ValueChange],
    dynamic: DynamicChanges,
    symbols: SymbolChanges,
    cuda: CudaChanges | None,
) -> tuple[Label, ...]:
    """Labels for what differs, in LABEL_ORDER."""
    differing = {row.category for row in sections if row.status != "identical"}
    labels: set[Label] = set()
    if "code" in differing:
        labels.add("code")
    if "data" in differing or any(
        row.category == "padding" and row.status == "changed" and not _resized(row)
        for row in regions
    ):
        labels.add("data")
    if symbols or dynamic or any(_static_symbols_differ(row) for row in sections):
        labels.add("symbols")
    if "cuda" in differing or cuda:
        labels.add("cuda")
    layout = _layout_moved(sections, regions, segments, header_changes)
    # Dynamic symbol tables whose entries all compare equal differ only in addresses: layout.
    if layout or ("symbols" in differing and "symbols" not in labels):
        labels.add("layout")
    if not labels and differing == {"notes"}:
        labels.add("notes-only")
    if _debug_only(differing, labels, sections, segments, header_changes, dynamic, symbols):
        labels = {"debug-only"}
    if not labels and not differing:
        labels.add("identical-content")
    return tuple(label for label in LABEL_ORDER if label in labels)


def _section_phrase(row: SectionRow) -> str:
    if row.status in ("added", "removed"):
        return f"{row.name} {row.status}"
    if _resized(row) and row.base is not None and row.patch is not None:
        return f"{row.name} {row.patch.size - row.base.size:+,} B"
    return row.name


def _sections_phrase(explanation: NativeExplanation) -> str:
    differing = explanation.differing_sections
    names = [_section_phrase(row) for row in differing[:_NAMES_IN_SUMMARY]]
    if len(differing) > _NAMES_IN_SUMMARY:
        names.append("…")
    return f"{len(differing)} of {len(explanation.sections)} sections differ ({', '.join(names)})"


def _cuda_phrase(cuda: CudaChanges) -> str:
    if cuda.error is not None:
        return f"CUDA images unreadable: {cuda.error}"
    return (
        f"CUDA images {len(cuda.changed)} changed, {len(cuda.added)} added, "
        f"{len(cuda.removed)} removed of {cuda.base_images}"
    )


def _build_id_phrase(explanation: NativeExplanation) -> str:
    old, new = explanation.base.build_id, explanation.patch.build_id
    if old == new:
        return f"build-id unchanged ({old})" if old else ""
    return f"build-id {old or 'none'} → {new or 'none'}"


def summarize(explanation: NativeExplanation) -> str:
    """One line: labels, then the evidence behind them."""
    labels = explanation.classification
    if "identical-content" in labels:
        return "no section, header or padding byte differs"
    parts = [_sections_phrase(explanation)] if explanation.differing_sections else []
    symbols = explanation.symbols
    if symbols:
        parts.append(
            f"dynamic symbols +{len(symbols.added)} -{len(symbols.removed)} ~{len(symbols.changed)}"
        )
    dynamic = explanation.dynamic
    if dynamic.needed_added or dynamic.needed_removed:
        parts.append(f"DT_NEEDED +{len(dynamic.needed_added)} -{len(dynamic.needed_removed)}")
    if dynamic.needed_rehashed:
        parts.append(f"{len(dynamic.needed_rehashed)} vendored DT_NEEDED re-hashed")
    parts.extend(f"{change.field} changed" for change in dynamic.changes)
    if explanation.cuda is not None and explanation.cuda:
        parts.append(_cuda_phrase(explanation.cuda))
    if labels in (("notes-only",), ("debug-only",)):
        parts.append(_build_id_phrase(explanation))
    if not parts:
        parts.append("only headers or padding differ")
    return f"{', '.join(labels)}: {'; '.join(p for p in parts if p)}"

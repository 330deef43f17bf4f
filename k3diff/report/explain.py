"""Text and Markdown views of a `NativeExplanation` (the JSON view is
`documents.native.explanation_json`).

The text view is compact: it shows what differs, capped, and leaves the full lists to JSON.
"""

from __future__ import annotations

from tabulate import tabulate

from k3diff import escape
from k3diff.native.model import (
    CudaChanges,
    CudaImage,
    DynamicSymbol,
    ImageChange,
    NativeExplanation,
    Placement,
    SectionRow,
    SymbolChange,
)
from k3diff.report.markdown import capped, cell, escape_inline, inline_code, markdown_cell

SYMBOL_CAP = 20
"""Dynamic symbol lines shown before "… N more"."""
IMAGE_CAP = 20
"""CUDA image lines shown before "… N more"."""
SECTION_CAP = 40
"""Differing section rows shown before "… N more"."""

_SECTION_HEADER = ("section", "kind", "status", "base bytes", "patch bytes")  # words73: a unit
_SECTION_ALIGN = ("left", "left", "left", "right", "right")
"""Sizes right-aligned, set here: tabulate guesses per column, and a column of `-` and
`1,234` cells reads as text and would be left-aligned beside a numeric one."""


def _size(place: Placement | None) -> str:
    return "-" if place is None else f"{place.size:,}"


def _section_cells(row: SectionRow) -> list[str]:
    status = f"{row.status}, moved" if row.moved and row.status == "identical" else row.status
    return [row.name, row.category, status, _size(row.base), _size(row.patch)]


def _differing_rows(expl: NativeExplanation) -> list[SectionRow]:
    regions = [row for row in expl.file_regions if row.status != "identical"]
    return [*expl.differing_sections, *regions]


def symbol_label(symbol: DynamicSymbol) -> str:
    """``name@version (FUNC GLOBAL, 120 B)``; ``UND`` marks an import."""
    name = f"{symbol.name}@{symbol.version}" if symbol.version else symbol.name
    kind = symbol.type.removeprefix("STT_")
    binding = symbol.binding.removeprefix("STB_")
    where = "" if symbol.defined else " UND"
    return f"{name} ({kind} {binding}{where}, {symbol.size:,} B)"


def _symbol_change(change: SymbolChange) -> str:
    old, new = change.base, change.patch
    fields = [
        f"{label} {a} → {b}"
        for label, a, b in (
            ("size", f"{old.size:,}", f"{new.size:,}"),
            ("type", old.type.removeprefix("STT_"), new.type.removeprefix("STT_")),
            ("binding", old.binding.removeprefix("STB_"), new.binding.removeprefix("STB_")),
            ("defined", old.defined, new.defined),
        )
        if a != b
    ]
    name = f"{old.name}@{old.version}" if old.version else old.name
    return f"~ {name}: {', '.join(fields)}"


def _symbol_lines(expl: NativeExplanation) -> list[str]:
    symbols = expl.symbols
    if not symbols:
        return []
    entries = [
        *(f"+ {symbol_label(s)}" for s in symbols.added),
        *(f"- {symbol_label(s)}" for s in symbols.removed),
        *(_symbol_change(c) for c in symbols.changed),
    ]
    head = (
        f"Dynamic symbols: {len(symbols.added)} added, {len(symbols.removed)} removed, "
        f"{len(symbols.changed)} changed"
    )
    return [head, *capped(entries, SYMBOL_CAP, lambda line: f"  {line}")]


def _dynamic_lines(expl: NativeExplanation) -> list[str]:
    dynamic = expl.dynamic
    lines = [f"DT_NEEDED added: {name}" for name in dynamic.needed_added]
    lines += [f"DT_NEEDED removed: {name}" for name in dynamic.needed_removed]
    lines += [
        f"DT_NEEDED re-hashed (same vendored library): {change.base} → {change.patch}"
        for change in dynamic.needed_rehashed
    ]
    lines += [
        f"{change.field}: {change.base or '(none)'} → {change.patch or '(none)'}"
        for change in dynamic.changes
    ]
    return lines


def image_label(image: CudaImage) -> str:
    """``cubin sm_90 [12.0] lz4 3,172 B``: kind, arch, container.entry, storage, size."""
    storage = image.compression or "plain"
    where = f"[{image.container_index}.{image.entry_index}]"
    return f"{image.kind} {image.arch_label} {where} {storage} {image.size:,} B"


def _image_change(change: ImageChange) -> str:
    old, new = change.base, change.patch
    moved = (old.container_index, old.entry_index) != (new.container_index, new.entry_index)
    where = f"[{new.container_index}.{new.entry_index}] " if moved else ""
    return f"~ {image_label(old)} → {where}{new.size:,} B"


def _cuda_lines(cuda: CudaChanges | None) -> list[str]:
    if cuda is None:
        return []
    place = cuda.section or "file"
    if cuda.error is not None:
        return [f"CUDA images ({place}): not walked: {cuda.error}"]
    head = (
        f"CUDA images ({place}): {cuda.base_images:,} → {cuda.patch_images:,}; "
        f"{cuda.identical:,} identical, {len(cuda.changed):,} changed, "
        f"{len(cuda.added):,} added, {len(cuda.removed):,} removed"
    )
    entries = [
        *(_image_change(c) for c in cuda.changed),
        *(f"+ {image_label(image)}" for image in cuda.added),
        *(f"- {image_label(image)}" for image in cuda.removed),
    ]
    return [head, *capped(entries, IMAGE_CAP, lambda line: f"  {line}")]


def _facts_lines(expl: NativeExplanation) -> list[str]:
    base, patch = expl.base, expl.patch
    lines = [f"Size: {base.size:,} → {patch.size:,} bytes"]
    if base.build_id or patch.build_id:
        same = " (unchanged)" if base.build_id == patch.build_id else ""
        lines.append(f"Build-id: {base.build_id or '(none)'} → {patch.build_id or '(none)'}{same}")
    if base.sm_arch is not None or patch.sm_arch is not None:
        lines.append(f"SM arch: sm_{base.sm_arch} → sm_{patch.sm_arch}")
    return lines


def explain_text_lines(expl: NativeExplanation) -> list[str]:
    """The explanation as plain lines, compact and capped (callers indent them)."""
    lines = [f"{expl.format}: {expl.summary}"]
    if expl.error is not None and expl.error not in expl.summary:
        lines.append(f"Error: {expl.error}")
    if expl.note is not None:
        lines.append(f"Note: {expl.note}")
    lines += _facts_lines(expl)
    rows = _differing_rows(expl)
    if rows:
        cells = [[escape.text(c) for c in _section_cells(row)] for row in rows[:SECTION_CAP]]
        lines += tabulate(
            cells, headers=_SECTION_HEADER, tablefmt="simple", colalign=_SECTION_ALIGN
        ).splitlines()
        if len(rows) > SECTION_CAP:
            lines.append(f"… {len(rows) - SECTION_CAP} more")
    lines += [f"ELF header {c.field}: {c.base} → {c.patch}" for c in expl.header_changes]
    if expl.segments:
        lines.append(f"Program headers: {len(expl.segments)} differ")
    lines += _platform_lines(expl) + _dynamic_lines(expl) + _symbol_lines(expl)
    lines += _cuda_lines(expl.cuda)
    return [escape.text(line) for line in lines]


def _platform_lines(expl: NativeExplanation) -> list[str]:
    """The loader's demands of the system: one line with the patch's, then what changed."""
    if expl.platform is None:
        return []
    base, patch = expl.platform
    needs = ", ".join(
        f"{label} {value}"
        for label, value in (
            ("GLIBC", patch.glibc),
            ("GLIBCXX", patch.glibcxx),
            ("CXXABI", patch.cxxabi),
        )
        if value
    )
    lines = [f"Requires: {needs or 'no versioned glibc/libstdc++ symbols'}"]
    lines += [
        f"Platform change: {line}"
        for line in base.changes(patch)
        if not line.startswith(("DT_NEEDED", "RPATH", "RUNPATH"))
    ]
    return lines


def explain_markdown(expl: NativeExplanation) -> str:
    """The explanation as a Markdown fragment (no heading: callers place it under theirs)."""
    parts = [f"**{expl.format}**: {escape_inline(expl.summary)}"]
    if expl.error is not None and expl.error not in expl.summary:
        parts.append(f"**Error:** {escape_inline(expl.error)}")
    if expl.note is not None:
        parts.append(f"_Note: {escape_inline(expl.note)}_")
    parts.append("\n".join(f"- {escape_inline(line)}" for line in _facts_lines(expl)))
    rows = _differing_rows(expl)
    if rows:
        cells = [
            [_code(c) if i == 0 else cell(c) for i, c in enumerate(_section_cells(r))] for r in rows
        ]
        parts.append(
            tabulate(
                cells[:SECTION_CAP],
                headers=_SECTION_HEADER,
                tablefmt="github",
                colalign=_SECTION_ALIGN,
            )
        )
        if len(rows) > SECTION_CAP:
            parts.append(f"… {len(rows) - SECTION_CAP} more")
    facts = [f"ELF header {c.field}: {c.base} → {c.patch}" for c in expl.header_changes]
    bullets = [
        f"- {escape_inline(line)}" for line in facts + _platform_lines(expl) + _dynamic_lines(expl)
    ]
    for block in (_symbol_lines(expl), _cuda_lines(expl.cuda)):
        if block:
            bullets.append(f"- {escape_inline(block[0])}")
            bullets += [f"  - {_item(line.strip())}" for line in block[1:]]
    if bullets:
        parts.append("\n".join(bullets))
    return "\n\n".join(parts) + "\n"


def _item(text: str) -> str:
    return escape_inline(text) if text.startswith("…") else _code(text)


def _code(text: str) -> str:
    return markdown_cell(inline_code(text))

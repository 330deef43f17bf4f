"""JSON forms of the native explanation (`k3diff wheels --explain`): `explanation_json` and the
named functions it calls, one per form."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # annotations only: a report without --explain loads no native model
    from k3diff.native.model import (
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
    from k3diff.native.platform import PlatformNeeds

__all__ = ["explanation_json", "platform_needs_json"]


def _file_facts_json(value: FileFacts) -> dict[str, Any]:
    return {
        "size": value.size,
        "xxh3_128": value.xxh3_128,
        "build_id": value.build_id,
        "machine": value.machine,
        "sm_arch": value.sm_arch,
    }


def _placement_json(value: Placement) -> dict[str, Any]:
    return {
        "offset": value.offset,
        "address": value.address,
        "size": value.size,
        "xxh3_128": value.xxh3_128,
    }


def _section_row_json(value: SectionRow) -> dict[str, Any]:
    return {
        "name": value.name,
        "type": value.type,
        "category": value.category,
        "status": value.status,
        "moved": value.moved,
        "base": None if value.base is None else _placement_json(value.base),
        "patch": None if value.patch is None else _placement_json(value.patch),
    }


def _segment_info_json(value: SegmentInfo) -> dict[str, Any]:
    return {
        "type": value.type,
        "offset": value.offset,
        "vaddr": value.vaddr,
        "filesz": value.filesz,
        "memsz": value.memsz,
        "flags": value.flags,
        "align": value.align,
    }


def _segment_row_json(value: SegmentRow) -> dict[str, Any]:
    return {
        "index": value.index,
        "status": value.status,
        "base": None if value.base is None else _segment_info_json(value.base),
        "patch": None if value.patch is None else _segment_info_json(value.patch),
    }


def _value_change_json(value: ValueChange) -> dict[str, Any]:
    return {"field": value.field, "base": value.base, "patch": value.patch}


def _dynamic_changes_json(value: DynamicChanges) -> dict[str, Any]:
    return {
        "needed_added": list(value.needed_added),
        "needed_removed": list(value.needed_removed),
        "needed_rehashed": [_value_change_json(change) for change in value.needed_rehashed],
        "changes": [_value_change_json(change) for change in value.changes],
    }


def _dynamic_symbol_json(value: DynamicSymbol) -> dict[str, Any]:
    return {
        "name": value.name,
        "version": value.version,
        "binding": value.binding,
        "type": value.type,
        "size": value.size,
        "defined": value.defined,
    }


def _symbol_change_json(value: SymbolChange) -> dict[str, Any]:
    return {"base": _dynamic_symbol_json(value.base), "patch": _dynamic_symbol_json(value.patch)}


def _symbol_changes_json(value: SymbolChanges) -> dict[str, Any]:
    return {
        "added": [_dynamic_symbol_json(symbol) for symbol in value.added],
        "removed": [_dynamic_symbol_json(symbol) for symbol in value.removed],
        "changed": [_symbol_change_json(change) for change in value.changed],
    }


def _cuda_image_json(value: CudaImage) -> dict[str, Any]:
    return {
        "container_index": value.container_index,
        "entry_index": value.entry_index,
        "kind": value.kind,
        "sm_arch": value.sm_arch,
        "flags": f"0x{value.flags:x}",
        "compressed": value.compressed,
        "compression": value.compression,
        "size": value.size,
        "uncompressed_size": value.uncompressed_size,
        "xxh3_128": value.xxh3_128,
    }


def _image_change_json(value: ImageChange) -> dict[str, Any]:
    return {"base": _cuda_image_json(value.base), "patch": _cuda_image_json(value.patch)}


def _cuda_changes_json(value: CudaChanges) -> dict[str, Any]:
    return {
        "section": value.section,
        "base_images": value.base_images,
        "patch_images": value.patch_images,
        "identical": value.identical,
        "added": [_cuda_image_json(image) for image in value.added],
        "removed": [_cuda_image_json(image) for image in value.removed],
        "changed": [_image_change_json(change) for change in value.changed],
        "error": value.error,
    }


def explanation_json(value: NativeExplanation) -> dict[str, Any]:
    return {
        "format": value.format,
        "classification": list(value.classification),
        "summary": value.summary,
        "base": _file_facts_json(value.base),
        "patch": _file_facts_json(value.patch),
        "sections": [_section_row_json(row) for row in value.sections],
        "file_regions": [_section_row_json(row) for row in value.file_regions],
        "segments": [_segment_row_json(row) for row in value.segments],
        "header_changes": [_value_change_json(change) for change in value.header_changes],
        "dynamic": _dynamic_changes_json(value.dynamic),
        "symbols": _symbol_changes_json(value.symbols),
        "cuda": None if value.cuda is None else _cuda_changes_json(value.cuda),
        "note": value.note,
        "error": value.error,
        "platform": None
        if value.platform is None
        else {
            side: platform_needs_json(needs)
            for side, needs in zip(("base", "patch"), value.platform, strict=True)
        },
    }


def platform_needs_json(needs: PlatformNeeds) -> dict[str, Any]:
    """The JSON form of an ELF's platform needs, as `wheels --explain` and `audit` write it
    (each native of a `k3diff.audit/2` artifact too)."""
    return {
        "glibc": needs.glibc,
        "glibcxx": needs.glibcxx,
        "cxxabi": needs.cxxabi,
        "needed": list(needs.needed),
        "rpath": needs.rpath,
        "runpath": needs.runpath,
    }

"""The kind of one proven pair (`schedule._compare_pair`): from its path, or sniffed from its
first content bytes when the path does not decide it."""

from __future__ import annotations

from k3diff.wheel.kinds import SNIFF_BYTES, EntryKind, is_native_magic, kind_from_path
from k3diff.zip.archive import ZipArchive
from k3diff.zip.directory import ZipEntry
from k3diff.zip.inflate import head_from_data


def pair_kind(
    base: ZipArchive,
    base_entry: ZipEntry | None,
    patch: ZipArchive,
    patch_entry: ZipEntry | None,
    differs: bool,
    patch_raw: bytes | None = None,
    patch_head: bytes | None = None,
) -> EntryKind:
    """Native when either side is native: a library replaced by a stub still counts as native.

    Content magic decides before the extension: an ELF named `.py` is native. A Python file is
    sniffed only when it `differs` (changed, added or missing): an identical entry's kind
    decides no finding, and a wheel's twelve thousand sources need not be read for it.
    `patch_raw`: the patch entry's compressed bytes when the proof read them whole, sniffed
    from there instead of read again; `patch_head`: its first content bytes, when the proof
    inflated it whole."""
    entry = patch_entry if patch_entry is not None else base_entry
    assert entry is not None
    by_path = kind_from_path(entry.name)
    if by_path is not None and not (by_path is EntryKind.PYTHON and differs):
        return by_path
    if (patch_raw is not None or patch_head is not None) and base_entry is None:
        assert patch_entry is not None
        if patch_head is None:
            assert patch_raw is not None
            patch_head = head_from_data(patch_entry, patch_raw, SNIFF_BYTES)
        native = is_native_magic(patch_head)
        return EntryKind.NATIVE if native else (by_path or EntryKind.OTHER)
    sides = ((patch, patch_entry), (base, base_entry))
    for archive, side_entry in sides:
        if side_entry is not None and is_native_magic(archive.head(side_entry, SNIFF_BYTES)):
            return EntryKind.NATIVE
    return by_path or EntryKind.OTHER

"""One entry pair's result as the schedule builds it: its kind (content magic before the extension,
sniffed only where it decides a finding) and every field `entry_result_from` needs.
"""

from __future__ import annotations

from k3diff.wheel.kinds import SNIFF_BYTES, EntryKind, is_native_magic, kind_from_path
from k3diff.wheel.modes import mode_change
from k3diff.wheels.model import EntryResult, entry_result_from
from k3diff.wheels.pairing import EntryPair
from k3diff.wheels.proof import How, Proof, Status
from k3diff.zip.archive import ZipArchive
from k3diff.zip.directory import ZipEntry
from k3diff.zip.inflate import head_from_data


def pair_result(pair: EntryPair, proof: Proof, kind: EntryKind) -> EntryResult:
    """The entry's result; identical content that pip installs with another exec bit or file
    type is a change (how: mode)."""
    status, how = proof.status, proof.how
    base_entry, patch_entry = pair.base, pair.patch
    base_mode = base_entry.external_attr >> 16 if base_entry is not None else None
    patch_mode = patch_entry.external_attr >> 16 if patch_entry is not None else None
    if status is Status.IDENTICAL and base_mode != patch_mode:  # rare: checked in full only then
        change = mode_change(base_entry, patch_entry)
        if change is not None and change.installed:
            status, how = Status.CHANGED, How.MODE
    # Every field, as `entry_result_from` needs: one of these per entry.
    return entry_result_from(
        {
            "path": pair.path,
            "base_path": base_entry.name if base_entry else None,
            "patch_path": patch_entry.name if patch_entry else None,
            "kind": kind,
            "status": status,
            "how": how,
            "recompressed": proof.recompressed,
            "base_size": base_entry.size if base_entry else None,
            "patch_size": patch_entry.size if patch_entry else None,
            "base_crc32": base_entry.crc32 if base_entry else None,
            "patch_crc32": patch_entry.crc32 if patch_entry else None,
            "diff": None,
            "source": None,
            "native": None,
            "corrupt": proof.corrupt,
            "patch_digest": proof.patch_digest,
            "base_mode": base_mode,
            "patch_mode": patch_mode,
            "installed_path": pair.installed_path,
            "base_installed_path": pair.base_installed_path,
            "moved": pair.moved,
            "loader": None,
        }
    )


_SNIFFED_WHEN_CHANGED = (EntryKind.PYTHON, EntryKind.METADATA)
"""Kinds a path gives that content magic overrides for an entry that differs."""


def entry_kind(
    base: ZipArchive,
    base_entry: ZipEntry | None,
    patch: ZipArchive,
    patch_entry: ZipEntry | None,
    differs: bool,
    patch_raw: bytes | None = None,
    patch_head: bytes | None = None,
) -> EntryKind:
    """Native when either side is native: a library replaced by a stub still counts as native.

    Content magic decides before the extension: an ELF named `.py` is native, and so is one
    under `.dist-info/` (pip installs it all the same). A Python or metadata file is sniffed
    only when it `differs` (changed, added or missing): an identical entry's kind decides no
    finding, and a wheel's twelve thousand sources need not be read for it.
    `patch_raw`: the patch entry's compressed bytes when the proof read them whole, sniffed
    from there instead of read again; `patch_head`: its first content bytes, when the proof
    inflated it whole."""
    entry = patch_entry if patch_entry is not None else base_entry
    assert entry is not None
    by_path = kind_from_path(entry.name)
    if by_path is not None and not (differs and by_path in _SNIFFED_WHEN_CHANGED):
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

"""Small recompressed pairs proven identical in one tight loop: the common case of a rebuilt wheel.

On a wheel whose every entry was recompressed (the torch CPU wheel: 12,000 entries, 11,000 of
them under 4 KiB compressed), each small pair is read and inflated whole on both sides and
compared (`proof.prove_reading`'s small-entry path), and its result built by `schedule`'s
generic path (`_compare_pair`: the RECORD plan asked twice, the proof's checks, the kind, a
21-key result, `_is_final`): Python that holds the GIL between the pair's two inflates, which
let it go, in the pool's last tasks (largest first), where two workers contending for it kept
little more than one core busy. `identical_small` does what that path does for the outcome
nearly every such pair has (identical content, the same mode, the same path with a RECORD row
that wants no hash), with no call it does not need: ≈ 13 % fewer instructions for the small
pairs of the torch CPU wheel. Any other pair, or any other outcome, goes to the generic path,
which reads the pair again and says what it is: a changed, corrupt or forged small stream is
rare, and its second read counts once more against the archive's inflate budget (eight reads
of every entry).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import fields

from k3diff.wheel.kinds import SNIFF_BYTES, EntryKind, is_native_magic, kind_from_path
from k3diff.wheels import proof
from k3diff.wheels.model import EntryResult
from k3diff.wheels.pairing import EntryPair
from k3diff.wheels.proof import How, Status
from k3diff.zip.archive import ZipArchive

Results = list[tuple[int, EntryResult]]
"""Results by pair index (as `schedule.Results`)."""


def identical_small(
    base: ZipArchive,
    patch: ZipArchive,
    pairs: Sequence[EntryPair],
    batch: Sequence[int],
    unchanged: frozenset[str],
) -> tuple[Results, list[int]]:
    """The pairs of `batch` that this path proves identical by content, with their final
    results, and the indices of the others (in `batch`'s order), for the generic path.

    A pair is taken here only when the generic path (`schedule._compare_pair`, then
    `schedule._is_final`) would give it the result built here: both entries present with the
    same declared size and CRC-32, stored differently (another method or compressed size: the
    same layout is compared raw first), at most `proof.SMALL_ENTRY` bytes, the same mode, the
    same path on both sides with a RECORD row that wants no hash (`recordplan.unchanged_rows`);
    and it is kept only when the base stream inflates whole with its declared CRC-32 and the
    patch stream to the same bytes (`ZipArchive.small_content_crc` and `small_content`, as the
    generic path reads them). The kind is the path's, else sniffed from the content, as
    `pairresult.entry_kind` does for identical content."""
    done: Results = []
    rest: list[int] = []
    base_read, patch_read = base.small_content_crc, patch.small_content
    small = proof.SMALL_ENTRY  # read here: a test sets it to stream every entry
    template = _IDENTICAL_CONTENT_FIELDS
    for index in batch:
        base_entry, patch_entry, installed, base_installed, moved = pairs[index]
        if (
            base_entry is None
            or patch_entry is None
            or base_entry.size > small
            or base_entry.size != patch_entry.size
            or base_entry.crc32 != patch_entry.crc32
            or (
                base_entry.method == patch_entry.method
                and base_entry.compressed_size == patch_entry.compressed_size
            )
        ):
            rest.append(index)
            continue
        name = patch_entry.name
        mode = patch_entry.external_attr >> 16
        if (
            base_entry.name != name
            or name not in unchanged
            or base_entry.external_attr >> 16 != mode
        ):
            rest.append(index)
            continue
        read = base_read(base_entry)
        if read is None or read[1] != base_entry.crc32:
            rest.append(index)
            continue
        content = read[0]
        if content != patch_read(patch_entry):
            rest.append(index)
            continue
        kind = kind_from_path(name)
        if kind is None:
            kind = EntryKind.NATIVE if is_native_magic(content[:SNIFF_BYTES]) else EntryKind.OTHER
        values = template.copy()
        values["path"] = values["base_path"] = values["patch_path"] = name
        values["kind"] = kind
        values["base_size"] = values["patch_size"] = base_entry.size
        values["base_crc32"] = values["patch_crc32"] = base_entry.crc32
        values["base_mode"] = values["patch_mode"] = mode
        values["installed_path"] = installed
        values["base_installed_path"] = base_installed
        values["moved"] = moved
        result = _new(EntryResult)
        result.__dict__.update(values)  # as `model.entry_result_from`, without its call
        done.append((index, result))
    return done, rest


_new = object.__new__

_IDENTICAL_CONTENT_FIELDS = {
    **dict.fromkeys(field.name for field in fields(EntryResult)),
    **{"status": Status.IDENTICAL, "how": How.CONTENT, "recompressed": True},
}
"""Every field of `EntryResult` in its order, those of a pair identical by content set (the
rest None until `identical_small` sets them)."""

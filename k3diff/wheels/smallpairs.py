"""Small recompressed pairs proven identical in one tight loop: the common case of a rebuilt wheel.

On a wheel whose every entry was recompressed (the torch CPU wheel: 12,000 entries, 11,000 of
them under 4 KiB compressed), each small pair is read and inflated whole on both sides and
compared (`proof.prove_reading`'s small-entry path), and its result built by `schedule`'s
generic path (`_compare_pair`: the RECORD plan asked twice, the proof's checks, the kind, a
21-key result, `_is_final`): Python that holds the GIL between the pair's two inflates, which
let it go, in the pool's last tasks (largest first), where two workers contending for it kept
little more than one core busy. `identical_small` does what that path does for the outcome
nearly every such pair has (identical content, the same mode, the same path with a RECORD row
that wants no hash), with no call it does not need, and keeps the pairs it proves as columns
(an `IdenticalRun` of how CONTENT: no result object each, as for raw-identical spans), which
the summary, the findings and the JSON writer read as columns. Any other pair, or any other outcome, goes to the generic path,
which reads the pair again and says what it is: a changed, corrupt or forged small stream is
rare, and its second read counts once more against the archive's inflate budget (eight reads
of every entry).
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import islice
from operator import gt

from k3diff.wheel.kinds import SNIFF_BYTES, EntryKind, is_native_magic, kind_from_path
from k3diff.wheels import proof
from k3diff.wheels.entryruns import IdenticalRun
from k3diff.wheels.pairing import EntryPair
from k3diff.wheels.proof import How
from k3diff.zip.archive import ZipArchive


def identical_small(
    base: ZipArchive,
    patch: ZipArchive,
    pairs: Sequence[EntryPair],
    batch: Sequence[int],
    unchanged: frozenset[str],
) -> tuple[IdenticalRun | None, list[int]]:
    """The pairs of `batch` that this path proves identical by content, as one `IdenticalRun`
    (how CONTENT: their results final, built only when read; None when it takes none), and the
    indices of the others (in `batch`'s order), for the generic path.

    A pair is taken here only when the generic path (`schedule._compare_pair`, then
    `schedule._is_final`) would give it the result the run builds: both entries present with
    the same declared size and CRC-32, stored differently (another method or compressed size:
    the same layout is compared raw first), at most `proof.SMALL_ENTRY` bytes, the same mode,
    the same path on both sides with a RECORD row that wants no hash
    (`recordplan.unchanged_rows`); and it is kept only when the base stream inflates whole with
    its declared CRC-32 and the patch stream to the same bytes (`ZipArchive.small_content_crc`
    and `small_content`, as the generic path reads them). The kind is the path's, else sniffed
    from the content, as `schedule._kind` does for identical content."""
    indices: list[int] = []
    taken: list[EntryPair] = []
    kinds: list[EntryKind] = []
    rest: list[int] = []
    base_read, patch_read = base.small_content_crc, patch.small_content
    small = proof.SMALL_ENTRY  # read here: a test sets it to stream every entry
    for index in batch:
        pair = pairs[index]
        base_entry, patch_entry = pair[0], pair[1]
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
        if (
            base_entry.name != name
            or name not in unchanged
            or base_entry.external_attr >> 16 != patch_entry.external_attr >> 16
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
        indices.append(index)
        taken.append(pair)
        kinds.append(kind)
    if not indices:
        return None, rest
    if any(map(gt, indices, islice(indices, 1, None))):  # a run's indices ascend
        order = sorted(range(len(indices)), key=indices.__getitem__)
        indices = list(map(indices.__getitem__, order))
        taken = list(map(taken.__getitem__, order))
        kinds = list(map(kinds.__getitem__, order))
    return IdenticalRun(indices, taken, kinds, How.CONTENT), rest

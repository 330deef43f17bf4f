"""Verify the RECORD hash of changed and added entries while their content is read anyway.

The base's RECORD is the reference for identical entries whose row hash is the base's (an equal
hash is all that is needed); an identical entry whose row hash changed (another algorithm or
digest) is hashed with the algorithm its row names.
A changed or added entry has no reference: its content is hashed with the algorithm its RECORD
row names, during the read the comparison makes anyway (content proof, text diff, --explain),
or in a read of its own when nothing else inflates it. A changed or added native entry whose
change already fails the run is not read just to hash it: that would cost a full inflate of the
largest entries for a verdict that is FAIL either way (`k3diff audit` verifies every hash); one
a waiver may cover is hashed (its change may pass the run).
"""

from __future__ import annotations

from itertools import compress, repeat
from operator import eq, is_, itemgetter, or_

from k3diff.wheel.codes import Code
from k3diff.wheel.kinds import EntryKind
from k3diff.wheel.policy import Policy
from k3diff.wheel.record import RecordLine
from k3diff.wheel.recordhash import record_algorithm
from k3diff.wheels.model import EntryResult
from k3diff.wheels.proof import How, Status
from k3diff.zip.directory import ZipEntry

Records = tuple[dict[str, RecordLine] | None, dict[str, RecordLine] | None]
"""The (base, patch) RECORD rows by path, None for a wheel without RECORD."""

_STATUS_FAILS = {
    Status.CHANGED: Code.W101,
    Status.ADDED: Code.W103,
}


def _lines(
    records: Records, base_path: str | None, patch_path: str | None
) -> tuple[RecordLine | None, RecordLine | None]:
    base_record, patch_record = records
    base_line = base_record.get(base_path) if base_record and base_path else None
    patch_line = patch_record.get(patch_path) if patch_record and patch_path else None
    return base_line, patch_line


def content_proof_algorithm(records: Records, base: ZipEntry, patch: ZipEntry) -> str | None:
    """Algorithm to hash the patch with during a content proof, or None.

    Only when the patch's RECORD hash differs from the base's: an equal hash on content that
    turns out changed is already a stale RECORD, and on identical content it is right."""
    base_line, line = _lines(records, base.name, patch.name)
    if line is None or (base_line is not None and base_line.hash == line.hash):
        return None  # the common case, decided before parsing the row's algorithm
    return record_algorithm(line)


def unchanged_rows(records: Records) -> frozenset[str]:
    """The patch RECORD's paths whose row needs no hash for content identical to the base's
    entry of the same path: the row has no hash, or the base's row for that path has the same
    hash. `wanted_algorithm` is None for such an entry, decided here once for all of them."""
    base_record, patch_record = records
    if patch_record is None:
        return frozenset()
    # Each test over every row by a C-level map: a row missing from the base meets a row
    # without a hash, which settles only a patch row without one (settled anyway).
    paths = list(patch_record)
    hashes = list(map(_HASH, patch_record.values()))
    base_get = (base_record or {}).get
    base_hashes = map(_HASH, map(base_get, paths, repeat(_NO_ROW)))
    settled = map(or_, map(is_, hashes, repeat(None)), map(eq, base_hashes, hashes))
    return frozenset(compress(paths, settled))


_HASH = itemgetter(2)
"""`RecordLine.hash`, as a C-level getter."""
_NO_ROW = RecordLine(None, None)


def wanted_algorithm(result: EntryResult, records: Records, policy: Policy) -> str | None:
    """Algorithm to hash this entry's patch content with, or None when it needs no hashing.

    Content identical to the base's needs hashing only when its RECORD row's hash differs from
    the base's (another algorithm or digest: nothing vouches for it then). An identical entry
    whose path is in `unchanged_rows` is not asked (the schedule settles it); for the others it
    runs up to twice, the common case decided first, in a few lookups."""
    if result.patch_digest is not None or result.corrupt is not None:
        return None
    base_record, patch_record = records
    patch_path = result.patch_path
    line = patch_record.get(patch_path) if patch_record and patch_path else None
    if line is None or line.hash is None:
        return None
    base_path = result.base_path
    base_line = base_record.get(base_path) if base_record and base_path else None
    same_row = base_line is not None and base_line.hash == line.hash
    if result.status is Status.IDENTICAL or result.how is How.MODE:
        return None if same_row else _checkable(line, patch_path)
    if result.status not in (Status.CHANGED, Status.ADDED):
        return None
    if result.status is Status.CHANGED and same_row:
        return None  # a stale RECORD: flagged without reading anything
    if result.how is How.CONTENT:
        return None  # the content proof hashed it when the RECORD asked for it
    if result.kind is EntryKind.NATIVE:
        code = _STATUS_FAILS[result.status]
        if policy.reports(code) and policy.fails(code) and not _may_be_waived(policy, code, result):
            return None
    return _checkable(line, patch_path)


def _may_be_waived(policy: Policy, code: Code, result: EntryResult) -> bool:
    """Whether an unexpired waiver may take away the entry's `code` finding: its change then
    may not fail the run, and its RECORD row must be checked. Any artifact glob is taken to
    match (the artifact's name is not known here: hashing once too often is only slower)."""
    waivers = policy.waivers
    if waivers is None:
        return False
    return any(
        waiver.code is code
        and not waiver.expired(waivers.today)
        and waiver.matches_path(result.path)
        for waiver in waivers.waivers
    )


def _checkable(line: RecordLine, path: str | None) -> str | None:
    """The row's algorithm when k3diff can hash with it (never for a directory entry)."""
    if path is None or path.endswith("/"):
        return None
    return record_algorithm(line)

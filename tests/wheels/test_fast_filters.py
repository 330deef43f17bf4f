"""The shortcuts that let twelve thousand identical entries pass in a few attribute reads agree
with the full functions they skip: `_says_nothing` with `_entry_findings`, `_row_agrees` with
`_record_line_findings`, `unchanged_rows` with `wanted_algorithm`, `count_by_kind` with a
plain count. Each is checked over every combination of the fields it reads."""

from __future__ import annotations

import itertools
from collections import Counter
from dataclasses import replace

from k3diff.textdiff import TextDiff
from k3diff.wheel.codes import Policy
from k3diff.wheel.kinds import EntryKind
from k3diff.wheel.record import RecordLine
from k3diff.wheels import findings
from k3diff.wheels.model import EntryResult, count_by_kind
from k3diff.wheels.proof import How, Status
from k3diff.wheels.recordplan import unchanged_rows, wanted_algorithm

SHA_A = "A" * 43
SHA_B = "B" * 43
ENTRY = EntryResult(
    path="pkg/a.h",
    base_path="pkg/a.h",
    patch_path="pkg/a.h",
    kind=EntryKind.OTHER,
    status=Status.IDENTICAL,
    how=How.RAW_BYTES,
    recompressed=False,
    base_size=10,
    patch_size=10,
    base_crc32=1,
    patch_crc32=1,
    base_mode=0o644,
    patch_mode=0o644,
)
LINES = [
    None,
    RecordLine(SHA_A, 10, f"sha256={SHA_A}", "sha256"),
    RecordLine(SHA_B, 10, f"sha256={SHA_B}", "sha256"),
    RecordLine(SHA_A, 11, f"sha256={SHA_A}", "sha256"),
    RecordLine(SHA_A, None, f"sha256={SHA_A}", "sha256"),
    RecordLine(None, 10, "sha512=" + "C" * 86, "sha512"),
    RecordLine(None, 10, "md5=" + "D" * 22, None),
    RecordLine(None, 10, None, None),
]
STATES = [(Status.IDENTICAL, How.RAW_BYTES), (Status.CHANGED, How.MODE)]
STATES += [(Status.CHANGED, How.CONTENT), (Status.CHANGED, How.SIZE)]
STATES += [(Status.ADDED, How.ONE_SIDED), (Status.MISSING, How.ONE_SIDED)]


def _entries() -> list[EntryResult]:
    variants = []
    for (status, how), kind, corrupt, digest, modes, recompressed, moved, diff in itertools.product(
        STATES,
        EntryKind,
        (None, "the patch wheel's stream: bad"),
        (None, f"sha256={SHA_A}", f"sha256={SHA_B}"),
        ((0o644, 0o644), (0o644, 0o100755), (None, 0o644)),
        (False, True),
        (False, True),
        (None, TextDiff(1, 0, "+x\n")),
    ):
        variants.append(
            replace(
                ENTRY,
                status=status,
                how=how,
                kind=kind,
                corrupt=corrupt,
                patch_digest=digest,
                base_mode=modes[0],
                patch_mode=modes[1],
                recompressed=recompressed,
                moved=moved,
                diff=diff,
            )
        )
    return variants


ENTRIES = _entries()


def test_an_entry_that_says_nothing_has_no_finding() -> None:
    quiet = [e for e in ENTRIES if findings._says_nothing(e)]
    assert quiet and len(quiet) < len(ENTRIES)
    for entry in quiet:
        assert list(findings._entry_findings(entry)) == []


def test_a_row_that_agrees_has_no_finding() -> None:
    agreeing = 0
    for entry, line, base_line in itertools.product(ENTRIES, LINES[1:], LINES):
        assert line is not None
        if findings._row_agrees(entry, line, base_line):
            agreeing += 1
            base_record = None if base_line is None else {"pkg/a.h": base_line}
            assert list(findings._record_line_findings(entry, line, base_record)) == []
    assert agreeing > 0


def test_unchanged_rows_want_no_hash_for_identical_content() -> None:
    policy = Policy()
    for base_line, patch_line in itertools.product(LINES, LINES):
        base_record = {} if base_line is None else {"pkg/a.h": base_line}
        patch_record = {} if patch_line is None else {"pkg/a.h": patch_line}
        records = (base_record, patch_record)
        if "pkg/a.h" in unchanged_rows(records):
            for entry in ENTRIES:
                if entry.status is Status.IDENTICAL:
                    assert wanted_algorithm(entry, records, policy) is None
    assert unchanged_rows(({}, None)) == frozenset()


def test_count_by_kind_is_a_plain_count() -> None:
    counts = count_by_kind(ENTRIES)
    plain = Counter((e.kind, e.status) for e in ENTRIES)
    for kind in EntryKind:
        assert counts[kind].total == sum(plain[kind, status] for status in Status)
        assert counts[kind].identical == plain[kind, Status.IDENTICAL]
        assert counts[kind].changed == plain[kind, Status.CHANGED]
        assert counts[kind].missing == plain[kind, Status.MISSING]
        assert counts[kind].added == plain[kind, Status.ADDED]

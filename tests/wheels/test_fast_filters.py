"""The shortcuts that let twelve thousand identical entries pass in a few attribute reads agree
with the full functions they skip: `_says_nothing` with `_entry_findings`, `_row_agrees` with
`_record_line_findings` (and `collect_findings`, which decides both inline, with the full
functions over every entry and row), `unchanged_rows` with `wanted_algorithm`, `count_by_kind`
with a plain count, `notable` with `is_notable`. Each is checked over every combination of the
fields it reads."""

from __future__ import annotations

import itertools
from collections import Counter
from dataclasses import replace
from typing import Any, cast

from k3diff.textdiff import TextDiff
from k3diff.wheel.codes import Code, Finding
from k3diff.wheel.kinds import EntryKind
from k3diff.wheel.metadata import WheelIdentity
from k3diff.wheel.policy import Policy
from k3diff.wheel.record import RecordLine
from k3diff.wheels import findings
from k3diff.wheels.model import EntryResult, WheelReport, WheelSide, count_by_kind, is_notable
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
SIDE = WheelSide(
    path="pkg-1.0-py3-none-any.whl",
    sha256=None,
    size=1,
    identity=WheelIdentity("pkg-1.0.dist-info", "pkg", "1.0", ("py3-none-any",), (), None),
    entry_count=1,
    directory_count=0,
)
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


def _findings_in_full(
    entries: list[EntryResult],
    base_record: dict[str, RecordLine] | None,
    patch_record: dict[str, RecordLine] | None,
) -> list[Finding]:
    """`collect_findings` without a shortcut: every entry through `_entry_findings`, every
    RECORD row through `_record_line_findings`."""
    found = [f for entry in entries for f in findings._entry_findings(entry)]
    if patch_record is None:
        return [*found, Finding(Code.W302, "", "the patch wheel has no .dist-info/RECORD")]
    present = {e.patch_path for e in entries if e.patch_path is not None}
    for listed in sorted(set(patch_record) - present):
        found.append(Finding(Code.W302, listed, "listed in RECORD but absent from the archive"))
    for entry in entries:
        path = entry.patch_path
        if path is None or path.endswith("/"):
            continue
        line = patch_record.get(path)
        if line is None:
            if not findings._is_record_file(path):
                found.append(Finding(Code.W302, path, "not listed in RECORD"))
            continue
        found += findings._record_line_findings(entry, line, base_record)
    return found


def test_collect_findings_is_every_finding_in_full() -> None:
    """The one pass over the entries (each entry's and each RECORD row's findings, decided
    inline where they say nothing) finds exactly what the full functions find, in order."""
    elsewhere = replace(ENTRY, path="pkg/b.h", base_path="pkg/b.h", patch_path="pkg/b.h")
    one_sided = [replace(ENTRY, patch_path=None), replace(ENTRY, base_path=None)]
    directory = replace(ENTRY, path="pkg/", base_path="pkg/", patch_path="pkg/")
    # moved and recompressed change no finding: left out, the test runs in a quarter the time
    entries = [e for e in ENTRIES if not e.moved and not e.recompressed]
    entries += [elsewhere, *one_sided, directory]
    for base_line, line in itertools.product(LINES, LINES):
        base_record = None if base_line is None else {"pkg/a.h": base_line, "gone.h": base_line}
        patch_rows = {} if line is None else {"pkg/a.h": line, "listed/only.h": line}
        for patch_record in (patch_rows, None):
            found = findings.collect_findings(
                entries, [], base_record=base_record, patch_record=patch_record
            )
            assert found == _findings_in_full(entries, base_record, patch_record)


def test_notable_is_is_notable() -> None:
    explained = replace(ENTRY, native=cast(Any, "an explanation"))  # its type is not read
    entries = (*ENTRIES, explained)
    report = WheelReport(base=SIDE, patch=SIDE, entries=entries, metadata_changes=(), findings=())
    notable = report.notable
    assert notable == tuple(filter(is_notable, entries))
    assert 0 < len(notable) < len(entries) and explained in notable

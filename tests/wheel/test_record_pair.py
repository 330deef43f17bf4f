"""The patch's RECORD parsed beside the base's (`recordpair`): the lines equal to the base's
taken from its parse, the others judged alone, reach exactly `parse_record`'s verdict (the same
rows in the same order, the same findings, the same unreadable line) on near-identical pairs,
hostile ones included: a few rows changed, added, removed or given twice, RECORD's own row
moved, dropped, doubled or given a size, paths differing only in case, a renamed `.dist-info`,
rows the csv module must read, and a base RECORD that is not plain itself."""

from __future__ import annotations

import base64
import hashlib
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from wheelkit import make_wheel

from k3diff.wheel import recordpair
from k3diff.wheel.metadata import read_identity
from k3diff.wheel.record import Record, RecordLine, parse_record, parse_wheel_record, plain_row
from k3diff.wheel.recordpair import KnownLines, parse_record_beside, parse_wheel_records
from k3diff.zip.archive import ZipArchive

RECORD = "demo-1.0.dist-info/RECORD"
OTHER = "Demo-1.0.dist-info/RECORD"
"""Another `.dist-info`'s RECORD: a line of the base's may be this path's own row."""


def _digest(data: bytes) -> str:
    return base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def _row(path: str, seed: int, size: str | None = None) -> str:
    return f"{path},sha256={_digest(bytes([seed % 256]))},{seed if size is None else size}"


PATHS = ["demo/a.py", "demo/A.py", "Demo/a.py", "demo/b.py", "demo/é.py", "demo/e\u0301.py", OTHER]
"""Paths that fold to one another (case, normalisation) and another `.dist-info`'s RECORD."""

HOSTILE = [
    "",  # a blank line
    f"{RECORD},,",
    f"{RECORD},,0",  # RECORD listed with a size
    f"{RECORD},sha256={_digest(b'r')},3",
    f"{OTHER},,",
    "demo/a.py,sha256=abc,1",  # a digest too short
    "demo/a.py,md5=" + "A" * 22 + ",1",
    "demo/a.py,sha384=" + "A" * 64 + ",1",
    "demo/a.py," + "sha256=" + _digest(b"a") + ",",  # no size
    "demo/a.py,,1",  # no hash
    ",sha256=" + _digest(b"") + ",0",  # no path
    "demo/a.py,sha256=" + _digest(b"a") + ",1,extra",
    "demo/a.py,sha256=" + _digest(b"a"),
    "demo/a.py,sha256=" + _digest(b"a") + ",\u0661",  # an Arabic-Indic digit
    "demo/a.py,sha256=" + _digest(b"a") + "," + "1" * 25,
    "demo/a.py,sha256=" + _digest(b"a") + ",007",  # leading zeros: read as 7
    '"demo/q.py",sha256=' + _digest(b"q") + ",1",  # quoted: the csv module reads it
    "demo/r.py,sha256=" + _digest(b"r") + ",1\r",  # a carriage return
]

_well_formed = st.builds(
    _row, st.sampled_from([*PATHS, "demo/m0.py", "demo/m1.py", "demo/M1.py"]), st.integers(0, 3)
)
_lines = st.one_of(_well_formed, _well_formed, _well_formed, st.sampled_from(HOSTILE))
"""A line of the patch: mostly a well-formed row (a new path, or a base path with a new hash
or a case-folded twin), sometimes one with a problem."""


def _base_lines(count: int, own_at: int) -> list[str]:
    lines = [_row(f"demo/m{i}.py", i) for i in range(count)]
    lines.insert(min(own_at, count), f"{RECORD},,")
    return lines


def _edited(lines: list[str], edits: list[tuple[str, int, str]]) -> list[str]:
    edited = list(lines)
    for kind, at, line in edits:
        index = at % (len(edited) + 1)
        if kind == "insert":
            edited.insert(index, line)
        elif not edited:
            continue
        elif kind == "replace":
            edited[index % len(edited)] = line
        elif kind == "delete":
            del edited[index % len(edited)]
        elif kind == "double":
            edited.insert(index, edited[index % len(edited)])
        else:  # "swap": two lines change places
            other = (index + 1) % len(edited)
            edited[index % len(edited)], edited[other] = edited[other], edited[index % len(edited)]
    return edited


def _same(record: Record, expected: Record) -> None:
    assert record == expected
    assert list(record.rows.items()) == list(expected.rows.items())  # the same order too


def _pair(base_text: str, patch_text: str, patch_path: str = RECORD) -> KnownLines:
    known: KnownLines = {}
    _same(parse_record_beside(base_text, RECORD, known), parse_record(base_text, RECORD))
    _same(parse_record_beside(patch_text, patch_path, known), parse_record(patch_text, patch_path))
    return known


@settings(max_examples=300, deadline=None)
@given(
    count=st.integers(0, 60),
    own_at=st.integers(0, 60),
    base_extra=st.lists(_lines, max_size=2),
    edits=st.lists(
        st.tuples(
            st.sampled_from(["insert", "replace", "delete", "double", "swap"]),
            st.integers(0, 30),
            _lines,
        ),
        max_size=4,
    ),
    trailing=st.tuples(st.booleans(), st.booleans()),
    patch_path=st.sampled_from([RECORD, RECORD, OTHER]),
)
def test_near_identical_records_reach_parse_records_verdict(
    count: int,
    own_at: int,
    base_extra: list[str],
    edits: list[tuple[str, int, str]],
    trailing: tuple[bool, bool],
    patch_path: str,
) -> None:
    base = _base_lines(count, own_at) + base_extra
    patch = _edited(base, edits)
    base_text = "\n".join(base) + ("\n" if trailing[0] else "")
    patch_text = "\n".join(patch) + ("\n" if trailing[1] else "")
    _pair(base_text, patch_text, patch_path)


@settings(max_examples=100, deadline=None)
@given(
    count=st.integers(30, 60),
    own_at=st.integers(0, 60),
    edits=st.lists(
        st.tuples(
            st.sampled_from(["insert", "replace", "delete", "swap"]),
            st.integers(0, 60),
            st.builds(
                _row, st.builds("demo/new{}.py".format, st.integers(0, 3)), st.integers(0, 999)
            ),
        ),
        min_size=1,
        max_size=5,
    ),
)
def test_well_formed_edits_are_parsed_beside_the_base(
    count: int, own_at: int, edits: list[tuple[str, int, str]]
) -> None:
    """A few rows added, changed, removed or moved, every line well-formed: the lines the base
    lacks are judged alone, and the rows are still `parse_record`'s (a path given twice by
    two new lines included)."""
    base = _base_lines(count, own_at)
    _pair("\n".join(base) + "\n", "\n".join(_edited(base, edits)) + "\n")


@pytest.mark.parametrize(
    "change",
    [
        lambda lines: lines,  # the same RECORD
        lambda lines: [*lines, _row("demo/new.py", 9)],  # one row added
        lambda lines: [_row("demo/m0.py", 99), *lines[1:]],  # one row changed
        lambda lines: [*lines, lines[0]],  # a base line given twice: a path listed twice
        lambda lines: [line for line in lines if line != f"{RECORD},,"],  # RECORD not listed
        lambda lines: [*lines, f"{RECORD},,"],  # RECORD listed twice
        lambda lines: [f"{RECORD},,0" if line == f"{RECORD},," else line for line in lines],
        lambda lines: ["", *lines],  # a blank line
        lambda lines: [_row("demo/m0.py", 99), *lines],  # a path of a base line, another hash
        lambda lines: [*lines, _row("Demo/M0.py", 0)],  # the same path but for case
    ],
)
def test_a_few_lines_changed_reach_parse_records_verdict(change: object) -> None:
    base = _base_lines(40, 20)
    patch = change(base)  # type: ignore[operator]
    known = _pair("\n".join(base) + "\n", "\n".join(patch) + "\n")
    assert list(known) == [RECORD]  # the base's lines were known to the patch's parse


def test_mostly_new_lines_are_judged_all_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    base = _base_lines(40, 0)
    patch = [_row(f"demo/n{i}.py", i) for i in range(40)] + [f"{RECORD},,"]
    judged: list[str] = []

    def judging(line: str, record_path: str) -> tuple[str, RecordLine] | None:
        judged.append(line)
        return plain_row(line, record_path)

    monkeypatch.setattr(recordpair, "plain_row", judging)
    _pair("\n".join(base) + "\n", "\n".join(patch) + "\n")
    assert judged == []  # not one line judged alone: `plain_rows` took them all


def test_a_base_record_that_is_not_plain_shares_nothing() -> None:
    base = [*_base_lines(40, 0), "demo/a.py,,1"]  # a row with no hash: A107, row by row
    known: KnownLines = {}
    parse_record_beside("\n".join(base) + "\n", RECORD, known)
    assert known == {}
    _pair("\n".join(base) + "\n", "\n".join(base[:-1]) + "\n")


def test_the_patchs_lines_are_the_bases_rows() -> None:
    base = _base_lines(40, 0)
    known: KnownLines = {}
    first = parse_record_beside("\n".join(base) + "\n", RECORD, known)
    second = parse_record_beside("\n".join([*base, _row("demo/x.py", 7)]), RECORD, known)
    assert all(second.rows[path] is row for path, row in first.rows.items())


def test_both_wheels_records_as_each_alone(tmp_path: Path) -> None:
    files = {f"demo/m{i}.py": b"x = %d\n" % i for i in range(30)}
    base = make_wheel(tmp_path / "base", "demo", "1.0", files)
    patch = make_wheel(
        tmp_path / "patch", "demo", "1.0", {**files, "demo/m3.py": b"y\n", "demo/new.py": b"z\n"}
    )
    with ZipArchive.open(base) as old, ZipArchive.open(patch) as new:
        dist_infos = (read_identity(old).dist_info, read_identity(new).dist_info)
        pair = parse_wheel_records(old, new, dist_infos)
        alone = (parse_wheel_record(old, dist_infos[0]), parse_wheel_record(new, dist_infos[1]))
        assert pair == alone and pair[1] is not None and pair[1].findings == ()
        assert parse_wheel_records(old, new, (None, dist_infos[1])) == (None, alone[1])

"""The kind screen in a child process (`wheels.sniffchild`): its "no magic prefix" is taken only
where the in-process screen would say the same from the same bytes (any entry, stream or local
header, damaged or not: `span_natives` with the child's answer is `span_native` one by one); an
answer at another data offset, of another length or with an unknown status, or a clear for a
stored entry, is not taken. What the report does whatever the child does:
`test_sniff_child_faults`."""

from __future__ import annotations

import functools
import tempfile
import zipfile
from array import array
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import wheelkit
from hypothesis import given, settings
from hypothesis import strategies as st

from k3diff.errors import ArchiveError
from k3diff.wheels import sniffchild, spans
from k3diff.wheels.sniffchild import CLEAR, PREFIX, UNKNOWN, HeadScreen
from k3diff.wheels.spans import span_native, span_natives
from k3diff.zip.archive import ZipArchive

from .sniff_support import FILES, answer, built
from .test_span_sniff import members, quick_members


def _screens(archive: ZipArchive, stretch: memoryview, start: int, screen: HeadScreen) -> None:
    """`span_natives` with `screen` does what it does without (the same answers, or the same
    error: a local header damaged past reading is one), and what `span_native` does one entry
    at a time (`test_span_sniff`)."""
    known = archive.known_data_offsets()
    for entries in (archive.entries, archive.entries[::-1]):
        batch = functools.partial(span_natives, archive, entries, stretch, start, known)
        with_screen = _result(functools.partial(batch, screen))
        assert with_screen == _result(batch)
        one = functools.partial(span_native, archive, stretch=stretch, start=start, known=known)
        one_by_one = _result(lambda: list(map(one, entries)))  # noqa: B023 - called at once
        if not isinstance(one_by_one, tuple):
            assert with_screen == one_by_one


def _result(run: Callable[[], list[bool]]) -> list[bool] | tuple[str, str]:
    try:
        return run()
    except ArchiveError as exc:
        return type(exc).__name__, str(exc)


@settings(max_examples=40, deadline=None)
@given(
    entries=st.lists(members(), min_size=1, max_size=8),
    cut=st.tuples(st.integers(0, 200), st.integers(0, 200)),
    damage=st.lists(st.tuples(st.integers(0, 10**6), st.integers(0, 255)), max_size=3),
)
def test_the_childs_answer_changes_no_sniff(
    entries: list[wheelkit.RawMember], cut: tuple[int, int], damage: list[tuple[int, int]]
) -> None:
    """Random entries (stored, deflated, bzip2, encrypted, streams cut or damaged), bytes
    of the archive overwritten anywhere (local headers included), any stretch: the batch
    with the child's answer is the slow sniff; and every entry it clears is one the
    in-process screen finds no native in."""
    data = bytearray(wheelkit.raw_zip(entries))
    body = wheelkit.raw_layout(entries)[1].directory_offset
    for at, value in damage:  # records only: the directory must stay readable
        data[at % max(body, 1)] = value
    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch) / "a.whl"
        path.write_bytes(bytes(data))
        try:
            opened = ZipArchive.open(path)
        except Exception:  # a directory the damage made unreadable: nothing to sniff
            return
        with opened as archive:
            archive.local_headers()
            screen = answer(archive)
            assert screen is not None
            known = archive.known_data_offsets()
            for entry in archive.entries:  # those `span_natives` may take the answer for
                position = entry.position
                taken = entry.method == 8 and not entry.flags & 1 and entry.size > 0
                cleared = screen.statuses[position] == CLEAR
                if taken and cleared and known.get(position) == screen.offsets[position]:
                    assert not span_native(archive, entry, memoryview(data), 0, known)
            start = min(cut[0], len(data))
            stop = max(start, len(data) - cut[1])
            _screens(archive, memoryview(bytes(data))[start:stop], start, screen)


@settings(max_examples=60, deadline=None)
@given(
    entries=st.lists(quick_members(), min_size=1, max_size=8),
    cut=st.tuples(st.integers(0, 60), st.integers(0, 60)),
)
def test_quick_entries_screened_are_sniffed_as_each_is(
    entries: list[wheelkit.RawMember], cut: tuple[int, int]
) -> None:
    """Every entry of `span_natives`' quick case (`spans._all_quick`): with the child's answer,
    only the entries it did not clear are inflated, and the answers are the slow sniff's."""
    data = wheelkit.raw_zip(entries)
    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch) / "a.whl"
        path.write_bytes(data)
        with ZipArchive.open(path) as archive:
            archive.local_headers()
            screen = answer(archive)
            assert screen is not None
            start = min(cut[0], len(data))
            stop = max(start, len(data) - cut[1])
            _screens(archive, memoryview(data)[start:stop], start, screen)


def test_the_child_clears_text_and_leaves_natives_here(tmp_path: Path) -> None:
    """Headers and data: cleared at their data offsets; the ELF and the PE: a prefix; a Python
    file (its path gives its kind) and the directory's files: not screened."""
    with ZipArchive.open(built(tmp_path)) as archive:
        archive.local_headers()
        screen = answer(archive)
        assert screen is not None
        known = archive.known_data_offsets()
        for entry in archive.entries:
            status = screen.statuses[entry.position]
            if entry.name in ("pkg/bin/tool", "pkg/bin/tool2"):
                assert status == PREFIX
            elif entry.name in FILES and not entry.name.endswith(".py"):
                assert (status, screen.offsets[entry.position]) == (CLEAR, known[entry.position])
            elif entry.name.endswith(".py"):
                assert (status, screen.offsets[entry.position]) == (UNKNOWN, -1)


def test_cleared_entries_are_not_inflated_here(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With the answer, only the two natives' heads and the Python file's (not screened) are
    inflated; without it, every one."""
    inflated: list[int] = []
    original = spans._INFLATE

    def counted(decompressor: Any, data: Any, most: int) -> bytes:
        inflated.append(1)
        return original(decompressor, data, most)

    monkeypatch.setattr(spans, "_INFLATE", counted)
    path = built(tmp_path)
    data = memoryview(path.read_bytes())
    with ZipArchive.open(path) as archive:
        archive.local_headers()
        screen = answer(archive)
        assert screen is not None
        known = archive.known_data_offsets()
        with_screen = span_natives(archive, archive.entries, data, 0, known, screen)
        assert len(inflated) == 3
        without = span_natives(archive, archive.entries, data, 0, known)
    assert with_screen == without
    assert sum(with_screen) == 2
    assert len(inflated) == 3 + sum(e.method == 8 for e in archive.entries)


def test_an_answer_at_another_offset_or_unknown_is_not_taken(tmp_path: Path) -> None:
    """A screen that clears every entry, but at data offsets one byte off, or with UNKNOWN or
    PREFIX statuses, or covering fewer entries than asked about: the natives are still found."""
    path = built(tmp_path)
    data = memoryview(path.read_bytes())
    with ZipArchive.open(path) as archive:
        archive.local_headers()
        known = archive.known_data_offsets()
        count = len(archive.entries)
        true_offsets = [known.get(position, -1) for position in range(count)]
        forged = [
            _screen([offset + 1 for offset in true_offsets], [CLEAR] * count),
            _screen(true_offsets, [UNKNOWN] * count),
            _screen(true_offsets, [PREFIX] * count),
            _screen(true_offsets[:-3], [CLEAR] * (count - 3)),
            _screen([-1] * count, [CLEAR] * count),
        ]
        expected = span_natives(archive, archive.entries, data, 0, known)
        assert sum(expected) == 2
        for screen in forged:
            assert span_natives(archive, archive.entries, data, 0, known, screen) == expected


def _screen(offsets: list[int], statuses: list[int]) -> HeadScreen:
    out = array("q", offsets).tobytes() + bytes(statuses)
    parsed = sniffchild.parse_answer(out, len(statuses))
    assert parsed is not None
    return parsed


@pytest.mark.parametrize(
    "out",
    [b"", b"\0" * 17, b"\0" * 19, b"\0" * 16 + b"\0\3", b"\0" * 16 + b"\0" + b"0"],
)
def test_an_answer_of_the_wrong_length_or_status_is_refused(out: bytes) -> None:
    assert sniffchild.parse_answer(out, 2) is None


def test_worth_asking_only_for_many_entries_kept_alike(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same wheel: yes (above `CHILD_ENTRIES`); every entry changed: no (no span will
    sniff); too few entries: no."""
    base = built(tmp_path / "base")
    same = built(tmp_path / "same")
    other = built(tmp_path / "other", {name: data + b"\n" for name, data in FILES.items()})
    monkeypatch.setattr(sniffchild, "CHILD_ENTRIES", 8)
    with ZipArchive.open(base) as b, ZipArchive.open(same) as s, ZipArchive.open(other) as o:
        assert sniffchild.worth_asking(b, s)
        assert not sniffchild.worth_asking(b, o)
        monkeypatch.setattr(sniffchild, "CHILD_ENTRIES", len(s.entries) + 1)
        assert not sniffchild.worth_asking(b, s)


def test_a_clear_for_a_stored_or_encrypted_entry_is_not_taken(tmp_path: Path) -> None:
    """The child inflates whatever it is asked about; a stored native's bytes "cleared" at
    their very offset are still sniffed here (only deflated entries take the answer)."""
    path = wheelkit.make_wheel(tmp_path, "pkg", "1.0", FILES, method=zipfile.ZIP_STORED)
    data = memoryview(path.read_bytes())
    with ZipArchive.open(path) as archive:
        archive.local_headers()
        known = archive.known_data_offsets()
        count = len(archive.entries)
        lying = _screen([known.get(position, -1) for position in range(count)], [CLEAR] * count)
        natives = span_natives(archive, archive.entries, data, 0, known, lying)
    assert natives == span_natives(archive, archive.entries, data, 0, known)
    assert sum(natives) == 2

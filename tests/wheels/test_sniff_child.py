"""The kind screen in a child process (`wheels.sniffchild`): its "no magic prefix" is taken only
where the in-process screen would say the same from the same bytes (any entry, stream or local
header, damaged or not: `span_natives` with the child's answer is `span_native` one by one); an
answer at another data offset, of another length or with an unknown status is not taken; and
whatever the child does (dies, is killed, hangs, answers garbage, a file cut under it), the
report is the one the in-process sniffs give."""

from __future__ import annotations

import functools
import tempfile
import time
import zipfile
from array import array
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import wheelkit
from hypothesis import given, settings
from hypothesis import strategies as st

from k3diff.errors import ArchiveError
from k3diff.wheel.kinds import EntryKind
from k3diff.wheels import compare, schedule, sniffchild, spans
from k3diff.wheels.compare import WheelOptions, compare_wheels
from k3diff.wheels.sniffchild import CLEAR, PREFIX, UNKNOWN, HeadScreen, SniffChild
from k3diff.wheels.spans import span_native, span_natives
from k3diff.zip.archive import ZipArchive

from .test_span_sniff import ELF, EMPTY_BLOCKS, PE, members

HEADERS = {
    f"pkg/include/h{i}.h": f"#pragma once\nint f{i}(void);\n".encode() * 9 for i in range(30)
}
FILES = {
    **HEADERS,
    "pkg/bin/tool": ELF,
    "pkg/bin/tool2": PE,
    "pkg/data/Makefile": b"all:\n\ttrue\n" * 20,
    "pkg/__init__.py": b"VALUE = 1\n" * 40,
}


def _answer(archive: ZipArchive) -> HeadScreen | None:
    """The child's answer for `archive`, waited for."""
    child = SniffChild(archive)
    try:
        child.start()
        return child.wait(30)
    finally:
        child.close()


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
            screen = _answer(archive)
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


def _built(tmp_path: Path, files: dict[str, bytes] = FILES) -> Path:
    return wheelkit.make_wheel(tmp_path, "pkg", "1.0", files)


def test_the_child_clears_text_and_leaves_natives_here(tmp_path: Path) -> None:
    """Headers and data: cleared at their data offsets; the ELF and the PE: a prefix; a Python
    file (its path gives its kind) and the directory's files: not screened."""
    with ZipArchive.open(_built(tmp_path)) as archive:
        archive.local_headers()
        screen = _answer(archive)
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
    path = _built(tmp_path)
    data = memoryview(path.read_bytes())
    with ZipArchive.open(path) as archive:
        archive.local_headers()
        screen = _answer(archive)
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
    path = _built(tmp_path)
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
    base = _built(tmp_path / "base")
    same = _built(tmp_path / "same")
    other = _built(tmp_path / "other", {name: data + b"\n" for name, data in FILES.items()})
    monkeypatch.setattr(sniffchild, "CHILD_ENTRIES", 8)
    with ZipArchive.open(base) as b, ZipArchive.open(same) as s, ZipArchive.open(other) as o:
        assert sniffchild.worth_asking(b, s)
        assert not sniffchild.worth_asking(b, o)
        monkeypatch.setattr(sniffchild, "CHILD_ENTRIES", len(s.entries) + 1)
        assert not sniffchild.worth_asking(b, s)


def _outcome(base: Path, patch: Path) -> tuple[Any, ...]:
    report = compare_wheels(base, patch, WheelOptions(jobs=2, file_hash=False))
    return (report.entries, report.findings, report.filtered, report.exit_code, report.summary)


@contextmanager
def _waited(base: ZipArchive, patch: ZipArchive) -> Iterator[SniffChild | None]:
    """`screened_heads`, its answer waited for, so the spans of a small wheel can take it."""
    with sniffchild.screened_heads(base, patch) as child:
        if child is not None:
            child.start()  # here, as the run would after reading RECORD, then waited for
            child.wait(30)
        yield child


@pytest.fixture
def pair(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path, Any]:
    """A base and its copy (every record alike, in spans), the child asked about and waited
    for; and the outcome with the child never started."""
    base, patch = _built(tmp_path / "base"), _built(tmp_path / "patch")
    monkeypatch.setattr(sniffchild, "CHILD_ENTRIES", 8)
    with monkeypatch.context() as patched:
        patched.setattr(sniffchild, "worth_asking", lambda *args: False)
        expected = _outcome(base, patch)
    monkeypatch.setattr(compare, "screened_heads", _waited)
    return base, patch, expected


def _screens_taken(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Per `span_natives` call of the spans: whether it was given the child's answer."""
    taken: list[bool] = []
    original = spans.span_natives

    def spied(*args: Any) -> list[bool]:
        taken.append(len(args) > 5 and args[5] is not None)
        return original(*args)

    monkeypatch.setattr(schedule, "span_natives", spied)
    return taken


def test_the_childs_answer_is_taken_and_changes_no_report(
    pair: tuple[Path, Path, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    base, patch, expected = pair
    taken = _screens_taken(monkeypatch)
    outcome = _outcome(base, patch)
    assert outcome == expected
    assert taken and all(taken)
    kinds = {entry.path: entry.kind.value for entry in outcome[0]}
    assert kinds["pkg/bin/tool"] == kinds["pkg/bin/tool2"] == "native"
    assert kinds["pkg/include/h0.h"] == "other"


CHILDREN = {
    "gone": "import sys; sys.exit(1)",
    "killed": "import os, signal; os.kill(os.getpid(), signal.SIGKILL)",
    "silent": "pass",
    "garbage": "import sys; sys.stdout.buffer.write(b'x' * 9 * int(sys.argv[2]))",
    "cut short": (
        "import sys; n = int(sys.argv[2]); sys.stdin.buffer.read()\n"
        "sys.stdout.buffer.write(b'\\0' * (9 * n - 1))"
    ),
    "every entry cleared nowhere": (
        "import sys; n = int(sys.argv[2]); sys.stdin.buffer.read()\n"
        "sys.stdout.buffer.write(b'\\xff' * 8 * n + b'\\0' * n)"
    ),
    "clears, then fails": (
        "import sys; n = int(sys.argv[2]); sys.stdin.buffer.read()\n"
        "sys.stdout.buffer.write(b'\\0' * 9 * n); sys.exit(1)"
    ),
    "reads nothing": "import time; time.sleep(0.2)",
}


@pytest.mark.parametrize("child", [*CHILDREN, "none"])
def test_whatever_the_child_does_the_report_is_the_same(
    pair: tuple[Path, Path, Any], monkeypatch: pytest.MonkeyPatch, child: str
) -> None:
    """No child, one that exits, is killed, says nothing or garbage, stops mid-answer, clears
    every entry at offsets no entry has, or answers and then fails: the same report, the
    natives found here."""
    base, patch, expected = pair
    if child == "none":
        monkeypatch.setattr(sniffchild, "_spawn", lambda *args: None)
    else:
        monkeypatch.setattr(sniffchild, "_CHILD", CHILDREN[child])
    assert _outcome(base, patch) == expected


def test_a_hung_child_is_killed_and_its_answer_never_awaited(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A child that never answers: the spans sniff here (no wait), and leaving the run kills
    it at once."""
    base, patch = _built(tmp_path / "base"), _built(tmp_path / "patch")
    monkeypatch.setattr(sniffchild, "CHILD_ENTRIES", 8)
    with monkeypatch.context() as patched:
        patched.setattr(sniffchild, "worth_asking", lambda *args: False)
        expected = _outcome(base, patch)
    monkeypatch.setattr(sniffchild, "_CHILD", "import time; time.sleep(600)")
    taken = _screens_taken(monkeypatch)
    began = time.monotonic()
    assert _outcome(base, patch) == expected
    assert time.monotonic() - began < 60
    assert taken and not any(taken)


TRUNCATE_MAPPED = """\
import mmap as _mmap
_real = _mmap.mmap
def _truncating(*args, **kwargs):
    mapped = _real(*args, **kwargs)
    with open({path!r}, "r+b") as victim:
        victim.truncate({keep})
    return mapped
_mmap.mmap = _truncating
"""


def test_a_file_cut_under_the_mapping_kills_only_the_child(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SIGBUS when the child reads a page past the new end: no answer, nothing taken."""
    path = _built(tmp_path, {name: bytes(range(256)) * 40 for name in HEADERS})
    copy = tmp_path / "copy.whl"
    copy.write_bytes(path.read_bytes())
    monkeypatch.setattr(
        sniffchild, "_CHILD", TRUNCATE_MAPPED.format(path=str(copy), keep=600) + sniffchild._CHILD
    )
    with ZipArchive.open(copy) as archive:
        assert _answer(archive) is None


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


@pytest.mark.parametrize("child", [True, False])
def test_a_native_led_by_empty_blocks_is_native_in_a_span(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, child: bool
) -> None:
    """An identical library under a data name whose stream starts with more than `SNIFF_INPUT`
    bytes of empty stored blocks: native, with the child's answer and without (it says
    nothing of it), counted so in the summary."""
    blob = "pkg/data/blob"
    entries = wheelkit.wheel_files("pkg", "1.0", {**FILES, blob: ELF})
    members = [wheelkit.raw_member(name, content) for name, content in entries.items()]
    for member in members:
        if member.name == blob.encode():
            member.stored = EMPTY_BLOCKS + member.stored
    sides = []
    for side in ("base", "patch"):
        path = tmp_path / side / "pkg-1.0-py3-none-any.whl"
        path.parent.mkdir()
        path.write_bytes(wheelkit.raw_zip(members))
        sides.append(path)
    with zipfile.ZipFile(sides[1]) as archive:
        assert archive.read(blob) == ELF  # what pip installs
    monkeypatch.setattr(sniffchild, "CHILD_ENTRIES", 8)
    if child:
        monkeypatch.setattr(compare, "screened_heads", _waited)
        taken = _screens_taken(monkeypatch)
    else:
        monkeypatch.setattr(sniffchild, "worth_asking", lambda *args: False)
    entries_out, _, _, code, summary = _outcome(*sides)
    assert child is False or (taken and all(taken))
    kinds = {entry.path: (entry.kind.value, entry.how.value) for entry in entries_out}
    assert kinds[blob] == ("native", "raw-bytes")
    assert code == 0 and summary[EntryKind.NATIVE].identical == 3

"""The region child (`wheels.regionchild`): byte regions both wheels hold alike, compared in a
child process from the central directories alone as the comparison starts, so that the pool
reads no span it proved (`regionproofs`). Whatever the archives declare (gaps, descriptors,
overlapping or reordered entries, offsets past the end, local headers that disagree with the
directory) and whatever the child does, `k3diff wheels` reports what it reports without it; and
no child outlives the run."""

from __future__ import annotations

import struct
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import wheelkit
from cli_support import run_json, run_k3diff

from k3diff.wheels import compare, early, regionchild, schedule, sniffchild, spans
from k3diff.wheels.regionchild import ProvenRegions, parse_answer

from .sniff_support import FILES
from .test_span_sniff import ELF, EMPTY_BLOCKS


def _region_child(monkeypatch: pytest.MonkeyPatch, started: list[Any] | None = None) -> None:
    """The region child started as the run starts it, its answer waited for (a small wheel's
    spans would otherwise often run before it is in)."""
    real = early._region_child

    def waited(*args: Any) -> Any:
        child = real(*args)
        if child is not None:
            child.wait(30)
            if started is not None:
                started.append(child)
        return child

    monkeypatch.setattr(early, "_region_child", waited)


def _spans_read(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The length of every span the pool reads."""
    read: list[int] = []
    real = spans.read_span

    def spied(base: Any, patch: Any, span: spans.Span) -> Any:
        read.append(span.length)
        return real(base, patch, span)

    monkeypatch.setattr(schedule, "read_span", spied)
    return read


@pytest.fixture
def small(monkeypatch: pytest.MonkeyPatch) -> None:
    """A wheel of a few dozen entries is asked about (`sniffchild.CHILD_ENTRIES`) and makes
    several spans."""
    monkeypatch.setattr(sniffchild, "CHILD_ENTRIES", 8)
    monkeypatch.setattr(spans, "SPAN_BYTES", 1500)


def _without(monkeypatch: pytest.MonkeyPatch, *args: Any) -> tuple[int, Any]:
    with monkeypatch.context() as patched:
        patched.setattr(early, "_region_child", lambda *ignored: None)
        return run_json("wheels", *args)


@pytest.mark.usefixtures("small")
def test_the_spans_it_proved_are_not_read_and_the_report_is_the_same(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    edited = {**FILES, "pkg/__init__.py": b"VALUE = 2\n" * 40}
    base = wheelkit.make_wheel(tmp_path / "base", "pkg", "1.0", FILES)
    patch = wheelkit.make_wheel(tmp_path / "patch", "pkg", "1.0", edited)
    read = _spans_read(monkeypatch)
    expected = _without(monkeypatch, base, patch, "--no-file-hash")
    assert read  # without the child, the pool reads its spans
    read.clear()
    started: list[Any] = []
    _region_child(monkeypatch, started)
    assert run_json("wheels", base, patch, "--no-file-hash") == expected
    assert len(started) == 1 and started[0].answer() is not None
    assert read == []
    assert expected[0] == 0


# Hand-made archives: each a wheel's entries written by `_archive`, with one thing done to them.
ENTRIES = wheelkit.wheel_files("pkg", "1.0", FILES)
EDITED = wheelkit.wheel_files("pkg", "1.0", {**FILES, "pkg/__init__.py": b"VALUE = 2\n" * 40})
_DESCRIPTOR = 0x8


def _archive(
    entries: dict[str, bytes],
    *,
    order: list[int] | None = None,
    gap_after: dict[int, bytes] | None = None,
    local: dict[int, Callable[[bytes], bytes]] | None = None,
    offsets: Callable[[list[int], int], list[int]] | None = None,
    descriptors: bool = False,
) -> bytes:
    """`entries` as raw members written in `order` (by their number), `gap_after[number]`
    written after that member's record, `local[number]` applied to its local record, the
    directory (in the members' own order) given `offsets(written offsets, directory offset)`,
    and every record with a data descriptor when `descriptors`."""
    members = [wheelkit.raw_member(name, data) for name, data in entries.items()]
    if descriptors:
        for member in members:
            member.flags |= _DESCRIPTOR
    body = bytearray()
    where = [0] * len(members)
    for number in order or range(len(members)):
        member = members[number]
        where[number] = len(body)
        record = wheelkit.local_record(member)
        if descriptors:
            record += struct.pack(
                "<4s3L", b"PK\x07\x08", member.crc, len(member.stored), member.size
            )
        edit = (local or {}).get(number)
        body += record if edit is None else edit(record)
        body += (gap_after or {}).get(number, b"")
    at = len(body)
    declared = offsets(where, at) if offsets else where
    directory = b"".join(map(wheelkit.central_record, members, declared))
    return bytes(body) + directory + wheelkit.end_record(len(members), len(directory), at)


def _local_crc(record: bytes) -> bytes:
    """The local header's CRC-32 field changed (the directory's is not)."""
    return record[:14] + struct.pack("<L", zlib.crc32(b"other")) + record[18:]


def _local_name(record: bytes) -> bytes:
    """The local header's name's first letter changed (same length)."""
    return record[:30] + b"q" + record[31:]


HOSTILE: dict[str, Callable[[dict[str, bytes]], bytes]] = {
    "as written": lambda entries: _archive(entries),
    "a gap between two records": lambda entries: _archive(entries, gap_after={3: b"\0" * 77}),
    "data descriptors": lambda entries: _archive(entries, descriptors=True),
    "two directory records at one local record": lambda entries: _archive(
        entries, offsets=lambda where, end: [*where[:5], where[4], *where[6:]]
    ),
    "a record's data running into the next": lambda entries: _archive(
        entries, local={6: lambda raw: raw[:-4]}
    ),
    "an offset past the end": lambda entries: _archive(
        entries, offsets=lambda where, end: [*where[:-1], end + 10_000]
    ),
    "a local CRC-32 the directory does not declare": lambda entries: _archive(
        entries, local={2: _local_crc, 9: _local_crc}
    ),
    "a local name the directory does not declare": lambda entries: _archive(
        entries, local={5: _local_name}
    ),
    "records in another order": lambda entries: _archive(
        entries, order=[*range(10, len(entries)), *range(10)]
    ),
    "two records swapped under their names": lambda entries: _archive(
        entries, offsets=lambda where, end: [*where[:7], where[8], where[7], *where[9:]]
    ),
}
"""Each applied to the patch alone, or to both wheels alike (the base as written otherwise)."""


@pytest.mark.usefixtures("small")
@pytest.mark.parametrize("both", [False, True], ids=["patch", "both"])
@pytest.mark.parametrize("hostile", list(HOSTILE))
def test_a_hostile_archive_is_reported_as_without_the_child(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, hostile: str, both: bool
) -> None:
    """Whatever the directory and the local headers say, the region child's equal regions are
    only bytes: the report (entries, findings, exit code, or the one line and exit 2) is the one
    the pool gives reading every span itself."""
    build = HOSTILE[hostile]
    base = tmp_path / "base" / "pkg-1.0-py3-none-any.whl"
    patch = tmp_path / "patch" / "pkg-1.0-py3-none-any.whl"
    base.parent.mkdir()
    patch.parent.mkdir()
    base.write_bytes(build(ENTRIES) if both else _archive(ENTRIES))
    patch.write_bytes(build(EDITED))
    for options in ([], ["--format", "json"]):
        with monkeypatch.context() as patched:
            patched.setattr(early, "_region_child", lambda *ignored: None)
            expected = run_k3diff("wheels", base, patch, "--no-file-hash", *options)
        with monkeypatch.context() as patched:
            _region_child(patched)
            found = run_k3diff("wheels", base, patch, "--no-file-hash", *options)
        assert (found.exit_code, found.stdout, found.stderr) == (
            expected.exit_code,
            expected.stdout,
            expected.stderr,
        )


@pytest.mark.usefixtures("small")
def test_a_native_led_by_empty_blocks_is_native_in_a_span_it_proved(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A library under a data name whose stream starts with more than `SNIFF_INPUT` bytes of
    empty stored blocks (the sniff child's screen says nothing of it): in a span the region
    child proved, sniffed from its own head, native as when the span is read."""
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
    read = _spans_read(monkeypatch)
    expected = _without(monkeypatch, *sides, "--no-file-hash")
    read.clear()
    _region_child(monkeypatch)
    found = run_json("wheels", *sides, "--no-file-hash")
    assert found == expected
    assert read == []
    kinds = {entry["path"]: (entry["kind"], entry["how"]) for entry in found[1]["entries"]}
    assert kinds[blob] == ("native", "raw-bytes")


CHILDREN = {
    "gone": "import sys; sys.exit(1)",
    "killed": "import os, signal; os.kill(os.getpid(), signal.SIGKILL)",
    "silent": "pass",
    "garbage": "import sys; sys.stdin.buffer.read(); sys.stdout.buffer.write(b'x' * 23)",
    "past the files": (  # more bytes claimed equal than the files hold: not taken
        "import struct, sys; sys.stdin.buffer.read()\n"
        "sys.stdout.buffer.write(struct.pack('3q', 0, 0, 1 << 40))"
    ),
    "out of order": (
        "import struct, sys; sys.stdin.buffer.read()\n"
        "sys.stdout.buffer.write(struct.pack('6q', 100, 100, 10, 0, 0, 10))"
    ),
    "hangs": "import time; time.sleep(600)",
}


@pytest.mark.usefixtures("small")
@pytest.mark.parametrize("child", list(CHILDREN))
def test_whatever_the_child_does_the_report_is_the_same(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, child: str
) -> None:
    """A child that exits, is killed, says nothing, answers garbage or regions out of order, or
    never answers: the same report, the spans read here; and the run does not wait for it."""
    base = wheelkit.make_wheel(tmp_path / "base", "pkg", "1.0", FILES)
    patch = wheelkit.make_wheel(tmp_path / "patch", "pkg", "1.0", {**FILES, "pkg/x.py": b"x\n"})
    expected = _without(monkeypatch, base, patch, "--no-file-hash")
    monkeypatch.setattr(regionchild, "_CHILD", CHILDREN[child])
    started: list[Any] = []
    real = regionchild.RegionChild.__init__

    def spied(self: regionchild.RegionChild, *args: Any) -> None:
        real(self, *args)
        started.append(self)
        if child != "hangs":
            self.wait(30)

    monkeypatch.setattr(regionchild.RegionChild, "__init__", spied)
    assert run_json("wheels", base, patch, "--no-file-hash") == expected
    assert len(started) == 1
    taken = started[0].answer()
    assert taken is None or not taken.base_starts  # nothing proven ("silent": no region)
    assert started[0]._process is None or started[0]._process.poll() is not None  # reaped


@pytest.mark.usefixtures("small")
def test_a_run_that_fails_or_is_interrupted_leaves_no_child(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ctrl-C (or any error) once the child is started: the child is killed and reaped and its
    thread ended before the run reports it."""
    base = wheelkit.make_wheel(tmp_path / "base", "pkg", "1.0", FILES)
    patch = wheelkit.make_wheel(tmp_path / "patch", "pkg", "1.0", FILES)
    monkeypatch.setattr(regionchild, "_CHILD", "import time; time.sleep(600)")
    started: list[Any] = []
    real = regionchild.RegionChild.__init__

    def spied(self: regionchild.RegionChild, *args: Any) -> None:
        real(self, *args)
        started.append(self)

    def interrupted(*args: Any) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(regionchild.RegionChild, "__init__", spied)
    monkeypatch.setattr(compare, "read_facts", interrupted)
    result = run_k3diff("wheels", base, patch, "--no-file-hash")
    assert result.exit_code == 2 and "Ctrl-C" in result.stderr
    assert len(started) == 1
    child = started[0]
    assert child._process is not None and child._process.poll() is not None
    assert not child._reader.is_alive()


def test_an_answer_is_taken_only_whole_in_order_and_inside_both_files() -> None:
    """Triples of a positive length, inside both files, each after the one before in the base;
    `covers` holds only inside one region, at the same place in both."""
    pack = struct.Struct("3q").pack
    sizes = (1000, 1000)
    good = parse_answer(pack(0, 10, 100) + pack(100, 200, 50) + pack(400, 400, 8), sizes)
    assert isinstance(good, ProvenRegions)
    assert good.covers(0, 10, 100) and good.covers(120, 220, 30) and good.covers(400, 400, 8)
    assert not good.covers(0, 10, 101)  # runs past the region
    assert not good.covers(90, 100, 20)  # across two regions
    assert not good.covers(120, 221, 10)  # not at the same place in the patch
    assert not good.covers(300, 300, 1)  # in no region
    for bad in (
        pack(0, 0, 10)[:-1],  # cut short
        pack(0, 0, 0),  # empty
        pack(-1, 0, 10),  # before the file
        pack(0, -5, 10),
        pack(995, 0, 10),  # past the base's end
        pack(0, 995, 10),  # past the patch's end
        pack(0, 0, 100) + pack(50, 50, 10),  # overlapping in the base
        pack(100, 0, 10) + pack(0, 50, 10),  # out of order
    ):
        assert parse_answer(bad, sizes) is None
    empty = parse_answer(b"", sizes)
    assert empty is not None and not empty.covers(0, 0, 1)

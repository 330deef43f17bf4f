"""The span sniff's fast path (`spans.span_native`: a few C calls per entry whose data offset is
known) says what the slow one it replaces says, `is_native_magic(span_head(...))`, for every
entry of any archive: stored, deflated, other methods, encrypted, empty, damaged streams,
offsets known or not, data inside the stretch read or outside it. And `is_native_magic`'s
prefix test agrees with `sniff_magic`."""

from __future__ import annotations

import tempfile
from pathlib import Path

import wheelkit
from hypothesis import given, settings
from hypothesis import strategies as st

from k3diff.native.sniff import MAGIC_PREFIXES, is_native_magic, sniff_magic
from k3diff.wheels.spans import span_head, span_native, span_natives
from k3diff.zip.archive import ZipArchive

ELF = wheelkit.elf_bytes(b"\xc3" * 300)
PE = b"MZ" + bytes(0x3A) + (0x80).to_bytes(4, "little") + b"PE\0\0" * 20

heads = st.one_of(
    st.binary(max_size=80),
    st.sampled_from([*MAGIC_PREFIXES, ELF[:64], PE]).flatmap(
        lambda prefix: st.binary(max_size=70).map(lambda tail: prefix + tail)
    ),
)
"""First content bytes: random, or a native magic (whole or cut short) with anything after."""

EMPTY_BLOCKS = b"\x00\x00\x00\xff\xff" * 900
"""Empty stored deflate blocks, not final (4,500 bytes of nothing): a stream led by them still
inflates to its content, as pip reads it, which starts past `SNIFF_INPUT` compressed bytes."""


@st.composite
def members(draw: st.DrawFn) -> wheelkit.RawMember:
    """An entry whose stored bytes may be damaged and whose header may say anything."""
    content = draw(heads) + draw(st.binary(max_size=5000)) * draw(st.sampled_from([0, 1, 3]))
    method = draw(st.sampled_from([0, 8, 8, 12]))
    member = wheelkit.raw_member(f"pkg/f{draw(st.integers(0, 10**6))}", content, method=method)
    if method == 12:  # bzip2: declared, never read
        member.stored = content
    if method == 8 and draw(st.integers(0, 4)) == 0:  # content past the first SNIFF_INPUT bytes
        member.stored = EMPTY_BLOCKS + member.stored
    if draw(st.booleans()):
        member.flags |= draw(st.sampled_from([0x1, 0x8]))
    if member.stored and draw(st.integers(0, 4)) == 0:  # a damaged or cut stream
        cut = draw(st.integers(0, len(member.stored) - 1))
        member.stored = member.stored[:cut] + draw(st.binary(max_size=8))
    return member


@st.composite
def quick_members(draw: st.DrawFn) -> wheelkit.RawMember:
    """A deflated, unencrypted, non-empty entry (`span_natives`' quick case when its data lies
    in the stretch), its stream whole, led by empty blocks, or damaged."""
    content = draw(heads.filter(bool)) + draw(st.binary(max_size=5000)) * draw(
        st.sampled_from([0, 1, 3])
    )
    member = wheelkit.raw_member(f"pkg/f{draw(st.integers(0, 10**6))}.h", content, method=8)
    if draw(st.integers(0, 4)) == 0:
        member.stored = EMPTY_BLOCKS + member.stored
    if member.stored and draw(st.integers(0, 5)) == 0:
        cut = draw(st.integers(0, len(member.stored) - 1))
        member.stored = member.stored[:cut] + draw(st.binary(max_size=8))
    return member


@settings(max_examples=150, deadline=None)
@given(
    entries=st.lists(quick_members(), min_size=1, max_size=8),
    cut=st.tuples(st.integers(0, 60), st.integers(0, 60)),
)
def test_a_batch_of_quick_entries_is_sniffed_as_each_is(
    entries: list[wheelkit.RawMember], cut: tuple[int, int]
) -> None:
    """Every entry deflated, unencrypted, not empty, its offset known: the batch is judged by a
    column at a time (`spans._all_quick`); a stretch cut at either end sends it back to the
    per-entry test. Either way each answer is the slow sniff's."""
    _agrees(entries, True, cut)


@settings(max_examples=150, deadline=None)
@given(
    entries=st.lists(members(), min_size=1, max_size=8),
    headers_known=st.booleans(),
    cut=st.tuples(st.integers(0, 200), st.integers(0, 200)),
)
def test_the_fast_span_sniff_agrees_with_the_slow_one(
    entries: list[wheelkit.RawMember], headers_known: bool, cut: tuple[int, int]
) -> None:
    _agrees(entries, headers_known, cut)


def _agrees(entries: list[wheelkit.RawMember], headers_known: bool, cut: tuple[int, int]) -> None:
    data = wheelkit.raw_zip(entries)
    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch) / "a.whl"
        path.write_bytes(data)
        with ZipArchive.open(path) as archive:
            if headers_known:
                archive.local_headers()
            start = min(cut[0], len(data))
            stop = max(start, len(data) - cut[1])
            stretch = memoryview(data)[start:stop]
            known = archive.known_data_offsets()
            slow = [
                is_native_magic(span_head(archive, entry, stretch, start))
                for entry in archive.entries
            ]
            for entry, answer in zip(archive.entries, slow, strict=True):
                assert span_native(archive, entry, stretch, start, known) == answer, entry
            # The batch (C-level maps over the quick ones, the rest one by one) says the same.
            assert span_natives(archive, archive.entries, stretch, start, known) == slow
            assert span_natives(archive, archive.entries[::-1], stretch, start, known) == slow[::-1]


@given(head=heads)
def test_the_prefix_test_agrees_with_the_sniffer(head: bytes) -> None:
    assert is_native_magic(head) == (sniff_magic(head) is not None)
    if not head.startswith(MAGIC_PREFIXES):
        assert sniff_magic(head) is None


def test_a_native_without_a_telling_path_is_found_in_the_stretch(tmp_path: Path) -> None:
    """The fast path itself (offsets known, data inside the stretch) on each method."""
    entries = [
        wheelkit.raw_member("pkg/bin/tool", ELF, method=8),
        wheelkit.raw_member("pkg/bin/tool.exe", PE, method=0),
        wheelkit.raw_member("pkg/include/a.h", b"#pragma once\n" * 40, method=8),
    ]
    path = tmp_path / "a.whl"
    path.write_bytes(data := wheelkit.raw_zip(entries))
    with ZipArchive.open(path) as archive:
        archive.local_headers()
        known = archive.known_data_offsets()
        assert all(entry.position in known for entry in archive.entries)
        found = [span_native(archive, e, memoryview(data), 0, known) for e in archive.entries]
        batch = span_natives(archive, archive.entries, memoryview(data), 0, known)
    assert found == batch == [True, True, False]

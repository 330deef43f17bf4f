"""`mode_findings` judges each distinct mode once and visits only the entries that can have a
finding; it must reach exactly what checking every entry in turn reaches (the loop it replaced,
kept here as the reference): the same A120 and A121 findings, in the same order, whatever the
modes, kinds, heads and the verification's not-an-ELF positions."""

from __future__ import annotations

import struct
from collections.abc import Collection, Iterator

from hypothesis import given, settings
from hypothesis import strategies as st

from k3diff.audit.modes import ELF_HEAD, _is_elf_program, mode_findings
from k3diff.wheel.codes import Code, Finding
from k3diff.wheel.modes import EXEC_BITS, file_type, installs_executable, show_mode, unix_mode
from k3diff.zip.directory import ZipEntry


def _elf(e_type: int, interpreter: bool) -> bytes:
    """The head of a 64-bit little-endian ELF of `e_type`, with a PT_INTERP header or not."""
    header = bytearray(64)
    header[:6] = b"\x7fELF\x02\x01"
    struct.pack_into("<H", header, 16, e_type)
    struct.pack_into("<Q", header, 32, 64)
    struct.pack_into("<HH", header, 54, 56, 1)
    program = struct.pack("<I", 3 if interpreter else 1) + bytes(52)
    return bytes(header) + program


HEADS = [b"", b"#!/bin/sh\n", _elf(2, False), _elf(3, True), _elf(3, False), b"\x7fELF"]
NAMES = ["pkg/tool", "pkg/lib.so", "pkg/mod.py", "pkg/dir/", "bin/run", "pkg/data"]
MODES = [
    0,
    0o644,
    0o755,
    0o100644,
    0o100755,
    0o100700,
    0o120777,
    0o40755,
    0o10755,
    0o60755,
    0o777,
    0o111,
]


class _Archive:
    """What `mode_findings` reads of an archive: its entries and each entry's head."""

    def __init__(self, entries: tuple[ZipEntry, ...], heads: list[bytes]) -> None:
        self.entries = entries
        self._heads = heads

    def head(self, entry: ZipEntry, size: int) -> bytes:
        assert size == ELF_HEAD
        return self._heads[entry.position]


def _reference(archive: _Archive, not_elf: Collection[int]) -> Iterator[Finding]:
    """`mode_findings` as first written: every entry checked in directory order."""
    for entry in archive.entries:
        if entry.is_dir:
            continue
        mode = unix_mode(entry)
        if mode & EXEC_BITS and file_type(mode) == "regular file" and not installs_executable(mode):
            yield Finding(
                Code.A120,
                entry.name,
                f"mode {show_mode(mode)} has exec bits but no file type: pip installs it not "
                "executable (builders write 0o100755)",
            )
        elif (
            not installs_executable(mode)
            and entry.position not in not_elf
            and _is_elf_program(archive, entry)  # type: ignore[arg-type]
        ):
            yield Finding(
                Code.A121,
                entry.name,
                f"an ELF executable with mode {show_mode(mode)}: pip installs it not executable",
            )


entry_strategy = st.tuples(
    st.sampled_from(NAMES),
    st.one_of(st.sampled_from(MODES), st.integers(0, 0xFFFF)),
    st.integers(0, 0xFFFF),  # the low bits (DOS attributes): never part of the mode
    st.sampled_from([0, 3]),
    st.sampled_from(HEADS),
)


@settings(max_examples=400, deadline=None)
@given(rows=st.lists(entry_strategy, max_size=12), data=st.data())
def test_mode_findings_as_every_entry_checked(
    rows: list[tuple[str, int, int, int, bytes]], data: st.DataObject
) -> None:
    entries = tuple(
        ZipEntry(name, index, 8, 0, 0, 1, 1, 0, mode << 16 | low, system, name.encode())
        for index, (name, mode, low, system, _head) in enumerate(rows)
    )
    archive = _Archive(entries, [row[4] for row in rows])
    not_elf = data.draw(st.sets(st.integers(0, max(len(rows) - 1, 0))))
    expected = list(_reference(archive, not_elf))
    assert list(mode_findings(archive, not_elf)) == expected  # type: ignore[arg-type]
    assert list(mode_findings(archive)) == list(_reference(archive, ()))  # type: ignore[arg-type]

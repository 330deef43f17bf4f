"""Entry permissions in `k3diff audit`: what pip will install executable, and what it will not.

pip makes an installed file executable exactly when the entry's unix mode names a regular file
with an exec bit (`k3diff.wheel.modes`). Two release mistakes follow, both reported as
warnings (k3diff cannot know what the builder meant, and installing still succeeds):

- A120: exec bits in a mode without a file type (`0o755` where builders write `0o100755`):
  pip ignores them and installs the file not executable;
- A121: an ELF executable (a program, not a library) that pip installs not executable: a
  bundled `bin/ptxas` that lost its exec bit installs as a file that cannot run.

Only entries whose path says nothing about their kind are read for A121 (programs carry no
extension), the first few KiB each, as `wheels` sniffs them; `audit` first skips those whose
verification read showed no ELF magic (`FastTap.not_elf`), so only ELFs are read again.
"""

from __future__ import annotations

import struct
from collections.abc import Collection, Iterator
from itertools import compress
from operator import itemgetter

from k3diff.wheel.codes import Code, Finding
from k3diff.wheel.kinds import kind_from_path
from k3diff.wheel.modes import EXEC_BITS, file_type, installs_executable, show_mode, unix_mode
from k3diff.zip.archive import ZipArchive
from k3diff.zip.directory import ZipEntry

ELF_HEAD = 4096
"""Leading bytes read to find an ELF's type and program headers."""

_ET_EXEC, _ET_DYN, _PT_INTERP = 2, 3, 3

_EXTERNAL_ATTR = itemgetter(8)
"""`ZipEntry.external_attr`, as a C-level key."""


def mode_findings(archive: ZipArchive, not_elf: Collection[int] = ()) -> Iterator[Finding]:
    """A120 and A121 for the archive's entries, in directory order. `not_elf`: positions of
    entries whose content the verification read proved not to start with the ELF magic (their
    head is not read again).

    Both verdicts depend on an entry's mode alone, but for A121's read of the head: so each
    distinct external attribute (a wheel carries a handful) is judged once, and only the
    entries that can have a finding are visited, in directory order (`tests/audit/test_modes.py`
    holds this to visiting every entry)."""
    entries = archive.entries
    exec_without_type: set[int] = set()
    not_executable: set[int] = set()
    for attributes in set(map(_EXTERNAL_ATTR, entries)):
        mode = attributes >> 16
        if mode & EXEC_BITS and file_type(mode) == "regular file" and not installs_executable(mode):
            exec_without_type.add(attributes)
        elif not installs_executable(mode):
            not_executable.add(attributes)
    # An entry's position is its index in the directory.
    candidates = set(
        compress(
            range(len(entries)), map(exec_without_type.__contains__, map(_EXTERNAL_ATTR, entries))
        )
    )
    unread = set(range(len(entries))).difference(not_elf)
    candidates.update(p for p in unread if entries[p].external_attr in not_executable)
    for position in sorted(candidates):
        yield from _entry_findings(archive, entries[position], not_elf)


def _entry_findings(
    archive: ZipArchive, entry: ZipEntry, not_elf: Collection[int]
) -> Iterator[Finding]:
    """A120 or A121 for one entry (the check `mode_findings` makes of each that can have one)."""
    if entry.is_dir:
        return
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
        and _is_elf_program(archive, entry)
    ):
        yield Finding(
            Code.A121,
            entry.name,
            f"an ELF executable with mode {show_mode(mode)}: pip installs it not executable",
        )


def _is_elf_program(archive: ZipArchive, entry: ZipEntry) -> bool:
    if kind_from_path(entry.name) is not None or entry.is_symlink:
        return False
    return is_elf_program(archive.head(entry, ELF_HEAD))


def is_elf_program(head: bytes) -> bool:
    """True for the head of an ELF executable: type EXEC, or DYN with a program interpreter
    (a position-independent executable; a shared library has none)."""
    if len(head) < 52 or not head.startswith(b"\x7fELF") or head[4] not in (1, 2):
        return False
    wide, order = head[4] == 2, "<" if head[5] != 2 else ">"
    e_type = struct.unpack_from(f"{order}H", head, 16)[0]
    if e_type == _ET_EXEC:
        return True
    if e_type != _ET_DYN:
        return False
    if wide:
        if len(head) < 64:
            return False
        phoff = struct.unpack_from(f"{order}Q", head, 32)[0]
        entsize, count = struct.unpack_from(f"{order}HH", head, 54)
    else:
        phoff = struct.unpack_from(f"{order}I", head, 28)[0]
        entsize, count = struct.unpack_from(f"{order}HH", head, 42)
    for index in range(min(count, 64)):
        start = phoff + index * entsize
        if entsize < 4 or start + 4 > len(head):
            return False  # past what was read: no interpreter seen
        if struct.unpack_from(f"{order}I", head, start)[0] == _PT_INTERP:
            return True
    return False

"""Entry permissions as pip installs them.

The unix mode sits in the high 16 bits of an entry's external attributes. pip makes an installed
file executable exactly when that mode is non-zero, names a regular file and has any exec bit
(`pip._internal.utils.unpacking.zip_item_is_executable`); every other bit is ignored and the
file gets the umask's default mode. So two entries install to the same file mode when they agree
on that predicate; a changed file type (regular file, symbolic link) is a change of its own.
"""

from __future__ import annotations

import stat
from collections.abc import Iterator
from dataclasses import dataclass

from k3diff.wheel.codes import Code, Finding
from k3diff.zip.directory import ZipEntry

EXEC_BITS = 0o111


def unix_mode(entry: ZipEntry) -> int:
    """The mode an entry carries (0 when it carries none)."""
    return entry.external_attr >> 16


def installs_executable(mode: int) -> bool:
    """pip's rule: the installed file is executable exactly when this is true."""
    return bool(mode and stat.S_ISREG(mode) and mode & EXEC_BITS)


def file_type(mode: int) -> str:
    """The file type the mode names, in words; a mode without one is a regular file, as pip
    and zipfile write it."""
    if stat.S_IFMT(mode) == 0 or stat.S_ISREG(mode):
        return "regular file"
    if stat.S_ISLNK(mode):
        return "symbolic link"
    if stat.S_ISDIR(mode):
        return "directory"
    return f"file type {stat.S_IFMT(mode):o}"


def show_mode(mode: int) -> str:
    """`0o100755`, as `stat` would write the whole mode."""
    return f"0o{mode:o}"


@dataclass(frozen=True)
class ModeChange:
    """How the unix modes of a paired entry differ."""

    base: int
    """The base entry's mode."""
    patch: int
    """The patch entry's mode."""

    @property
    def installed(self) -> bool:
        """True when pip installs a different file: exec bit or file type differ."""
        return self.executable_changed or self.type_changed

    @property
    def executable_changed(self) -> bool:
        """True when pip installs one side executable and not the other."""
        return installs_executable(self.base) != installs_executable(self.patch)

    @property
    def type_changed(self) -> bool:
        """True when the modes name different file types (a regular file became a link)."""
        return file_type(self.base) != file_type(self.patch)

    @property
    def exec_bits_changed(self) -> bool:
        """True when the exec bits differ, whatever pip makes of them."""
        return (self.base & EXEC_BITS) != (self.patch & EXEC_BITS)

    def summary(self) -> str:
        """`mode 0o100755 -> 0o100644`."""
        return f"mode {show_mode(self.base)} -> {show_mode(self.patch)}"


def mode_change(base: ZipEntry | None, patch: ZipEntry | None) -> ModeChange | None:
    """The difference between two paired entries' modes, or None when equal or one-sided."""
    if base is None or patch is None:
        return None
    old, new = unix_mode(base), unix_mode(patch)
    return None if old == new else ModeChange(old, new)


def _executable_words(mode: int) -> str:
    return "executable" if installs_executable(mode) else "not executable"


def mode_findings(path: str, change: ModeChange) -> Iterator[Finding]:
    """W620 for an installed exec bit that changed, W621 for a changed file type, W622 for exec
    bits that changed where pip installs both sides alike."""
    if change.executable_changed:
        yield Finding(
            Code.W620,
            path,
            f"{change.summary()}: pip installs it {_executable_words(change.base)} from the base, "
            f"{_executable_words(change.patch)} from the patch",
        )
    if change.type_changed:
        yield Finding(
            Code.W621,
            path,
            f"{change.summary()}: {file_type(change.base)} in the base, "
            f"{file_type(change.patch)} in the patch",
        )
    if change.exec_bits_changed and not change.executable_changed:
        yield Finding(
            Code.W622,
            path,
            f"{change.summary()}: pip installs both {_executable_words(change.patch)}",
        )

"""What kind of file an archive entry is: native code, Python source, wheel metadata, or other.

The path decides first (metadata directory, Python and native extensions); entries the path does
not decide are sniffed by content magic (`k3diff.native.sniff`), because engine wheels ship ELF
executables with no extension under `bin/` and `test/`. Content magic also overrides a Python
extension (an ELF named `.py` is native), where `k3diff wheels` reads it: for an entry that
differs.
"""

from __future__ import annotations

import re
from enum import StrEnum
from itertools import repeat
from operator import is_not
from typing import TYPE_CHECKING

from k3diff.native.sniff import SNIFF_BYTES, is_native_magic
from k3diff.zip.directory import DEFLATED, STORED

if TYPE_CHECKING:
    from k3diff.zip.archive import ZipArchive
    from k3diff.zip.directory import ZipEntry

__all__ = [
    "SNIFF_BYTES",
    "EntryKind",
    "is_metadata_path",
    "is_native_entry",
    "is_native_magic",
    "kind_from_path",
    "kinds_from_paths",
]


class EntryKind(StrEnum):
    """The kinds DESIGN.md names, in report order."""

    NATIVE = "native"
    PYTHON = "python"
    METADATA = "metadata"
    OTHER = "other"


_NATIVE_SUFFIX = re.compile(
    r"\.(so(\.\d+)*|pyd|dll|dylib|cubin|fatbin|a)$",
    re.IGNORECASE,
)
_NATIVE_SUFFIX_ASCII = re.compile(r"\.(so(\.\d+)*|pyd|dll|dylib|cubin|fatbin|a)$")
"""`_NATIVE_SUFFIX` for a lowered ASCII path: no case to fold (half the time of the
case-blind search, whose literal-prefix scan it keeps); a non-ASCII one may hold a character
that case-folds to a pattern's letter (U+017F to `s`), so it takes the case-blind one."""
_METADATA_START = re.compile(r"[^/]*\.dist-info/").match
"""`is_metadata_path`'s test as one match: the first segment ends with `.dist-info` (a third
of the time of `find` and `endswith` between bounds, each a C call of its own)."""
_PYTHON_SUFFIXES = (".py", ".pyi", ".pyw")
"""Python source by its name: `.pyw` too, a module Windows imports as it does `.py`
(importlib's `SOURCE_SUFFIXES` there; review64: a changed `pkg/gui.pyw` was an `other` entry,
never checked against the source commit, exit 0 under `--source`)."""


def is_metadata_path(path: str) -> bool:
    """True for files inside the wheel's `.dist-info/` directory."""
    slash = path.find("/")
    return slash > 0 and path.endswith(".dist-info", 0, slash)


def kind_from_path(path: str) -> EntryKind | None:
    """The kind the path alone proves, or None when the content must be sniffed."""
    slash = path.find("/")  # `is_metadata_path`, inline: this runs once per entry
    if slash > 0 and path.endswith(".dist-info", 0, slash):
        return EntryKind.METADATA
    lowered = path.lower()
    if lowered.endswith(_PYTHON_SUFFIXES):
        return EntryKind.PYTHON
    if _NATIVE_SUFFIX.search(lowered):
        return EntryKind.NATIVE
    return None


def is_native_entry(archive: ZipArchive, entry: ZipEntry) -> bool:
    """True when `entry` is native code by its name (`.so`, `.pyd`, ...) or by the magic of its
    first bytes whatever its name (an ELF called `evil.dat`, `tool.py` or `METADATA`): the
    fail-safe reading, for a check that must not take a library for something else: content
    k3diff does not read (a method other than stored and deflate, which pip may still install)
    is taken for native, as nothing says it is not."""
    if kind_from_path(entry.name) is EntryKind.NATIVE:
        return True
    if entry.size > 0 and entry.method not in (STORED, DEFLATED):
        return True
    return is_native_magic(archive.head(entry, SNIFF_BYTES))


_BY_TESTS = {
    (metadata, python, native): (
        EntryKind.METADATA
        if metadata
        else EntryKind.PYTHON
        if python
        else EntryKind.NATIVE
        if native
        else None
    )
    for metadata in (False, True)
    for python in (False, True)
    for native in (False, True)
}
"""`kind_from_path`'s answer from its three tests, in its order."""


def kinds_from_paths(paths: list[str]) -> list[EntryKind | None]:
    """`[kind_from_path(path) for path in paths]`, each test made over every path by a C-level
    map (a span's thousand entries, no Python frame each)."""
    metadata = map(is_not, map(_METADATA_START, paths), repeat(None))
    lowered = list(map(str.lower, paths))
    python = map(str.endswith, lowered, repeat(_PYTHON_SUFFIXES))
    search = (_NATIVE_SUFFIX_ASCII if all(map(str.isascii, lowered)) else _NATIVE_SUFFIX).search
    native = map(is_not, map(search, lowered), repeat(None))
    return list(map(_BY_TESTS.__getitem__, zip(metadata, python, native, strict=True)))

"""Entries no installer should be handed, seen from the central directory alone.

A path that is absolute or climbs out with `..`, a symlink, an encrypted entry (flag bit 0, or
bit 6, strong encryption, which `zipfile` refuses even where bit 0 is clear), a name holding
a control character: each is a finding for the wheel that carries it, as is a directory whose
end records contradict it (zipfile's view is the one read; any other reader may see another
archive). Local headers against the directory are `layout`'s checks.
"""

from __future__ import annotations

import operator
import stat
from collections.abc import Iterator
from itertools import repeat
from operator import and_, rshift

from k3diff.lazyre import lazy
from k3diff.wheel.codes import Code, Finding
from k3diff.zip.archive import ZipArchive

_DRIVE = lazy(r"^[A-Za-z]:")
_C0_OR_DEL = lazy(rb"[\x00-\x1f\x7f]")
_C1_IN_UTF8 = lazy(rb"\xc2[\x80-\x9f]")
"""U+0080-U+009F encoded in UTF-8 (0xC2 only ever leads a two-byte sequence)."""
_NOT_C0_OR_DEL = bytes(value for value in range(256) if 0x20 <= value < 0x7F or value > 0x7F)
"""Every byte but C0 controls and DEL."""
_NAME_BYTES = operator.itemgetter(10)
_NAME = operator.itemgetter(0)
_FLAGS = operator.itemgetter(3)
_EXTERNAL_ATTR = operator.itemgetter(8)
_FORMAT = 0o170000
"""The file-type bits of a Unix mode (`stat.S_IFMT`)."""
_UTF8_FLAG = 0x800
_UNIX = 3
_STRONG_ENCRYPTION = 0x40
"""Flag bit 6: CPython's `zipfile` refuses to open such an entry (NotImplementedError), whatever
bit 0 says, so pip cannot install the wheel. k3diff's reader would read it: W603 says it."""
STRONG_ENCRYPTION_DETAIL = (
    "strong encryption (flag bit 6): zipfile, and so pip, refuses to read it (NotImplementedError)"
)
"""create_system of entries made on Unix, whose external attributes carry a mode."""


def is_unsafe_path(name: str) -> bool:
    """Absolute (POSIX, Windows drive or UNC) or containing a `..` component."""
    normalized = name.replace("\\", "/")
    if normalized.startswith("/") or _DRIVE.match(normalized):
        return True
    return ".." in normalized.split("/")


def soundness_findings(
    archive: ZipArchive, side: str, names_unsafe: bool | None = None
) -> Iterator[Finding]:
    """(code, path, detail) for every unsafe entry of `archive`; `side` is base or patch;
    `names_unsafe`: `names_may_be_unsafe` of the archive's names, when already told."""
    for disagreement in archive.disagreements:
        yield Finding(Code.W613, "", f"in the {side} wheel: {disagreement}")
    yield from _control_characters(archive, side)
    if not _may_hold_unsafe(archive, names_unsafe):
        return
    for entry in archive.entries:
        name = entry.name
        # Cheap screens first (a wheel has thousands of entries and almost none is unsafe): a
        # path can only be unsafe if it holds "..", a colon, or starts with a (back)slash.
        if (".." in name or ":" in name or name[:1] in ("/", "\\")) and is_unsafe_path(name):
            yield Finding(Code.W601, name, f"in the {side} wheel: an installer would write outside")
        if entry.create_system == _UNIX and stat.S_ISLNK(entry.external_attr >> 16):
            yield Finding(Code.W602, name, f"in the {side} wheel: a symbolic link entry")
        if entry.flags & _STRONG_ENCRYPTION:
            yield Finding(Code.W603, name, f"in the {side} wheel: {STRONG_ENCRYPTION_DETAIL}")
        elif entry.flags & 0x1:
            yield Finding(Code.W603, name, f"in the {side} wheel: encrypted, content unreadable")


def _may_hold_unsafe(archive: ZipArchive, names_unsafe: bool | None = None) -> bool:
    """Whether any entry may be W601-W603, told by tests of every entry at once in C (the loop
    in `soundness_findings` then says which): a name holding `..` or a colon or starting with
    a (back)slash (`names_unsafe`, when told), a mode of a symbolic link, an encryption flag
    (bit 0 or bit 6)."""
    entries = archive.entries
    if names_unsafe is None:
        names_unsafe = names_may_be_unsafe("\0".join(map(_NAME, entries)))
    modes = map(and_, map(rshift, map(_EXTERNAL_ATTR, entries), repeat(16)), repeat(_FORMAT))
    return (
        names_unsafe
        or stat.S_IFLNK in modes
        or any(map(and_, map(_FLAGS, entries), repeat(0x1 | _STRONG_ENCRYPTION)))
    )


def names_may_be_unsafe(joined: str) -> bool:
    """Whether a name of `joined` (names joined by NULs; no name holds one: zipfile cuts names
    there) holds `..` or a colon or starts with a (back)slash: true of the names joined exactly
    when it is true of one of them."""
    return (
        ".." in joined
        or ":" in joined
        or joined[:1] in ("/", "\\")
        or "\0/" in joined
        or "\0\\" in joined
    )


def _control_characters(archive: ZipArchive, side: str) -> Iterator[Finding]:
    """W614 for names holding C0, DEL or C1 characters (NUL included: zipfile cuts the name
    there, so `demo/x.py\\0` installs as `demo/x.py`)."""
    # One search over every name: almost no wheel has a control character in any of them.
    names = b"/".join(map(_NAME_BYTES, archive.entries))
    c0_or_del = names.translate(None, _NOT_C0_OR_DEL)  # deleting bytes is a C loop, unlike re
    if not c0_or_del and not (b"\xc2" in names and _C1_IN_UTF8.search(names)):
        return
    for entry in archive.entries:
        raw = entry.name_bytes
        if not (_C0_OR_DEL.search(raw) or (entry.flags & _UTF8_FLAG and _C1_IN_UTF8.search(raw))):
            continue
        stored = raw.decode("utf-8" if entry.flags & _UTF8_FLAG else "cp437", errors="replace")
        detail = f"in the {side} wheel: the stored name is {stored!r}"
        if "\0" in stored:
            detail += f"; zipfile (and so pip) cuts it at the NUL: {entry.name!r}"
        yield Finding(Code.W614, entry.name, detail)

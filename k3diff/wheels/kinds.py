"""What kind of file an archive entry is: native code, Python source, wheel metadata, or other.

The path decides first (metadata directory, Python and native extensions); entries the path does
not decide are sniffed by content magic, because engine wheels ship ELF executables with no
extension under `bin/` and `test/`.
"""

from __future__ import annotations

import re
import struct
from enum import StrEnum


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
_PYTHON_SUFFIXES = (".py", ".pyi")
_MACHO_MAGICS = (
    b"\xfe\xed\xfa\xce",
    b"\xfe\xed\xfa\xcf",
    b"\xce\xfa\xed\xfe",
    b"\xcf\xfa\xed\xfe",
)
_SIMPLE_MAGICS = (
    b"\x7fELF",
    b"!<arch>\n",
    b"\x50\xed\x55\xba",  # CUDA fatbin container (0xBA55ED50, little-endian)
    b"\xb1\x43\x62\x46",  # CUDA fatbinary wrapper (0x466243B1, little-endian)
    *_MACHO_MAGICS,
)
SNIFF_BYTES = 64
"""How many leading content bytes `kind_from_magic` needs."""


def is_metadata_path(path: str) -> bool:
    """True for files inside the wheel's `.dist-info/` directory."""
    slash = path.find("/")
    return slash > 0 and path.endswith(".dist-info", 0, slash)


def kind_from_path(path: str) -> EntryKind | None:
    """The kind the path alone proves, or None when the content must be sniffed."""
    if is_metadata_path(path):
        return EntryKind.METADATA
    lowered = path.lower()
    if lowered.endswith(_PYTHON_SUFFIXES):
        return EntryKind.PYTHON
    if _NATIVE_SUFFIX.search(lowered):
        return EntryKind.NATIVE
    return None


def is_native_magic(head: bytes) -> bool:
    """True when the first bytes are those of an ELF, Mach-O, PE, CUDA fatbin or ar file."""
    if head.startswith(_SIMPLE_MAGICS):
        return True
    if head.startswith(b"\xca\xfe\xba\xbe") and len(head) >= 8:
        # Mach-O universal binary; Java class files share the magic but carry a version >= 45
        # where a universal binary carries its (small) architecture count.
        return bool(struct.unpack(">I", head[4:8])[0] < 45)
    if head.startswith(b"MZ") and len(head) >= 0x40:
        pe_offset = struct.unpack("<I", head[0x3C:0x40])[0]
        return bool(0x40 <= pe_offset < 0x1000)
    return False


def classify(path: str, head: bytes | None) -> EntryKind:
    """Kind of an entry from its path and, when the path is silent, its first bytes."""
    by_path = kind_from_path(path)
    if by_path is not None:
        return by_path
    if head is not None and is_native_magic(head):
        return EntryKind.NATIVE
    return EntryKind.OTHER

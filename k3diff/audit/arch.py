"""auditwheel's other question, asked by `audit`: is each ELF of a wheel built for an
architecture its Linux platform tags name (A125)?

pip installs `demo-1.0-cp311-cp311-manylinux_2_31_aarch64.whl` on any aarch64 machine; an x86-64
library inside cannot load there. The ELF's identity (`e_machine`, read in its own byte order,
with its class and byte order) comes from the first 20 bytes of the prefix the verification read
keeps anyway (`FastTap.head`): no second read, no new pass.

A wheel with several Linux platform tags passes when each ELF fits ANY of their architectures
(one wheel may carry libraries for several, selected at run time). Tags that are not Linux
(`any`, macOS, Windows) promise no ELF architecture; a wheel with `any` among its platforms, or
with a Linux architecture this table does not know, is not checked (no finding rather than a
guess).
"""

from __future__ import annotations

import re
import struct
from collections.abc import Iterable
from typing import NamedTuple


class ElfIdent(NamedTuple):
    """What an ELF says it runs on: `e_machine`, 64-bit or not, little-endian or not."""

    machine: int
    wide: bool
    little: bool


_LE64, _BE64, _LE32 = (True, True), (True, False), (False, True)
_ARCHITECTURES: dict[str, ElfIdent] = {
    name: ElfIdent(machine, *shape)
    for name, machine, shape in (
        ("x86_64", 62, _LE64),
        ("i686", 3, _LE32),
        ("i586", 3, _LE32),
        ("i386", 3, _LE32),
        ("aarch64", 183, _LE64),
        ("armv7l", 40, _LE32),
        ("armv6l", 40, _LE32),
        ("ppc64le", 21, _LE64),
        ("ppc64", 21, _BE64),
        ("s390x", 22, _BE64),
        ("riscv64", 243, _LE64),
        ("loongarch64", 258, _LE64),
    )
}
"""Each Linux platform-tag architecture and the ELF identity its loader runs (as auditwheel's
architecture table: x32 and big-endian aarch64 or arm are not these)."""

_LINUX_ARCH = re.compile(
    r"^(?:(?:many|musl)linux_\d+_\d+|manylinux(?:1|2010|2014)|linux)_([a-z0-9_]+)$"
)
_NAMES = {ident: name for name, ident in reversed(_ARCHITECTURES.items())}
"""The architecture each identity is shown as (the first name given for it)."""


def elf_ident(head: bytes) -> ElfIdent | None:
    """The identity of an ELF from its first 20 bytes; None when they do not say it."""
    if len(head) < 20 or head[:4] != b"\x7fELF" or head[4] not in (1, 2) or head[5] not in (1, 2):
        return None
    little = head[5] == 1
    (machine,) = struct.unpack_from("<H" if little else ">H", head, 18)
    return ElfIdent(machine, head[4] == 2, little)


def tagged_architectures(platforms: Iterable[str]) -> frozenset[str] | None:
    """The Linux architectures of a wheel's platform tags; None when nothing is to be checked
    (no Linux tag, `any` among them, or an architecture the table does not know)."""
    found: set[str] = set()
    for platform in platforms:
        if platform == "any":
            return None
        match = _LINUX_ARCH.match(platform)
        if match is None:
            continue
        if match[1] not in _ARCHITECTURES:
            return None
        found.add(match[1])
    return frozenset(found) or None


def describe(ident: ElfIdent) -> str:
    """An identity as a reader knows it: `x86_64`, or its fields when no tag names it."""
    name = _NAMES.get(ident)
    if name is not None:
        return name
    shape = f"{64 if ident.wide else 32}-bit {'little' if ident.little else 'big'}-endian"
    return f"e_machine {ident.machine} ({shape})"


def mismatch(ident: ElfIdent | None, architectures: frozenset[str] | None) -> str | None:
    """Why an ELF fits none of the tagged architectures; None when it fits one (or nothing is
    checked: no identity, or no architectures to hold it to)."""
    if ident is None or architectures is None:
        return None
    if any(_ARCHITECTURES[name] == ident for name in architectures):
        return None
    tagged = ", ".join(sorted(architectures))
    return f"built for {describe(ident)}, but the wheel's platform tags name {tagged}"

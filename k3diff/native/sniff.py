"""Recognise native code by its first bytes: the one magic sniffer of k3diff.

`k3diff.wheel.kinds` asks it whether an entry with a silent path is native, and
`k3diff.native.explain_native` asks it which explainer to use, so the two never disagree about
what a file is.
"""

from __future__ import annotations

import struct
from enum import StrEnum

SNIFF_BYTES = 64
"""How many leading bytes `sniff_magic` needs to decide every format (PE reads offset 0x3C)."""

_ELF = b"\x7fELF"
_EM_CUDA = 190
_AR = b"!<arch>\n"
_CUDA_FATBIN = b"\x50\xed\x55\xba"  # 0xBA55ED50, little-endian: the fatbin container
_CUDA_FATBIN_WRAPPER = b"\xb1\x43\x62\x46"  # 0x466243B1, little-endian: the .nv_fatbin wrapper
_MACHO = (b"\xfe\xed\xfa\xce", b"\xfe\xed\xfa\xcf", b"\xce\xfa\xed\xfe", b"\xcf\xfa\xed\xfe")
_MACHO_UNIVERSAL = b"\xca\xfe\xba\xbe"
_JAVA_CLASS_MIN_VERSION = 45
"""Java class files share the universal-binary magic but carry a version >= 45 where a universal
binary carries its (small) architecture count."""
_PE = b"MZ"
MAGIC_PREFIXES = (
    _ELF,
    _CUDA_FATBIN,
    _CUDA_FATBIN_WRAPPER,
    _AR,
    *_MACHO,
    _MACHO_UNIVERSAL,
    _PE,
)
"""Every prefix `sniff_magic` looks for: bytes that start with none of them are no native
format, which one C-level `startswith` says for nearly every file of a wheel."""
SCREEN_BYTES = max(map(len, MAGIC_PREFIXES))
"""Leading bytes that screen a head: one that starts with no magic prefix in them is no native
format whatever follows (`is_native_magic` tests the prefixes first)."""


class Magic(StrEnum):
    """The native formats a file's first bytes can announce."""

    ELF = "elf"
    CUBIN = "cubin"
    """An ELF whose machine is EM_CUDA (190)."""
    CUDA_FATBIN = "cuda-fatbin"
    CUDA_FATBIN_WRAPPER = "cuda-fatbin-wrapper"
    AR = "ar"
    MACH_O = "mach-o"
    PE = "pe"


def sniff_magic(head: bytes) -> Magic | None:
    """The native format `head` (the first `SNIFF_BYTES` bytes) announces, or None."""
    if head.startswith(_ELF):
        return Magic.CUBIN if _elf_machine(head) == _EM_CUDA else Magic.ELF
    if head.startswith(_CUDA_FATBIN):
        return Magic.CUDA_FATBIN
    if head.startswith(_CUDA_FATBIN_WRAPPER):
        return Magic.CUDA_FATBIN_WRAPPER
    if head.startswith(_AR):
        return Magic.AR
    if head.startswith(_MACHO):
        return Magic.MACH_O
    if head.startswith(_MACHO_UNIVERSAL) and len(head) >= 8:
        count = int(struct.unpack(">I", head[4:8])[0])
        return Magic.MACH_O if 0 < count < _JAVA_CLASS_MIN_VERSION else None
    if head.startswith(_PE) and len(head) >= 0x40:
        pe_offset = int(struct.unpack("<I", head[0x3C:0x40])[0])
        return Magic.PE if 0x40 <= pe_offset < 0x1000 else None
    return None


def is_native_magic(head: bytes) -> bool:
    """True when the first bytes are those of an ELF, Mach-O, PE, CUDA fatbin or ar file."""
    return head.startswith(MAGIC_PREFIXES) and sniff_magic(head) is not None


EXECUTABLE_IMAGES = frozenset({Magic.ELF, Magic.MACH_O, Magic.PE})
"""The formats an operating system's loader runs as a program: a cubin, a fatbin or an `ar`
archive is no program (`execve` refuses it, and a shell may then read it as a script)."""


def is_executable_image(head: bytes) -> bool:
    """True when the first bytes are those of an ELF (not a cubin), Mach-O or PE image."""
    return head.startswith(MAGIC_PREFIXES) and sniff_magic(head) in EXECUTABLE_IMAGES


def executable_image(head: bytes) -> str | None:
    """The kind of program the first bytes open, for telling a rebuild from a swap: `elf` with
    its class, byte order and machine (`elf64:62`, `elf64be:21`), `mach-o` with its thin CPU
    type, `pe`; None for no ELF (or a cubin), Mach-O or PE image (`is_executable_image`), and
    for an ELF Linux refuses to load (`_elf_program`: `head` holds its program headers too). A
    loader refuses a program of another format or machine (`execve` answers ENOEXEC, and a
    shell may then read the file as a script), so an ELF rebuilt as a PE, or for another
    machine, is no rebuild."""
    if not is_executable_image(head):
        return None
    magic = sniff_magic(head)
    if magic is Magic.ELF:
        return _elf_program(head)
    if magic is Magic.MACH_O and not head.startswith(_MACHO_UNIVERSAL) and len(head) >= 8:
        order = "<" if head[:4] in (b"\xce\xfa\xed\xfe", b"\xcf\xfa\xed\xfe") else ">"
        return f"mach-o:{struct.unpack(order + 'I', head[4:8])[0]}"
    return str(magic)


_ELF_LAYOUT = {1: ("I", 28, 42, 32, 4, 16), 2: ("Q", 32, 54, 56, 8, 32)}
"""Per ELF class: its word's format, the offsets of `e_phoff` and `e_phentsize`, a program
header's size, and the offsets in it of `p_offset` and `p_filesz`."""
_PAGE = 4096
"""`ELF_MIN_ALIGN` (the page size, 4 KiB at least) and `PATH_MAX`: the program header table's
and a `PT_INTERP`'s largest size `binfmt_elf` takes."""


def _elf_program(head: bytes) -> str | None:
    """`elf64:62` (`elf32:3`; a big-endian one `elf64be:21`) for an ELF Linux's `binfmt_elf`
    loads, None for one it refuses with ENOEXEC before it looks for the loader: an `e_type`
    other than `ET_EXEC`/`ET_DYN`, a program header table of another entry size than the
    class's, empty, over a page or past `head`, a first `PT_INTERP` under 2 bytes, over
    `PATH_MAX`, past `head` or not NUL-terminated (glibc's `execvp` then has `/bin/sh` read the
    file, and dash runs its lines). The kernel reads the header in its own class and byte
    order, whatever `e_ident` says, so the image names them: a platform loads only its own
    (`wheel.tags.image_formats`)."""
    if len(head) < 64 or head[4] not in _ELF_LAYOUT or head[5] not in (1, 2):
        return None
    order = "<" if head[5] == 1 else ">"
    word, phoff_at, size_at, size, offset_at, filesz_at = _ELF_LAYOUT[head[4]]
    elf_type, machine = struct.unpack_from(order + "HH", head, 16)
    (phoff,) = struct.unpack_from(order + word, head, phoff_at)
    phentsize, phnum = struct.unpack_from(order + "HH", head, size_at)
    if elf_type not in (2, 3) or phentsize != size or not 0 < phnum * size <= _PAGE:
        return None
    if phoff + phnum * size > len(head):
        return None
    for index in range(phnum):
        where = phoff + index * size
        if struct.unpack_from(order + "I", head, where)[0] != 3:  # PT_INTERP
            continue
        (start,) = struct.unpack_from(order + word, head, where + offset_at)
        (length,) = struct.unpack_from(order + word, head, where + filesz_at)
        if not 2 <= length <= _PAGE or start + length > len(head) or head[start + length - 1]:
            return None
        break
    return f"elf{head[4] * 32}{'be' if order == '>' else ''}:{machine}"


def _elf_machine(head: bytes) -> int | None:
    if len(head) < 20:
        return None
    order = "<" if head[5] != 2 else ">"
    return int(struct.unpack(order + "H", head[18:20])[0])


def image_format(image: str) -> str:
    """An `executable_image` as `wheel.tags.image_formats` names what a platform loads: an
    ELF by its class, byte order and machine (`elf64:62`, as it is), a Mach-O or PE by its
    format alone (`mach-o:16777228` -> `mach-o`, `pe`)."""
    return image if image.startswith("elf") else image.partition(":")[0]

"""How far into `DT_SYMTAB` the dynamic loader reaches: the highest symbol index a relocation
names, and the dynamic tags as glibc keeps them.

The loader binds a symbol because a relocation names its index (`ELF64_R_SYM(r_info)`); it
bounds that index by nothing, and reads the hash tables only to look names up (glibc's
`_dl_setup_hash` skips `DT_HASH`'s `nchain`). A symbol count taken from the hash tables alone,
as pyelftools' `num_symbols` takes it, is the file's word, not the loader's: a `nchain` of 1
hid every import of an extension that imported and ran (hunt79). `elf_get_dynamic_info` keeps
the last entry of each tag, pyelftools' `get_table_offset` the first: `last_tags` reads them as
the loader does."""

from __future__ import annotations

import array
import sys
from typing import Any

_DT_RELA = 7
_TABLES = (("DT_RELA", "DT_RELASZ", True), ("DT_REL", "DT_RELSZ", False))
_CHUNK = 1 << 20


def last_tags(segment: Any) -> dict[str, int]:
    """Each dynamic tag's value, the last entry's where a tag comes twice (the one glibc
    keeps), read in one walk of the segment."""
    return {str(tag.entry.d_tag): int(tag["d_val"]) for tag in segment.iter_tags()}


def relocated_count(elf: Any, tags: dict[str, int]) -> int:
    """One past the highest symbol index a relocation of `DT_RELA`, `DT_REL` or `DT_JMPREL`
    (as `DT_PLTREL` says) names; 0 where there are none. A table that runs past the file bytes
    of the PT_LOAD it starts in is a `ValueError` (unreadable, never a shorter count)."""
    tables = list(_TABLES)
    plt = tags.get("DT_PLTREL")
    tables.append(("DT_JMPREL", "DT_PLTRELSZ", plt == _DT_RELA if plt else elf.elfclass == 64))
    highest = 0
    for address_tag, size_tag, rela in tables:
        address, size = tags.get(address_tag), tags.get(size_tag)
        if address is None or not size:
            continue
        stride = (3 if rela else 2) * (8 if elf.elfclass == 64 else 4)  # Elf*_Rela, Elf*_Rel
        count = -(-size // stride)  # glibc's `r < end` takes a last entry `size` cuts short
        at = next(elf.address_offsets(address, count * stride), None)
        if at is None:
            raise ValueError(f"{address_tag} runs past the file bytes of its loaded segment")
        highest = max(highest, _highest_symbol(elf, at, count, rela))
    return highest


def _highest_symbol(elf: Any, at: int, count: int, rela: bool) -> int:
    """One past the highest symbol index among `count` relocations at file offset `at` (only
    `r_info` is read, a megabyte of entries at a time, as machine words: the `struct` loop
    took 7 ms for cryptography's 36,785)."""
    wide = elf.elfclass == 64
    words = array.array("Q" if wide else "I")
    width = 2 if rela else 1  # words after r_info to the next entry's
    stride = (width + 1) * words.itemsize
    shift = 32 if wide else 8
    step = _CHUNK // stride
    swap = elf.little_endian != (sys.byteorder == "little")
    stream = elf.stream
    highest = 0
    for first in range(0, count, step):
        length = min(step, count - first) * stride
        stream.seek(at + first * stride)
        table = stream.read(length)
        if len(table) < length:
            raise ValueError("a relocation table runs past the end of the file")
        words = array.array(words.typecode, table)
        if swap:
            words.byteswap()
        most = max(words[1 :: width + 1]) >> shift
        highest = max(highest, most + 1 if most else 0)
    return highest

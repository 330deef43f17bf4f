"""The CPython symbols an ELF extension needs from the interpreter: its undefined, non-local
dynamic symbols named `Py*` or `_Py*` (what the dynamic loader resolves against libpython or
the executable when the extension is imported), from a file on disk: pyelftools locates the
tables, `struct` reads their entries.

The loader finds the symbol table through the `PT_DYNAMIC` segment (`DT_SYMTAB`, sized by the
hash tables) and never reads section headers, so an extension whose section table was stripped
or damaged still loads. The symbols are therefore read where the loader reads them, and from
every `SHT_DYNSYM` section as well (the union: a decoy section cannot hide what the segment
names, nor the other way round). An ELF with neither readable is `UnreadableSymbols`: its
stable-ABI use is unchecked, which the callers report, never a pass."""

from __future__ import annotations

import operator
import re
import struct
from collections.abc import Iterable
from pathlib import Path
from typing import Any

_PREFIXES = (b"Py", b"_Py")
LIBPYTHON = re.compile(r"^libpython\d+\.\d+[a-z]*\.so(?:\.[0-9.]+)?$")
"""One CPython version's shared library (`libpython3.11.so.1.0`, `libpython3.13t.so`,
`libpython2.7.so.1.0`: review74a, it passed), as auditwheel matches it; `libpython3.so`, the
stable ABI's, names no version."""
NAME_LIMIT = 4096
"""The bytes of a symbol's name read (a longer `Py*` name, in no CPython's table, is judged by
them: outside the stable ABI)."""
NAMES_LIMIT = 65_536
"""The most distinct `Py*` names one table may import: CPython's whole C API is a few thousand;
a table naming more is unreadable (review79a: a 1.9 MB wheel's million undefined `PyPy…`
symbols, each kept as a 4 KiB name, took 4 GB and 20 s, and a larger one more than the host
had)."""
_HEAD = 64
"""The bytes of a name read first: a name not starting with `Py` or `_Py` is read no further."""
_STRINGS_HELD = 16 << 20
"""A string table of at most this many bytes is read once and names are taken from it (a
million undefined symbols read one name at a time took 13 s)."""


class UnreadableSymbols(ValueError):
    """The file's dynamic symbol table cannot be read."""


def python_imports(path: Path) -> tuple[str, ...]:
    """Sorted names of the undefined `Py*` / `_Py*` dynamic symbols of the ELF at `path`."""
    # Imported when an ELF is read: importing this module (every audit does) costs nothing.
    from elftools.common.exceptions import ELFError
    from elftools.elf.dynamic import DynamicSegment
    from elftools.elf.elffile import ELFFile

    try:
        with open(path, "rb") as handle:
            elf = ELFFile(handle)
            names: set[str] = set()
            tables = 0
            for segment in elf.iter_segments("PT_DYNAMIC"):
                if isinstance(segment, DynamicSegment):
                    tables += 1
                    names.update(_segment_imports(elf, segment))
            for section in elf.iter_sections("SHT_DYNSYM"):
                tables += 1
                names.update(_section_imports(elf, section))
            if not tables:
                raise UnreadableSymbols("no dynamic symbol table (no PT_DYNAMIC, no .dynsym)")
            return tuple(sorted(names))
    except UnreadableSymbols:
        raise
    except (ELFError, ValueError, KeyError, IndexError, OSError, AssertionError) as exc:
        raise UnreadableSymbols(f"{type(exc).__name__}: {exc}") from exc


def libpython_needed(path: Path) -> tuple[str, ...]:
    """The DT_NEEDED entries of the ELF at `path` naming one CPython version's libpython (the
    loader reads them through `PT_DYNAMIC`, as `python_imports` reads the symbols), each named
    in the last `DT_STRTAB`, the loader's, and in pyelftools' first (the union: review79a, a
    decoy `DT_STRTAB` before the real one hid `libpython3.11.so.1.0`, which glibc loaded)."""
    from elftools.common.exceptions import ELFError
    from elftools.elf.dynamic import DynamicSegment
    from elftools.elf.elffile import ELFFile

    from k3diff.native.relocsymbols import last_tags

    try:
        with open(path, "rb") as handle:
            elf = ELFFile(handle)
            needed: set[str] = set()
            for segment in elf.iter_segments("PT_DYNAMIC"):
                if not isinstance(segment, DynamicSegment):
                    continue
                strings = last_tags(segment).get("DT_STRTAB")
                at = None if strings is None else next(elf.address_offsets(strings), None)
                for tag in segment.iter_tags("DT_NEEDED"):
                    needed.add(str(getattr(tag, "needed")))  # noqa: B009 (untyped attribute)
                    if at is not None:
                        needed.add(_string(elf.stream, at + tag["d_val"]))
    except (ELFError, ValueError, KeyError, IndexError, OSError, AssertionError) as exc:
        raise UnreadableSymbols(f"{type(exc).__name__}: {exc}") from exc
    return tuple(sorted(name for name in needed if LIBPYTHON.match(name)))


def _string(stream: Any, at: int) -> str:
    """The NUL-terminated string at `at` (its first `NAME_LIMIT` bytes)."""
    stream.seek(at)
    head: bytes = stream.read(NAME_LIMIT)
    end = head.find(b"\0")
    return head[: end if end >= 0 else len(head)].decode("utf-8", "replace")


def _segment_imports(elf: Any, segment: Any) -> Iterable[str]:
    """The table the loader reads: `DT_SYMTAB`, named in `DT_STRTAB` (`DT_STRSZ` bytes), each
    the tag's last entry as glibc's `elf_get_dynamic_info` keeps it (hunt79: a decoy
    `DT_STRTAB` before the real one hid a private import; pyelftools reads the first). As many
    entries as the hash tables say, or more where a relocation names a later one: the loader
    binds whatever index a relocation names and never reads `DT_HASH`'s `nchain` (hunt79: a
    `nchain` of 1 hid every import)."""
    from elftools.common.exceptions import ELFError

    from k3diff.native.relocsymbols import last_tags, relocated_count

    tags = last_tags(segment)
    symbols, strings = tags.get("DT_SYMTAB"), tags.get("DT_STRTAB")
    symbols_at, strings_at = (
        None if value is None else next(elf.address_offsets(value), None)
        for value in (symbols, strings)
    )
    if symbols_at is None or strings_at is None:
        raise ELFError("the dynamic segment names no DT_SYMTAB or DT_STRTAB in the file")
    reach = relocated_count(elf, tags)
    if (
        reach
        and next(elf.address_offsets(symbols, reach * elf.structs.Elf_Sym.sizeof()), None) is None
    ):
        # The loader reads that entry where its address maps (another segment, zeros), not
        # the file's next bytes (review79a).
        raise ELFError("a relocation names a symbol past the file bytes of DT_SYMTAB's segment")
    count = max(segment.num_symbols(), reach)
    return _python_undefined(elf, symbols_at, count, strings_at, tags.get("DT_STRSZ"))


def _section_imports(elf: Any, section: Any) -> Iterable[str]:
    """A `SHT_DYNSYM` section, named in the string table section it links."""
    entry = section["sh_entsize"] or elf.structs.Elf_Sym.sizeof()
    strings = elf.get_section(section["sh_link"]).header
    return _python_undefined(
        elf,
        section["sh_offset"],
        section["sh_size"] // entry,
        strings["sh_offset"],
        strings["sh_size"],
        entry,
    )


def _python_undefined(
    elf: Any, offset: int, count: int, strings: int, size: int | None, entry: int = 0
) -> Iterable[str]:
    """The undefined, non-local `Py*` / `_Py*` names of `count` symbols at `offset`, unpacked
    with `struct` a megabyte of entries at a time (pyelftools parses each symbol field by field
    and, for a segment, walks the dynamic tags again per symbol: ≈ 30 s for the 60,000 symbols
    of opencv's Qt libraries), the name of each undefined one read from `strings`."""
    wide = elf.elfclass == 64
    layout = "IBBHQQ" if wide else "IIIBBH"  # Elf64_Sym, Elf32_Sym
    wanted = operator.itemgetter(*((0, 1, 3) if wide else (0, 3, 5)))  # name, info, shndx
    record = struct.Struct(("<" if elf.little_endian else ">") + layout)
    entry = entry or record.size
    if entry < record.size or count < 0:
        raise ValueError(f"symbol entries of {entry} bytes")
    stream = elf.stream
    found: set[str] = set()
    held = None
    if size is not None and size <= _STRINGS_HELD:
        stream.seek(strings)
        held = stream.read(size + NAME_LIMIT)  # a last name runs past `size` as before
    step = max(1, (1 << 20) // entry)
    for first in range(0, count, step):
        stream.seek(offset + first * entry)
        length = min(step, count - first) * entry
        table = stream.read(length)
        if len(table) < length:
            raise ValueError("the symbol table runs past the end of the file")
        for start in range(0, length, entry):
            name, info, shndx = wanted(record.unpack_from(table, start))
            if shndx != 0 or info >> 4 == 0:  # defined here (not SHN_UNDEF), or STB_LOCAL
                continue
            if size is not None and name >= size:
                raise ValueError("a symbol's name lies past its string table")
            text = _python_name(stream, strings + name) if held is None else _held(held, name)
            if text is not None:
                found.add(text)
                if len(found) > NAMES_LIMIT:
                    raise ValueError(f"more than {NAMES_LIMIT:,} distinct Py* symbols")
    return found


def _held(table: bytes, at: int) -> str | None:
    """`_python_name` of a string table read whole."""
    if not table.startswith(_PREFIXES, at):
        return None
    end = table.find(b"\0", at, at + NAME_LIMIT)
    return table[at : end if end >= 0 else at + NAME_LIMIT].decode("utf-8", "replace")


def _python_name(stream: Any, at: int) -> str | None:
    """The NUL-terminated name at `at` (its first `NAME_LIMIT` bytes) where it starts with
    `Py` or `_Py`, else None (read no further than its first `_HEAD` bytes)."""
    stream.seek(at)
    head: bytes = stream.read(_HEAD)
    if not head.startswith(_PREFIXES):
        return None
    if b"\0" not in head:
        head += stream.read(NAME_LIMIT - _HEAD)
    end = head.find(b"\0")
    return head[: end if end >= 0 else len(head)].decode("utf-8", "replace")

"""The CPython symbols an ELF extension needs from the interpreter: its undefined, non-local
dynamic symbols named `Py*` or `_Py*` (what the dynamic loader resolves against libpython or
the executable when the extension is imported). Read with pyelftools from a file on disk.

The loader finds the symbol table through the `PT_DYNAMIC` segment (`DT_SYMTAB`, sized by the
hash tables) and never reads section headers, so an extension whose section table was stripped
or damaged still loads. The symbols are therefore read where the loader reads them, and from
every `SHT_DYNSYM` section as well (the union: a decoy section cannot hide what the segment
names, nor the other way round). An ELF with neither readable is `UnreadableSymbols`: its
stable-ABI use is unchecked, which the callers report, never a pass."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

_PREFIXES = ("Py", "_Py")


class UnreadableSymbols(ValueError):
    """The file's dynamic symbol table cannot be read."""


def python_imports(path: Path) -> tuple[str, ...]:
    """Sorted names of the undefined `Py*` / `_Py*` dynamic symbols of the ELF at `path`."""
    # Imported when an ELF is read: importing this module (every audit does) costs nothing.
    from elftools.common.exceptions import ELFError
    from elftools.elf.dynamic import DynamicSegment
    from elftools.elf.elffile import ELFFile
    from elftools.elf.sections import SymbolTableSection

    try:
        with open(path, "rb") as handle:
            elf = ELFFile(handle)
            names: set[str] = set()
            tables = 0
            for segment in elf.iter_segments("PT_DYNAMIC"):
                if isinstance(segment, DynamicSegment):
                    tables += 1
                    names.update(_python_undefined(segment.iter_symbols()))
            for section in elf.iter_sections("SHT_DYNSYM"):
                if isinstance(section, SymbolTableSection):
                    tables += 1
                    names.update(_python_undefined(section.iter_symbols()))
            if not tables:
                raise UnreadableSymbols("no dynamic symbol table (no PT_DYNAMIC, no .dynsym)")
            return tuple(sorted(names))
    except UnreadableSymbols:
        raise
    except (ELFError, ValueError, KeyError, IndexError, OSError, AssertionError) as exc:
        raise UnreadableSymbols(f"{type(exc).__name__}: {exc}") from exc


def _python_undefined(symbols: Iterable[Any]) -> Iterable[str]:
    for symbol in symbols:
        name = str(symbol.name)
        if (
            name.startswith(_PREFIXES)
            and symbol["st_shndx"] == "SHN_UNDEF"
            and symbol["st_info"]["bind"] != "STB_LOCAL"
        ):
            yield name

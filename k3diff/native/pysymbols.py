"""The CPython symbols an ELF extension needs from the interpreter: its undefined, non-local
`.dynsym` entries named `Py*` or `_Py*` (what the dynamic loader resolves against libpython or
the executable when the extension is imported). Read with pyelftools from a file on disk."""

from __future__ import annotations

from pathlib import Path

_PREFIXES = ("Py", "_Py")


class UnreadableSymbols(ValueError):
    """The file's dynamic symbol table cannot be read."""


def python_imports(path: Path) -> tuple[str, ...]:
    """Sorted names of the undefined `Py*` / `_Py*` dynamic symbols of the ELF at `path`."""
    # Imported when an ELF is read: importing this module (every audit does) costs nothing.
    from elftools.common.exceptions import ELFError
    from elftools.elf.elffile import ELFFile
    from elftools.elf.sections import SymbolTableSection

    try:
        with open(path, "rb") as handle:
            elf = ELFFile(handle)
            names: set[str] = set()
            for section in elf.iter_sections("SHT_DYNSYM"):
                if not isinstance(section, SymbolTableSection):
                    continue
                for symbol in section.iter_symbols():
                    name = str(symbol.name)
                    if (
                        name.startswith(_PREFIXES)
                        and symbol["st_shndx"] == "SHN_UNDEF"
                        and symbol["st_info"]["bind"] != "STB_LOCAL"
                    ):
                        names.add(name)
            return tuple(sorted(names))
    except (ELFError, ValueError, KeyError, IndexError, OSError, AssertionError) as exc:
        raise UnreadableSymbols(f"{type(exc).__name__}: {exc}") from exc

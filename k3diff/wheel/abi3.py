"""abi3 truth: does every extension of a wheel tagged `abi3` keep to the stable ABI its tag
promises?

A tag `cp38-abi3-PLATFORM` promises one build that imports on CPython 3.8 and every later
version. Each ELF extension (`*.so`) of such a wheel is inflated to a temporary file and its
undefined `Py*` / `_Py*` dynamic symbols (`k3diff.native.pysymbols`) are looked up in the
stable-ABI table of `abi3info` (the data abi3audit uses, generated from CPython's
`Misc/stable_abi.toml`):

* a symbol the table does not hold (`_PyObject_GetDictPtr`, `PyUnicode_AsUTF8` before 3.10 is
  in it; private `_Py*` helpers are not) is outside the stable ABI: the extension may crash or
  fail to import on another CPython version;
* a symbol added after the tag's version (`PyUnicode_AsUTF8AndSize`, stable from 3.10, under
  `cp36-abi3`) makes the wheel fail to import on the older versions its tag names;
* a shared library the wheel ships beside its extensions (`libshiboken6.abi3.so.6.11`,
  `pkg.libs/libhelper-1a2b3c4d.so.1`) is judged as an extension is: the loader resolves its
  `Py*` imports against the interpreter when an extension that needs it is imported;
* an extension named for one CPython version (`_C.cpython-312-x86_64-linux-gnu.so`) is only
  ever found by that version's import system, whatever its symbols: a `cp38-abi3` wheel
  shipping one imports on 3.12 alone (vLLM issue #41487);
* an ELF that names one CPython version's shared library in DT_NEEDED (`libpython3.11.so.1.0`,
  CMake's `Python::Python` where `Python::Module` was meant) loads only where that library is:
  on 3.12 the loader stops at "libpython3.11.so.1.0: cannot open shared object file".

Extensions in other formats (Windows `.pyd`, Mach-O) are not read; their names are checked.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from k3diff.errors import ArchiveError
from k3diff.lazyre import lazy
from k3diff.wheel.codes import Code, Finding
from k3diff.wheel.filename import parse_wheel_filename
from k3diff.wheel.targets import version_number
from k3diff.zip.archive import ZipArchive
from k3diff.zip.directory import ZipEntry

if TYPE_CHECKING:  # built only for an abi3 wheel's extensions
    from k3diff.wheel.abi3use import StableAbiUse, Version

_ABI3_TAG = re.compile(r"cp3(\d+)-abi3-")
_VERSION_BOUND = lazy(r"\.(?:cpython-3\d+[a-z]*-[^/]+\.so|cp3\d+-win[^/]*\.pyd)$")
_EXTENSION = lazy(r"\.(?:so(?:\.[0-9][^/]*)?|pyd)$")
"""An extension (`*.so`, `*.pyd`) or a shared library beside one, versioned as auditwheel and
CMake name them (`libshiboken6.abi3.so.6.11`, `libhelper-1a2b3c4d.so.1.0`): the dynamic loader
resolves a library's `Py*` imports against the interpreter as it does an extension's when the
extension that needs it is imported, so a private symbol there breaks the tag's promise alike."""


def abi3_baseline(tags: Iterable[str]) -> Version | None:
    """The oldest CPython an abi3 tag of `tags` promises (`cp38-abi3-...`: 3.8), or None when
    the wheel is not tagged abi3."""
    versions = [(3, version_number(m.group(1))) for tag in tags if (m := _ABI3_TAG.match(tag))]
    return min(versions) if versions else None


def wheel_tags(archive: ZipArchive, declared: tuple[str, ...]) -> tuple[str, ...]:
    """The tags pip selects the wheel by: its filename's, else its WHEEL file's."""
    filename = parse_wheel_filename(str(archive.path))
    return tuple(sorted(filename.tags)) if filename is not None else declared


def stable_abi_use(
    entry: str, imports: Iterable[str], baseline: Version, libpython: tuple[str, ...] = ()
) -> StableAbiUse:
    """The extension's imports judged against the stable-ABI table and the tag's version."""
    # Imported here: the table is only needed for abi3 wheels, not on every run's start.
    from abi3info import DATAS, FUNCTIONS
    from abi3info.models import Symbol

    from k3diff.wheel.abi3use import StableAbiUse

    private: list[str] = []
    newer: list[tuple[str, Version]] = []
    needs = (3, 2)
    for name in imports:
        member = FUNCTIONS.get(Symbol(name)) or DATAS.get(Symbol(name))
        if member is None:
            private.append(name)
            continue
        added = (member.added.major, member.added.minor)
        needs = max(needs, added)
        if added > baseline:
            newer.append((name, added))
    bound = _VERSION_BOUND.search(entry) is not None
    return StableAbiUse(
        entry, bound, tuple(private), needs, tuple(sorted(newer)), libpython=libpython
    )


def scan_abi3(archive: ZipArchive, baseline: Version) -> tuple[StableAbiUse, ...]:
    """Every extension of the archive (`*.so`, `*.pyd`) and shared library (`*.so.N`) judged; ELF ones are inflated one at a
    time to a temporary file, which is removed on every path."""
    # Imported here: it brings pyelftools, which only an abi3 wheel's extensions need.
    from k3diff.native.pysymbols import UnreadableSymbols
    from k3diff.wheel.abi3use import StableAbiUse

    found: list[StableAbiUse] = []
    for entry in archive.entries:
        if entry.is_dir or not _EXTENSION.search(entry.name):
            continue
        bound = _VERSION_BOUND.search(entry.name) is not None
        if archive.head(entry, 4) != b"\x7fELF":
            found.append(StableAbiUse(entry.name, bound))
            continue
        try:
            imports, libpython = _imports(archive, entry)
        except (UnreadableSymbols, ArchiveError) as exc:
            found.append(StableAbiUse(entry.name, bound, problem=str(exc)))
            continue
        found.append(stable_abi_use(entry.name, imports, baseline, libpython))
    return tuple(found)


def _imports(archive: ZipArchive, entry: ZipEntry) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The extension's `Py*` imports, and the libpython of one CPython version it needs."""
    import tempfile  # only an abi3 wheel's ELF extensions are written out

    from k3diff.native.pysymbols import libpython_needed, python_imports

    with tempfile.TemporaryDirectory(prefix="k3diff-abi3-") as scratch:
        target = Path(scratch) / "extension"
        with open(target, "wb") as handle:
            for chunk in archive.content_chunks(entry):
                handle.write(chunk)
        return python_imports(target), libpython_needed(target)


def _show(version: Version) -> str:
    return f"{version[0]}.{version[1]}"


def abi3_findings(
    uses: Iterable[StableAbiUse], baseline: Version, code: Code, side: str = ""
) -> list[Finding]:
    """One finding of `code` (A123 or W625) per extension that breaks the tag's promise."""
    where = f"in the {side} wheel: " if side else ""
    tag = f"cp{baseline[0]}{baseline[1]}-abi3"
    findings: list[Finding] = []
    for use in uses:
        reasons: list[str] = []
        if use.problem is not None:
            # Unchecked is not a pass: the loader may still load what could not be read here.
            reasons.append(f"its dynamic symbols could not be read ({use.problem}): unchecked")
        if use.version_bound:
            name = PurePosixPath(use.entry).name
            reasons.append(f"named {name!r}, which only one CPython version imports")
        if use.libpython:
            # review74: linked against libpython3.11.so, it loads where that library is alone
            reasons.append(
                f"linked against {', '.join(use.libpython)}: it loads only where that CPython's "
                "shared library is installed, so no other version imports it"
            )
        if use.private:
            shown = ", ".join(use.private[:5]) + (" ..." if len(use.private) > 5 else "")
            reasons.append(f"imports {len(use.private)} symbol(s) outside the stable ABI: {shown}")
        if use.newer:
            shown = ", ".join(f"{name} (stable from {_show(v)})" for name, v in use.newer[:5])
            reasons.append(f"needs the {_show(use.needs or baseline)} stable ABI: {shown}")
        if reasons:
            findings.append(Finding(code, use.entry, f"{where}{tag}: {'; '.join(reasons)}"))
    return findings


def newer_abi(
    base: Iterable[StableAbiUse], patch: Iterable[StableAbiUse]
) -> list[tuple[str, Version | None, Version]]:
    """(entry, base's version, patch's version) for each patch extension that needs a newer
    stable ABI than the base's extension of the same path (or is new and needs more than 3.2)."""
    old = {use.entry: use.needs for use in base}
    return [
        (use.entry, old.get(use.entry), use.needs)
        for use in patch
        if use.needs is not None and (old.get(use.entry) or (3, 2)) < use.needs
    ]

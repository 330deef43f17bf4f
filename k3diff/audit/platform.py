"""auditwheel's question, asked by `audit`: does any ELF of a wheel need a newer glibc, or a newer
libstdc++ (`GLIBCXX_`, `CXXABI_`), than its `manylinux_2_X` tag promises, or any glibc at all
under a `musllinux` tag (A115)? And is each built for an architecture its tags name (A125,
`k3diff.audit.arch`)? Does its RPATH/RUNPATH make the loader search a directory someone else
may fill (A139, `k3diff.native.searchpaths`)?

Each ELF's loader tables come from the read verification makes anyway (`FastTap` is fed the same
chunks that are hashed, and reads them with `struct` as pyelftools would), so a library is not inflated a second time unless its string or
version tables lie past the kept prefix. One whose tables cannot be read is said (A116, a
warning: its platform claim is unchecked, not wrong)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from k3diff.audit.arch import ElfIdent, elf_ident, mismatch, tagged_architectures
from k3diff.audit.elfneeds import FastTap
from k3diff.errors import ArchiveError
from k3diff.native.glibcpromise import (
    GLIBC_LIBRARIES,
    is_loader,
    named_glibc_reasons,
    promised_glibc,
)
from k3diff.native.libstdcxx import Promise, promised_libstdcxx
from k3diff.native.platform import PlatformNeeds, PlatformUnknown, version_key
from k3diff.native.pysymbols import LIBPYTHON
from k3diff.native.searchpaths import leftover_search_paths, risky_search_paths
from k3diff.native.syslibs import syslib_reasons
from k3diff.output import first_few
from k3diff.wheel.codes import Code, Finding
from k3diff.wheel.filename import parse_wheel_filename
from k3diff.wheel.kinds import EntryKind, kind_from_path
from k3diff.zip.archive import ZipArchive
from k3diff.zip.directory import ZipEntry


@dataclass(frozen=True)
class NativeNeeds:
    """One ELF entry of a wheel and what it needs of the system."""

    entry: str
    """The archive path."""
    needs: PlatformNeeds | None
    """Its loader's demands; None when they could not be read."""
    problem: str | None = None
    """Why they could not be read."""
    ident: ElfIdent | None = None
    """What its header says it runs on (A125), from the kept prefix."""


def tap_for(entry: ZipEntry) -> FastTap | None:
    """A tap for an entry that may be an ELF (by extension, or undecided by its path)."""
    if entry.is_dir or entry.size < 64:
        return None
    if kind_from_path(entry.name) not in (EntryKind.NATIVE, None):
        return None
    return FastTap(entry.size)


def native_needs(archive: ZipArchive, entry: ZipEntry, tap: FastTap) -> NativeNeeds | None:
    """The needs of a tapped entry, None when it is not an ELF."""
    if not tap.is_elf:
        return None
    ident = elf_ident(tap.head)
    try:
        needs = tap.needs(lambda: archive.content_chunks(entry))
    except (PlatformUnknown, ArchiveError) as exc:
        return NativeNeeds(entry.name, None, str(exc), ident)
    return NativeNeeds(entry.name, needs, None, ident)


def platform_findings(path: str, natives: Sequence[NativeNeeds]) -> list[Finding]:
    """A115 for each ELF needing more glibc or libstdc++ than the filename's tags promise; A116
    for each whose tables could not be read; A125 for each built for none of the tags'
    architectures; A139 for each whose RPATH/RUNPATH another party may plant a library in
    (`k3diff.native.searchpaths`: the tables already read, no new pass); A140, a warning, for
    each whose names a build machine's directory only root creates."""
    filename = parse_wheel_filename(path)
    platforms = {tag.rsplit("-", 1)[-1] for tag in filename.tags} if filename else set()
    promise = promised_glibc(platforms)
    stdcxx = promised_libstdcxx(platforms)
    architectures = tagged_architectures(platforms)
    findings: list[Finding] = []
    for native in natives:
        wrong = mismatch(native.ident, architectures)
        if wrong is not None:
            findings.append(Finding(Code.A125, native.entry, wrong))
        needs = native.needs
        if needs is None:
            detail = f"loader tables unreadable, platform needs unchecked: {native.problem}"
            findings.append(Finding(Code.A116, native.entry, detail))
            continue
        reasons = [
            *_glibc_reasons(needs, promise),
            *_libstdcxx_reasons(needs, stdcxx),
            *syslib_reasons(needs.other_versions, platforms),
            *_library_reasons(needs, promise),
        ]
        if reasons:
            findings.append(Finding(Code.A115, native.entry, first_few(reasons, "; ")))
        hijacks = risky_search_paths(native.entry, needs)
        if hijacks:
            findings.append(Finding(Code.A139, native.entry, first_few(hijacks, "; ")))
        leftovers = leftover_search_paths(native.entry, needs)
        if leftovers:
            findings.append(Finding(Code.A140, native.entry, first_few(leftovers, "; ")))
    return findings


def _glibc_reasons(needs: PlatformNeeds, promise: tuple[int, ...] | None) -> list[str]:
    """Each `GLIBC_` version past the promise: the highest numbered one, and every numberless
    one (`GLIBC_ABI_DT_RELR` before glibc 2.36, `GLIBC_PRIVATE` always; review74: an ELF
    linked with packed relative relocations passed under `manylinux_2_17`)."""
    if promise is None:
        return []
    named = named_glibc_reasons(needs.other_versions, promise)
    if needs.glibc is None:
        return named
    if promise == ():
        return [*_musl_glibc_reasons(needs), *named]
    if version_key(needs.glibc) > promise:
        claimed = ".".join(map(str, promise))
        return [
            f"needs GLIBC_{needs.glibc}, newer than the glibc {claimed} its tag promises",
            *named,
        ]
    return named


def _musl_glibc_reasons(needs: PlatformNeeds) -> list[str]:
    """A numbered `GLIBC_` version needed of glibc's own libraries under a musllinux tag. One
    needed of another library is no glibc (musl80: musl toolchains' libgcc_s defines GLIBC_2.0
    for `__register_frame_info`, and every musllinux numpy, C++ extensions and bundled libstdc++
    alike, needs it of the libgcc_s the wheel carries; musl's loader checks no version, and
    auditwheel judges no symbol version under a musllinux policy)."""
    glibcs = [file for file in needs.glibc_of if file in GLIBC_LIBRARIES or is_loader(file)]
    if not glibcs:
        return []
    return [
        f"needs GLIBC_{needs.glibc} of {first_few(glibcs, ', ')}, glibc's, but the wheel is "
        "tagged musllinux"
    ]


def _libstdcxx_reasons(needs: PlatformNeeds, promise: Promise | None) -> list[str]:
    """libstdc++ symbol versions past what the manylinux tag's policy allows (as auditwheel)."""
    if promise is None:
        return []
    reasons = []
    for family, needed, allowed in (
        ("GLIBCXX", needs.glibcxx, promise[0]),
        ("CXXABI", needs.cxxabi, promise[1]),
    ):
        if needed is not None and version_key(needed) > allowed:
            limit = ".".join(map(str, allowed))
            reasons.append(
                f"needs {family}_{needed}, newer than the libstdc++ ({family}_{limit}) "
                "its manylinux tag promises"
            )
    return reasons


def _library_reasons(needs: PlatformNeeds, promise: tuple[int, ...] | None) -> list[str]:
    """Libraries in DT_NEEDED a manylinux or musllinux tag rules out: one CPython's libpython,
    which the policies forbid (`auditwheel repair` removes it), as a CPython built without a
    shared library (the manylinux images', pyenv's by default) has none to load, nor the stable
    ABI's `libpython3.so` (on no policy's list: `auditwheel show` refuses it); and musl's
    libc under a manylinux tag, which no glibc system has (review74: both passed)."""
    if promise is None:
        return []
    reasons = [
        f"needs {name}, which manylinux and musllinux forbid: a CPython built without a shared "
        "library has none to load"
        for name in needs.needed
        if LIBPYTHON.match(name) or name == "libpython3.so"  # review74a: the stable ABI's passed
    ]
    if promise:  # a manylinux tag: glibc systems
        reasons += [
            f"needs {name}, musl's C library, which no glibc system has (a musllinux build)"
            for name in needs.needed
            if name.startswith("libc.musl-")
        ]
    else:  # musllinux (review74a: an ELF needing libc.so.6, no GLIBC_ version named, passed)
        reasons += [
            f"needs {name}, glibc's, which no musl system has (a manylinux build)"
            for name in needs.needed
            if name in GLIBC_LIBRARIES or is_loader(name)
        ]
    return reasons

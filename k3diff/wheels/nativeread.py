"""One native's loader tables read from a wheel (`NativeRead`): kept from the read that hashes
it for RECORD (`digest_and_loader`, `LoaderTap`), or read for them alone up to the end of its
dynamic segment (`read_native`); and the W632/W633 its search paths give (`search_path_findings`:
`k3diff.native.searchpaths`' judgement, for `nativepaths`, `addednatives` and `findings`)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

from k3diff.errors import ArchiveError
from k3diff.native.platform import ElfTap, PlatformNeeds, PlatformUnknown
from k3diff.native.searchpaths import judged_search_paths
from k3diff.output import first_few
from k3diff.wheel.codes import Code, Finding
from k3diff.wheel.recordhash import new_hasher, record_form
from k3diff.zip.archive import ZipArchive
from k3diff.zip.directory import ZipEntry

_EM_CUDA = 190


@dataclass(frozen=True)
class NativeRead:
    """One native's needs, or why they could not be read."""

    path: str
    needs: PlatformNeeds | None
    problem: str | None


def entries_by_name(archive: ZipArchive) -> dict[str, ZipEntry]:
    """The archive's entries by name: the last of a name given twice, as pip installs it."""
    return {entry.name: entry for entry in archive.entries}


class LoaderTap:
    """An ELF native's loader tables, kept from a read made anyway (the RECORD hash's,
    `schedule.with_digest`) or one of their own (`read_native`)."""

    def __init__(self, size: int) -> None:
        self._tap = ElfTap(size)
        self._head = b""

    def feed(self, chunk: bytes | memoryview) -> None:
        """The next chunk of content."""
        self._tap.feed(chunk)
        if len(self._head) < 20:
            self._head = (self._head + bytes(chunk[:20]))[:20]

    @property
    def done(self) -> bool:
        """No more content is needed: not an ELF, or its tables are kept."""
        return (len(self._head) >= 4 and not self._tap.is_elf) or self._tap.kept_all

    def read(self, path: str, reread: Callable[[], Iterator[bytes]]) -> NativeRead | None:
        """The needs once fed (`reread`: the content again, where the string tables lie past
        the kept prefix); None when no ELF or a GPU image."""
        if not self._tap.is_elf or _is_cubin(self._head):
            return None
        try:
            return NativeRead(path, self._tap.needs(reread), None)
        except PlatformUnknown as exc:
            return NativeRead(path, None, str(exc))
        except ArchiveError as exc:
            return NativeRead(path, None, f"not read: {exc}")


def read_native(archive: ZipArchive, entries: dict[str, ZipEntry], path: str) -> NativeRead | None:
    """The needs of the ELF entry at `path`, its content inflated only up to the end of its
    dynamic segment (and again up to its string tables, where they lie past the kept prefix);
    None when it is no ELF, a GPU image, or not in the archive."""
    entry = entries.get(path)
    if entry is None:
        return None
    tap = LoaderTap(entry.size)
    try:
        for chunk in archive.content_chunks(entry):
            tap.feed(chunk)
            if tap.done:
                break  # the rest of the content is code and data the loader tables never name
    except ArchiveError as exc:
        return NativeRead(path, None, f"not read: {exc}")
    return tap.read(path, lambda: archive.content_chunks(entry))


def _is_cubin(head: bytes) -> bool:
    """A GPU image (e_machine EM_CUDA): no loader reads it, as `explain_elf` judges none."""
    machine = head[18:20] if head[5:6] == b"\x01" else head[19:17:-1]  # EI_DATA: LSB or MSB
    return len(head) >= 20 and int.from_bytes(machine, "little") == _EM_CUDA


def digest_and_loader(
    archive: ZipArchive, entry: ZipEntry, algorithm: str
) -> tuple[str, NativeRead | None]:
    """`digest_content` of a native, its loader tables kept from the same read (None when it
    is no ELF); CorruptEntryError as `digest_content`."""
    hasher = new_hasher(algorithm)
    tap = LoaderTap(entry.size)
    for chunk in archive.content_chunks(entry):
        hasher.update(chunk)
        if not tap.done:
            tap.feed(chunk)
    digest = record_form(algorithm, hasher.digest())
    return digest, tap.read(entry.name, lambda: archive.content_chunks(entry))


def search_path_findings(
    path: str, needs: PlatformNeeds, base: tuple[str, PlatformNeeds] | None, lead: str = ""
) -> list[Finding]:
    """W632 for each risky RPATH/RUNPATH component of the native at `path`, W633 (a warning)
    for each build machine's leftover; of a changed one (`base`: its base path and needs),
    only those the base's own search paths did not already have (review75g: a patch that kept
    its RPATH failed for it; the base's are `audit`'s business), an RPATH made a RUNPATH of
    the same directory included (elf78: it searches there for fewer libraries, never more)."""
    had = {j.key for j in judged_search_paths(*base)} if base is not None else set()
    new = [j for j in judged_search_paths(path, needs) if not j.searched_in(had)]
    findings = []
    for code, fails in ((Code.W632, True), (Code.W633, False)):
        details = [j.detail for j in new if j.fails is fails]
        if details:
            findings.append(Finding(code, path, lead + first_few(details, "; ")))
    return findings

"""`--allow-native-changes`: the search paths of each changed or added native, with or without
`--explain`.

The option lets a native change pass (W101-W103): a rebuilt library, not a library hijack.
`--explain` judges a changed native's RPATH/RUNPATH from its whole reading (W632, W633:
`findings`) and an added one's (`addednatives`); without it natives were compared by hash only,
and a patch whose rebuilt `.so` gained RUNPATH `/tmp` or `.` passed, exit 0 (elf76). Here each
changed or added ELF native is read up to the end of its dynamic segment only (`ElfTap`: the
string table in a second pass when it lies past the kept prefix), its base side only when the
patch's names a directory to judge, and judged as `--explain` judges it; one whose loader tables
cannot be read is W632, unchecked (A116's rule: a table k3diff cannot read may be one the loader
reads). Identical natives are not read: a pair of one wheel with itself costs nothing more."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from k3diff.errors import ArchiveError
from k3diff.native.platform import ElfTap, PlatformNeeds, PlatformUnknown
from k3diff.native.searchpaths import leftover_search_paths, risky_search_paths
from k3diff.output import first_few
from k3diff.wheel.codes import Code, Finding
from k3diff.wheel.kinds import EntryKind
from k3diff.wheels.entry import EntryResult
from k3diff.wheels.proof import Status
from k3diff.zip.archive import ZipArchive
from k3diff.zip.directory import ZipEntry

_EM_CUDA = 190


@dataclass(frozen=True)
class NativeRead:
    """One native's needs, or why they could not be read."""

    path: str
    needs: PlatformNeeds | None
    problem: str | None


def allowed_native_findings(
    entries: Sequence[EntryResult],
    base: ZipArchive,
    patch: ZipArchive,
    patch_name: str,
    explain: bool,
) -> list[Finding]:
    """What `--allow-native-changes` still judges of the natives it lets change: with
    `--explain`, an added native's needs and search paths (`addednatives`; a changed one's are
    `findings`'); without, each changed or added native's search paths (see above)."""
    if explain:
        from k3diff.wheels.addednatives import added_native_findings

        return added_native_findings(entries, base, patch, patch_name)
    return _search_path_changes(entries, base, patch)


def _search_path_changes(
    entries: Sequence[EntryResult], base: ZipArchive, patch: ZipArchive
) -> list[Finding]:
    """W632/W633 for each changed or added ELF native whose search paths gain a component to
    judge; W632 for one whose loader tables cannot be read."""
    moved = [
        e
        for e in entries
        if e.kind is EntryKind.NATIVE and e.status in (Status.CHANGED, Status.ADDED)
    ]
    if not moved:
        return []
    patch_entries, base_entries = entries_by_name(patch), entries_by_name(base)
    findings: list[Finding] = []
    for entry in moved:
        new = read_native(patch, patch_entries, entry.patch_path or entry.path)
        if new is None:
            continue  # no ELF (Mach-O, PE, an archive) or a GPU image: no loader search path
        lead = "added; " if entry.status is Status.ADDED else ""
        if new.needs is None:
            detail = f"{lead}loader tables unreadable, search paths unchecked: {new.problem}"
            findings.append(Finding(Code.W632, entry.path, detail))
            continue
        if not (new.needs.rpath or new.needs.runpath):
            continue
        had = None
        if entry.status is Status.CHANGED:
            old = read_native(base, base_entries, entry.base_path or entry.path)
            if old is not None and old.needs is not None:  # an unreadable base: all are new
                had = (old.path, old.needs)
        for finding in search_path_findings(new.path, new.needs, had, lead):
            findings.append(Finding(finding.code, entry.path, finding.detail))
    return findings


def search_path_findings(
    path: str, needs: PlatformNeeds, base: tuple[str, PlatformNeeds] | None, lead: str = ""
) -> list[Finding]:
    """W632 for each risky RPATH/RUNPATH component of the native at `path`, W633 (a warning)
    for each build machine's leftover; of a changed one (`base`: its base path and needs),
    only those the base's own search paths did not already have (review75g: a patch that kept
    its RPATH failed for it; the base's are `audit`'s business)."""
    findings = []
    for code, judge in ((Code.W632, risky_search_paths), (Code.W633, leftover_search_paths)):
        had = set(judge(*base)) if base is not None else set()
        new = [why for why in judge(path, needs) if why not in had]
        if new:
            findings.append(Finding(code, path, lead + first_few(new, "; ")))
    return findings


def entries_by_name(archive: ZipArchive) -> dict[str, ZipEntry]:
    """The archive's entries by name: the last of a name given twice, as pip installs it."""
    return {entry.name: entry for entry in archive.entries}


def read_native(archive: ZipArchive, entries: dict[str, ZipEntry], path: str) -> NativeRead | None:
    """The needs of the ELF entry at `path`, its content inflated only up to the end of its
    dynamic segment (and again up to its string tables, where they lie past the kept prefix);
    None when it is no ELF, a GPU image, or not in the archive."""
    entry = entries.get(path)
    if entry is None:
        return None
    tap, head = ElfTap(entry.size), b""
    try:
        for chunk in archive.content_chunks(entry):
            tap.feed(chunk)
            head = head if len(head) >= 20 else (head + chunk)[:20]
            if len(head) >= 4 and not tap.is_elf:
                return None
            if tap.kept_all:
                break  # the rest of the content is code and data the loader tables never name
        if not tap.is_elf or _is_cubin(head):
            return None
        return NativeRead(path, tap.needs(lambda: archive.content_chunks(entry)), None)
    except PlatformUnknown as exc:
        return NativeRead(path, None, str(exc))
    except ArchiveError as exc:
        return NativeRead(path, None, f"not read: {exc}")


def _is_cubin(head: bytes) -> bool:
    """A GPU image (e_machine EM_CUDA): no loader reads it, as `explain_elf` judges none."""
    machine = head[18:20] if head[5:6] == b"\x01" else head[19:17:-1]  # EI_DATA: LSB or MSB
    return len(head) >= 20 and int.from_bytes(machine, "little") == _EM_CUDA

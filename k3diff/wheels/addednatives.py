"""`--explain` under `--allow-native-changes`: the platform needs of an *added* native (W713).

A changed native is judged base -> patch (`findings`). An added one is not a pair, yet
`auditwheel repair` names each bundled library anew on every rebuild and a library renamed across
a major version pairs with nothing: a rebuilt library that now needs a newer glibc showed as one
removed and one added, and passed (review74a, exit 0). Here an added ELF's needs are judged
against the removed native it replaces, paired in its folder by its name without auditwheel's
8-hex hash and version parts or by its DT_SONAME so cut, else against the highest need of every
base native (a new library needing more than anything the base needed raises the wheel's floor).
An added ELF whose loader tables cannot be read fails as unchecked, as a changed one does. An
added ELF whose RPATH/RUNPATH another party may plant a library in is W632
(`k3diff.native.searchpaths`), as a changed one is."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from k3diff.errors import ArchiveError
from k3diff.lazyre import lazy
from k3diff.native.platform import ElfTap, PlatformNeeds, PlatformUnknown, version_key
from k3diff.native.searchpaths import risky_search_paths
from k3diff.output import first_few
from k3diff.wheel.codes import Code, Finding
from k3diff.wheel.kinds import EntryKind
from k3diff.wheels.entry import EntryResult
from k3diff.wheels.proof import Status
from k3diff.zip.archive import ZipArchive
from k3diff.zip.directory import ZipEntry

_LIBRARY = lazy(r"^(?P<stem>.+?)(?:-[0-9a-f]{8})?\.so(?:\.[0-9]+)*$")
"""A library's name without auditwheel's hash and its version (`libfoo-1a2b3c4d.so.1.0`: libfoo)."""


_EM_CUDA = 190


@dataclass(frozen=True)
class _Read:
    """One native's needs, or why they could not be read."""

    path: str
    needs: PlatformNeeds | None
    problem: str | None


def added_native_findings(
    entries: Sequence[EntryResult], base: ZipArchive, patch: ZipArchive
) -> list[Finding]:
    """W713 for each added ELF native whose needs rise over what it replaces (see above); W632
    for each whose RPATH/RUNPATH is risky."""
    added = [e for e in entries if e.kind is EntryKind.NATIVE and e.status is Status.ADDED]
    if not added:
        return []
    patch_entries, base_entries = _by_name(patch), _by_name(base)
    reads = [
        r for e in added if (r := _needs(patch, patch_entries, e.patch_path or e.path)) is not None
    ]
    if not reads:
        return []
    natives = [e for e in entries if e.kind is EntryKind.NATIVE and e.status is not Status.ADDED]
    removed = [e.base_path or e.path for e in natives if e.status is Status.MISSING]
    gone = [r for path in removed if (r := _needs(base, base_entries, path)) is not None]
    floor: list[_Read] | None = None  # every base ELF: read only when an added one pairs with none
    findings = []
    for new in reads:
        if new.needs is None:
            detail = f"loader tables unreadable, platform needs unchecked: {new.problem}"
            findings.append(Finding(Code.W713, new.path, detail))
            continue
        hijacks = risky_search_paths(new.path, new.needs)
        if hijacks:
            findings.append(Finding(Code.W632, new.path, "added; " + first_few(hijacks, "; ")))
        replaced = [old for old in gone if _replaces(old, new)]
        if replaced:
            finding = _judged(new.path, new.needs, replaced, replaced[0].path)
        else:
            if floor is None:
                paths = [e.base_path or e.path for e in natives]
                floor = [r for p in paths if (r := _needs(base, base_entries, p)) is not None]
            # an unreadable base native is left out: a lower floor only fails more
            readable = [old for old in floor if old.needs is not None]
            finding = _judged(new.path, new.needs, readable, "any base native")
        if finding is not None:
            findings.append(finding)
    return findings


def _judged(path: str, needs: PlatformNeeds, olds: list[_Read], what: str) -> Finding | None:
    """W713 when `needs` raise over the highest need among `olds` (one unreadable: unchecked)."""
    unread = [old.path for old in olds if old.needs is None]
    if unread:
        detail = f"added; {unread[0]}, which it is judged against, has unreadable loader tables"
        return Finding(Code.W713, path, detail)
    floor = _highest([old.needs for old in olds if old.needs is not None])
    changes = floor.raised_changes(needs)
    if not changes:
        return None
    return Finding(Code.W713, path, f"added, against {what}: " + "; ".join(changes))


def _highest(needs: list[PlatformNeeds]) -> PlatformNeeds:
    """One need per family: the highest of `needs` (none: nothing needed)."""

    def top(field: str) -> str | None:
        found = [v for n in needs if (v := getattr(n, field)) is not None]
        return max(found, key=version_key, default=None)

    other = tuple(sorted({name for n in needs for name in n.other_versions}))
    return PlatformNeeds(top("glibc"), top("glibcxx"), top("cxxabi"), (), None, None, other)


def _replaces(old: _Read, new: _Read) -> bool:
    """The removed `old` is the library `new` replaces: same folder and name without hash and
    version, or the same DT_SONAME so cut."""
    if _stem(old.path) is not None and _stem(old.path) == _stem(new.path):
        return True
    old_soname, new_soname = (r.needs.soname if r.needs else None for r in (old, new))
    if old_soname is None or new_soname is None:
        return False
    stem = _stem(new_soname)
    return stem is not None and _stem(old_soname) == stem


def _stem(path: str) -> str | None:
    head, _, leaf = path.rpartition("/")
    match = _LIBRARY.match(leaf)
    return f"{head}/{match['stem']}" if match else None


def _is_cubin(head: bytes) -> bool:
    """A GPU image (e_machine EM_CUDA): no loader reads it, as `explain_elf` judges none."""
    machine = head[18:20] if head[5:6] == b"\x01" else head[19:17:-1]  # EI_DATA: LSB or MSB
    return len(head) >= 20 and int.from_bytes(machine, "little") == _EM_CUDA


def _by_name(archive: ZipArchive) -> dict[str, ZipEntry]:
    """The archive's entries by name: the last of a name given twice, as pip installs it."""
    return {entry.name: entry for entry in archive.entries}


def _needs(archive: ZipArchive, entries: dict[str, ZipEntry], path: str) -> _Read | None:
    """The needs of the ELF entry at `path`; None when it is no ELF (or not in the archive)."""
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
        if not tap.is_elf or _is_cubin(head):
            return None
        return _Read(path, tap.needs(lambda: archive.content_chunks(entry)), None)
    except PlatformUnknown as exc:
        return _Read(path, None, str(exc))
    except ArchiveError as exc:
        return _Read(path, None, f"not read: {exc}")

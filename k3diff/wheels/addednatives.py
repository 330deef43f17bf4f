"""`--explain` under `--allow-native-changes`: the platform needs of an *added* native (W713).

A changed native is judged base -> patch (`findings`). An added one is not a pair, yet
`auditwheel repair` names each bundled library anew on every rebuild and a library renamed across
a major version pairs with nothing: a rebuilt library that now needs a newer glibc showed as one
removed and one added, and passed (review74a, exit 0). Here an added ELF's needs are judged
against the removed native it replaces, paired in its folder by its name without auditwheel's
8-hex hash and version parts or by its DT_SONAME so cut, else against the highest need of every
base native (a new library needing more than anything the base needed raises the wheel's floor).
A base with no ELF native at all (a pure wheel turned native) gives no need to compare against:
the added ELF is judged, as `audit` judges it (A115), against what the patch's own tags promise
(the glibc and libstdc++ of its manylinux tag, no glibc under musllinux), and one in a wheel
whose tags name no Linux platform fails, as nothing about its needs was promised.
An added ELF whose loader tables cannot be read fails as unchecked, as a changed one does. An
added ELF whose RPATH/RUNPATH another party may plant a library in is W632
(`k3diff.native.searchpaths`), as a changed one is."""

from __future__ import annotations

from collections.abc import Sequence

from k3diff.audit.platform import NativeNeeds, platform_findings
from k3diff.lazyre import lazy
from k3diff.native.platform import PlatformNeeds, version_key
from k3diff.wheel.codes import Code, Finding
from k3diff.wheel.filename import parse_wheel_filename
from k3diff.wheel.kinds import EntryKind
from k3diff.wheels.entry import EntryResult
from k3diff.wheels.nativeread import NativeRead, entries_by_name, read_native, search_path_findings
from k3diff.wheels.proof import Status
from k3diff.zip.archive import ZipArchive

_LIBRARY = lazy(r"^(?P<stem>.+?)(?:-[0-9a-f]{8})?\.so(?:\.[0-9]+)*$")
"""A library's name without auditwheel's hash and its version (`libfoo-1a2b3c4d.so.1.0`: libfoo)."""


def added_native_findings(
    entries: Sequence[EntryResult], base: ZipArchive, patch: ZipArchive, patch_name: str
) -> list[Finding]:
    """W713 for each added ELF native whose needs rise over what it replaces, or past what the
    patch's tags (`patch_name`, its file name) promise when the base has no ELF (see above);
    W632 for each whose RPATH/RUNPATH is risky."""
    added = [e for e in entries if e.kind is EntryKind.NATIVE and e.status is Status.ADDED]
    if not added:
        return []
    patch_entries, base_entries = entries_by_name(patch), entries_by_name(base)
    reads = [
        r
        for e in added
        if (r := e.loader or read_native(patch, patch_entries, e.patch_path or e.path)) is not None
    ]
    if not reads:
        return []
    natives = [e for e in entries if e.kind is EntryKind.NATIVE and e.status is not Status.ADDED]
    removed = [e.base_path or e.path for e in natives if e.status is Status.MISSING]
    gone = [r for path in removed if (r := read_native(base, base_entries, path)) is not None]
    floor: list[NativeRead] | None = (
        None  # every base ELF: read only when an added one pairs with none
    )
    findings = []
    for new in reads:
        if new.needs is None:
            detail = f"loader tables unreadable, platform needs unchecked: {new.problem}"
            findings.append(Finding(Code.W713, new.path, detail))
            continue
        findings.extend(search_path_findings(new.path, new.needs, None, "added; "))
        replaced = [old for old in gone if _replaces(old, new)]
        if replaced:
            finding = _judged(new.path, new.needs, replaced, replaced[0].path)
        else:
            if floor is None:
                paths = [e.base_path or e.path for e in natives]
                floor = [r for p in paths if (r := read_native(base, base_entries, p)) is not None]
            # an unreadable base native is left out: a lower floor only fails more
            readable = [old for old in floor if old.needs is not None]
            if floor:
                finding = _judged(new.path, new.needs, readable, "any base native")
            else:  # a pure base: nothing to compare, the patch's tags say what it may need
                finding = _promised(new.path, new.needs, patch_name)
        if finding is not None:
            findings.append(finding)
    return findings


def _judged(path: str, needs: PlatformNeeds, olds: list[NativeRead], what: str) -> Finding | None:
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


def _promised(path: str, needs: PlatformNeeds, patch_name: str) -> Finding | None:
    """W713 when an added ELF of a wheel whose base had none breaks its tags' promise (A115's
    reasons), or when no tag names a Linux platform at all."""
    filename = parse_wheel_filename(patch_name)
    platforms = {tag.rsplit("-", 1)[-1] for tag in filename.tags} if filename else set()
    if not any("linux" in platform for platform in platforms):
        shown = ", ".join(sorted(platforms)) or "none"
        detail = f"added to a wheel that had no ELF; its tags name no Linux platform ({shown})"
        return Finding(Code.W713, path, detail)
    broken = platform_findings(patch_name, [NativeNeeds(path, needs)])
    reasons = [finding.detail for finding in broken if finding.code is Code.A115]
    if not reasons:
        return None
    return Finding(Code.W713, path, "added to a wheel that had no ELF; " + "; ".join(reasons))


def _highest(needs: list[PlatformNeeds]) -> PlatformNeeds:
    """One need per family: the highest of `needs` (none: nothing needed)."""

    def top(field: str) -> str | None:
        found = [v for n in needs if (v := getattr(n, field)) is not None]
        return max(found, key=version_key, default=None)

    other = tuple(sorted({name for n in needs for name in n.other_versions}))
    glibc_of = tuple(sorted({file for n in needs for file in n.glibc_of}))
    return PlatformNeeds(
        top("glibc"), top("glibcxx"), top("cxxabi"), (), None, None, other, glibc_of=glibc_of
    )


def _replaces(old: NativeRead, new: NativeRead) -> bool:
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

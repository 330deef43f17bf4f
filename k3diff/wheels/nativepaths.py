"""`--allow-native-changes`: the search paths of each changed or added native, with or without
`--explain`.

The option lets a native change pass (W101-W103): a rebuilt library, not a library hijack.
`--explain` judges a changed native's RPATH/RUNPATH from its whole reading (W632, W633:
`findings`) and an added one's (`addednatives`); without it natives were compared by hash only,
and a patch whose rebuilt `.so` gained RUNPATH `/tmp` or `.` passed, exit 0 (elf76). Here each
changed or added ELF native's loader tables are kept from the read that hashes it for RECORD
(`nativeread`: torch 2.13's 434 MB libtorch_cpu changed cost +0.04 s of CPU), else read up to
the end of its dynamic segment only; its base side only when the patch's name a directory to
judge. They are judged as `--explain` judges them; one whose tables cannot be read is W632,
unchecked (A116's rule: a table k3diff cannot read may be one the loader reads). Identical
natives are not read: a pair of one wheel with itself costs nothing more."""

from __future__ import annotations

from collections.abc import Sequence

from k3diff.wheel.codes import Code, Finding
from k3diff.wheel.kinds import EntryKind
from k3diff.wheels.entry import EntryResult
from k3diff.wheels.entryruns import EntryResults
from k3diff.wheels.nativeread import entries_by_name, read_native, search_path_findings
from k3diff.wheels.proof import Status
from k3diff.zip.archive import ZipArchive


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
    # a raw-identical run's results are not built (`EntryResults.singles`): none changed
    results = [r for _, r in entries.singles] if isinstance(entries, EntryResults) else entries
    moved = [
        e
        for e in results
        if e.kind is EntryKind.NATIVE and e.status in (Status.CHANGED, Status.ADDED)
    ]
    if not moved:
        return []
    patch_entries, base_entries = entries_by_name(patch), entries_by_name(base)
    findings: list[Finding] = []
    for entry in moved:
        new = entry.loader or read_native(patch, patch_entries, entry.patch_path or entry.path)
        if new is None:
            continue  # no ELF (Mach-O, PE, an archive) or a GPU image: no loader search path
        lead = "added; " if entry.status is Status.ADDED else ""
        if new.needs is None:
            detail = f"{lead}loader tables unreadable, search paths unchecked: {new.problem}"
            findings.append(Finding(Code.W632, entry.path, detail))
            continue
        if not search_path_findings(new.path, new.needs, None):
            continue  # nothing to judge (torch's `$ORIGIN`): the base is not read
        had = None
        if entry.status is Status.CHANGED:
            old = read_native(base, base_entries, entry.base_path or entry.path)
            if old is not None and old.needs is not None:  # an unreadable base: all are new
                had = (old.path, old.needs)
        for finding in search_path_findings(new.path, new.needs, had, lead):
            findings.append(Finding(finding.code, entry.path, finding.detail))
    return findings

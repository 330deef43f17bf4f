"""Execution surfaces whose findings were deleted: a wheels document lists, in
`execution_surfaces.changes`, every surface added, changed or removed, and `wheels` writes one
finding for each (`k3diff.wheels.surfaces.surface_findings`). Fewer findings of a kind's codes
than its changes (at any severity, counting those `--select`/`--ignore` filtered out) is no run
of `wheels`: an executable `.pth` line, a sitecustomize or an entry point whose failing finding
was deleted, the verdict made to pass, would read as a clean run. An audit's artifact lists its
surfaces too, and `audit` fails each script that replaces a virtual environment's own command
(W703, `k3diff.wheel.surfaces.environment_shadowing`)."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Mapping
from typing import NamedTuple

from k3diff.documents.audit import AuditDocument
from k3diff.documents.wheelsview import SurfaceChangeView, WheelsDocument

SURFACE_CODES = {
    ("pth",): ("W701", "W706"),
    ("customize",): ("W702",),
    ("script", "data-script"): ("W703", "W707", "W708"),
    ("entry-point",): ("W704",),
    ("bytecode",): ("W705", "W712", "W716"),
    ("tool-config",): ("W717",),
}
"""The kinds of surface added or changed, and the codes of which `wheels` writes one finding
for each (a new top-level name is W709, a removed surface of any kind W710)."""


def unreported_surfaces(view: WheelsDocument, where: str = "") -> list[str]:
    """Each kind of surface change with fewer findings of its codes than changes."""
    changes = [c for c in view.surface_changes or () if c.status != "unchanged"]
    if not changes:
        return []
    present = [c for c in changes if c.status != "removed"]
    groups = [
        (f"{'/'.join(kinds)} surfaces added or changed", codes,
         sum(1 for c in present if c.kind in kinds))
        for kinds, codes in SURFACE_CODES.items()
    ]  # fmt: skip
    groups.append(
        ("top-level names added", ("W709",),
         sum(1 for c in present if c.kind == "top-level" and c.status == "added"))
    )  # fmt: skip
    groups.append(("surfaces removed", ("W710",), len(changes) - len(present)))
    reported = Counter(f.code for f in view.findings)
    filtered = Counter({f.code: f.count for f in view.filtered})
    problems = []
    for what, codes, count in groups:
        listed = sum(reported[code] for code in codes)
        left_out = sum(filtered[code] for code in codes)
        if count > listed + left_out:
            problems.append(
                f"{where}{count:,} {what} but it lists {listed:,} {'/'.join(codes)} findings "
                f"and filters out {left_out:,}"
            )
    return problems


def shadowing_problems(view: AuditDocument) -> list[str]:
    """Each artifact listing scripts that replace an environment's own command (`bin/python`,
    `bin/pip3`, ...) with fewer W703 findings than them."""
    if not any(artifact.scripts for artifact in view.artifacts):
        return []
    from k3diff.wheel.installed import on_command_path  # only for an audit that has scripts
    from k3diff.wheel.venvnames import shadows_environment

    problems = []
    for index, artifact in enumerate(view.artifacts):
        shadowing = [
            key
            for key, entry in artifact.scripts
            if on_command_path(key) and shadows_environment(key.partition("/")[2], entry)
        ]
        listed = sum(1 for f in artifact.findings if f.code == "W703")
        if len(shadowing) > listed:
            script = "script replaces" if len(shadowing) == 1 else "scripts replace"
            problems.append(
                f"artifacts[{index}] {artifact.path}: {len(shadowing):,} {script} a virtual "
                f"environment's own command ({', '.join(shadowing[:3])}) but it lists "
                f"{listed:,} W703 findings"
            )
    return problems


_PYC_SOURCE = re.compile(r"(\w+)(?:-\w+)* pyc \(magic [0-9a-f]+\), (?:caches|beside) ([^,]+)")
_PTH_EXECUTABLE = re.compile(r"(\d+) executable lines? run at every start")
_WHEEL_DATA = re.compile(r"[^/]+\.data/(?:purelib|platlib)/")


class _Records(NamedTuple):
    """What a document's own records say of the entries and pycs a finding names."""

    statuses: dict[str, str]
    """Each entry's status, by archive path."""
    sizes: dict[str, int | None]
    """Each entry's size in the patch, by archive path; None where its stream is corrupt (pip
    writes what it holds, not the declared size: `wheel.surfaces._bytecode`)."""
    stamped_sizes: Mapping[str, int]
    """Each timestamp pyc's header source size, by surface key."""


def _stale_pyc(change: SurfaceChangeView, records: _Records) -> bool:
    """W716: a changed timestamp pyc in a `__pycache__` caching a source listed identical,
    whose header's source size is not the source's (`wheel.bytecode.stale_header`): a header
    whose size matches is current for an install that stamps the source with its mtime."""
    from k3diff.wheel.bytecode import stale_header

    match = _PYC_SOURCE.match(change.patch or "")
    return (
        change.kind == "bytecode"
        and change.status == "changed"
        and match is not None
        and match.group(1) == "timestamp"
        and ", caches " in (change.patch or "")
        and records.statuses.get(match.group(2)) == "identical"
        and stale_header(records.stamped_sizes.get(change.key), records.sizes.get(match.group(2)))
    )


def _source_changed(change: SurfaceChangeView, records: _Records) -> bool:
    """W712: bytecode whose source (in the wheel) is listed changed or added."""
    match = _PYC_SOURCE.match(change.patch or "")
    return (
        change.kind == "bytecode"
        and match is not None
        and records.statuses.get(match.group(2)) in ("changed", "added")
    )


def _no_new_executable_line(change: SurfaceChangeView, records: _Records) -> bool:
    """W706: a `.pth` with no executable line, or no more of them than the base had (the
    counts cannot show a line replaced; fewer executable lines in the patch than W701 needs)."""
    del records
    patch = _PTH_EXECUTABLE.match(change.patch or "")
    base = _PTH_EXECUTABLE.match(change.base or "")
    if change.kind != "pth" or patch is None:
        return False
    return int(patch.group(1)) == 0 or (
        base is not None and int(patch.group(1)) <= int(base.group(1))
    )


_INFORMATIONAL_SURFACE_CODES: dict[str, tuple[str, Callable[[SurfaceChangeView, _Records], bool]]] = {
    "W716": ("changed timestamp pyc no install makes current beside an identical source", _stale_pyc),
    "W712": ("bytecode whose source changed too", _source_changed),
    "W706": (".pth without a new executable line", _no_new_executable_line),
}  # fmt: skip
"""The informational codes of a surface group whose failing sibling (W705, W701) a forger would
relabel, with what `wheels` writes each for: a finding of one of them must name a surface change
(by its installed key) that the document's own records say it is written for."""


def _surface_key(path: str) -> str:
    """The installed key of a wheel entry's surface: `bin/NAME` for a copied script,
    `site-packages/...` for the rest (a `.data/purelib` prefix off)."""
    top, _, rest = path.partition("/")
    if top.endswith(".data") and rest.startswith("scripts/"):
        return "bin/" + rest.removeprefix("scripts/")
    return "site-packages/" + _WHEEL_DATA.sub("", path, count=1)


def relabel_problems(view: WheelsDocument, where: str = "") -> list[str]:
    """Each informational surface finding no run writes: a failing surface code (W705, W701,
    W708, W703) relabelled as its group's informational sibling (W712, W716, W706, W707)
    keeps `unreported_surfaces`' counts and would pass the change unseen. W707 is written only
    for a generated console/GUI script, never a copied `.data/` one (W708 or W703)."""
    changes = {c.key: c for c in view.surface_changes or () if c.status != "unchanged"}
    records = _Records(
        {entry.path: entry.status for entry in view.entries},
        {entry.path: None if entry.corrupt else entry.patch_size for entry in view.entries},
        view.stamped_sizes,
    )
    problems = []
    for index, finding in enumerate(view.findings):
        label = f"{where}findings[{index}] {finding.label()}"
        if finding.code == "W707" and finding.path.partition("/")[0].endswith(".data"):
            problems.append(f"{label} names a copied .data/ script (no run writes that W707)")
        if finding.code not in _INFORMATIONAL_SURFACE_CODES:
            continue
        what, written_for = _INFORMATIONAL_SURFACE_CODES[finding.code]
        change = changes.get(_surface_key(finding.path))
        if change is None or not written_for(change, records):
            problems.append(f"{label} names no {what} (no run writes that {finding.code})")
    return problems

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

from k3diff.documents.audit import AuditDocument
from k3diff.documents.wheelsview import WheelsDocument

SURFACE_CODES = {
    ("pth",): ("W701", "W706"),
    ("customize",): ("W702",),
    ("script", "data-script"): ("W703", "W707", "W708"),
    ("entry-point",): ("W704",),
    ("bytecode",): ("W705", "W712", "W716"),
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
    from k3diff.wheel.surfaces import shadows_environment  # only for an audit that has scripts

    problems = []
    for index, artifact in enumerate(view.artifacts):
        shadowing = [
            key
            for key, entry in artifact.scripts
            if key.startswith("bin/") and shadows_environment(key.removeprefix("bin/"), entry)
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


_STALE_PYC = re.compile(r"timestamp pyc \(magic [0-9a-f]+\), caches (.+)")
_WHEEL_DATA = re.compile(r"[^/]+\.data/(?:purelib|platlib)/")


def stale_bytecode_problems(view: WheelsDocument, where: str = "") -> list[str]:
    """Each W716 (informational) that names no changed timestamp pyc in `site-packages/...
    /__pycache__/` caching a source the document lists as identical: a W705 relabelled W716
    would pass a changed bytecode unseen."""
    changes = {
        c.key: c.patch
        for c in view.surface_changes or ()
        if c.kind == "bytecode" and c.status == "changed"
    }
    statuses = {entry.path: entry.status for entry in view.entries}
    problems = []
    for index, finding in enumerate(view.findings):
        if finding.code != "W716":
            continue
        summary = changes.get("site-packages/" + _WHEEL_DATA.sub("", finding.path, count=1))
        match = _STALE_PYC.fullmatch(summary or "")
        if match is None or statuses.get(match.group(1)) != "identical":
            problems.append(
                f"{where}findings[{index}] {finding.label()} names no changed timestamp pyc "
                "beside an identical source (no run writes that W716)"
            )
    return problems

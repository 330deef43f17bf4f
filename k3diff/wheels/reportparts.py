"""The parts of a wheel comparison's report built last: each side's summary (`wheel_side`) and
the report with its findings, collected unfiltered and then filtered by the policy
(`with_findings`), so it says what was hidden.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from itertools import repeat
from typing import TYPE_CHECKING, Any

from k3diff.wheel.codes import Code, Finding
from k3diff.wheel.installable import WheelInstall
from k3diff.wheel.installed import NameScreens
from k3diff.wheel.metadata import WheelIdentity, identity_changes
from k3diff.wheel.policy import Policy
from k3diff.wheels.facts import WheelFacts
from k3diff.wheels.findings import collect_findings
from k3diff.wheels.model import EntryResult, WheelReport, WheelSide, filtered_counts
from k3diff.wheels.statedcommit import DirtyBuild, NotACommit, StatedCommit, statements
from k3diff.wheels.surfaces import SurfaceReport
from k3diff.zip.archive import ZipArchive

if TYPE_CHECKING:
    from k3diff.provenance.check import ProvenanceReport
    from k3diff.wheel.sbomdoc import SbomReport


def with_findings(
    *,
    base: WheelSide,
    patch: WheelSide,
    entries: Sequence[EntryResult],
    facts: WheelFacts,
    unsound: list[Finding],
    provenance: ProvenanceReport | None,
    policy: Policy,
    settings: dict[str, Any],
    installs: tuple[WheelInstall, WheelInstall],
    surfaces: SurfaceReport,
    sboms: SbomReport | None,
    patch_names: frozenset[str],
    unverified: int = 0,
    verified: int = 0,
) -> WheelReport:
    """Phase findings: collected unfiltered, then filtered, so the report says what was hidden."""
    changes = identity_changes(base.identity, patch.identity)
    refused = installs[1].unusable_dist_info
    every = collect_findings(
        entries,
        changes,
        base_record=facts.base_record,
        patch_record=facts.patch_record,
        archive_findings=unsound,
        patch_names=patch_names,
    )
    if refused:  # "no RECORD" is not the patch's problem: it has no .dist-info pip would read
        every = [f for f in every if not (f.code is Code.W302 and f.path == "")]
    return WheelReport(
        base=base,
        patch=patch,
        entries=entries,
        metadata_changes=tuple(changes),
        findings=policy.kept(every),
        policy=policy,
        settings=settings,
        provenance=provenance,
        filtered=filtered_counts(every, policy),
        installed=(installs[0].view, installs[1].view),
        surfaces=surfaces,
        sboms=sboms,
        unverified_streams=unverified,
        verified_streams=verified,
    )


_NAME = operator.itemgetter(0)
"""`ZipEntry.name`, as a C-level getter."""


def wheel_side(
    archive: ZipArchive, sha256: str | None, identity: WheelIdentity, screens: NameScreens
) -> WheelSide:
    """`screens`: the archive's names screened (`wheel.namescreens`): no directory entry to
    count in most wheels."""
    names = map(_NAME, archive.entries)
    stated = statements(archive, identity)
    return WheelSide(
        path=str(archive.path),
        sha256=sha256,
        size=archive.file_size,
        identity=identity,
        entry_count=len(archive.entries),
        directory_count=sum(map(str.endswith, names, repeat("/"))) if screens.has_directory else 0,
        stated_commits=tuple(s for s in stated if isinstance(s, StatedCommit)),
        not_commits=tuple(s for s in stated if isinstance(s, NotACommit)),
        dirty_builds=tuple(s for s in stated if isinstance(s, DirtyBuild)),
    )

"""The checks of `compare_wheels` that read the archives but no entry's result: each wheel's
execution surfaces, the SBOMs, the patch's METADATA fields and its abi3 promise.

They run on the main thread while the pool proves the entries (`compare._compare_entries`),
where the main thread would otherwise only wait: on a wheel of twelve thousand entries that
is tens of milliseconds of work taken off the time after the last comparison.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from k3diff.wheel.codes import Code, Finding
from k3diff.wheel.coremeta import metadata_file_findings
from k3diff.wheel.installable import WheelInstall
from k3diff.wheel.metadata import WheelIdentity
from k3diff.wheel.sbom import diff_components, read_sboms, sbom_findings
from k3diff.wheel.surfacekinds import Surface
from k3diff.wheel.surfaces import surface_scan
from k3diff.wheels.abi3check import abi3_pair_findings
from k3diff.zip.archive import ZipArchive

if TYPE_CHECKING:  # built only for a wheel that ships an SBOM
    from k3diff.wheel.sbomdoc import SbomReport


class ArchiveChecks(NamedTuple):
    """What `check_archives` found."""

    scans: tuple[tuple[Surface, ...], tuple[Surface, ...]]
    """Each wheel's execution surfaces (base, patch), for `diff_surfaces` once the entries'
    results are in."""
    sboms: SbomReport | None
    """Both sides' SBOMs and their changes; None when neither wheel has one."""
    findings: list[Finding]
    """W624 (the patch's METADATA fields), W625/W626 (abi3), W714/W715 (SBOMs), in that
    order."""


def check_archives(
    base: ZipArchive,
    patch: ZipArchive,
    installs: tuple[WheelInstall, WheelInstall],
    identities: tuple[WheelIdentity, WheelIdentity],
    *,
    explain: bool,
) -> ArchiveChecks:
    """Surfaces, SBOMs, METADATA fields and abi3 of both wheels, in the order `compare_wheels`
    reports them."""
    first, said = surface_scan(base, installs[0])
    # The patch's files that are the base's objects (`wheel.installedbeside`) are not searched.
    scans = (first, surface_scan(patch, installs[1], beside=said)[0])
    sboms = _sboms(base, patch, installs)
    findings: list[Finding] = []
    if not installs[1].unusable_dist_info:
        metadata = f"{installs[1].dist_info}/METADATA"
        findings += metadata_file_findings(patch, metadata, Code.W624, "patch")
    declared = (identities[0].tags, identities[1].tags)
    findings += abi3_pair_findings(base, patch, declared, explain=explain)
    if sboms is not None:
        findings += sbom_findings(sboms.base, sboms.patch, sboms.changes)
    return ArchiveChecks(scans, sboms, findings)


def _sboms(
    base: ZipArchive, patch: ZipArchive, installs: tuple[WheelInstall, WheelInstall]
) -> SbomReport | None:
    """Both sides' PEP 770 SBOMs and their component changes; None when neither has one."""
    old = read_sboms(base, installs[0].dist_info)
    new = read_sboms(patch, installs[1].dist_info)
    if not old and not new:
        return None
    from k3diff.wheel.sbomdoc import SbomReport  # most wheels ship no SBOM

    return SbomReport(old, new, diff_components(old, new))

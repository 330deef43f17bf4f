"""What `k3diff audit` finds: per-artifact results and the manifest check.

Findings are the one finding model of `k3diff.wheel.codes`: audit-only findings have A codes
(RECORD and manifest problems); archive soundness findings reuse the W6xx codes of `k3diff
wheels`, so the same trap has the same code in both commands. Which fail is `AUDIT_POLICY`'s.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING

from k3diff.exitcodes import ExitCode
from k3diff.wheel.codes import Code, Finding, Severity
from k3diff.wheel.policy import AUDIT_POLICY, Policy

if TYPE_CHECKING:
    from k3diff.audit.platform import NativeNeeds
    from k3diff.wheel.surfacekinds import Surface
    from k3diff.wheel.waivers import WaiverOutcome  # loaded only with --waivers


class ArtifactKind(StrEnum):
    """How an artifact was audited."""

    WHEEL = "wheel"
    """RECORD, archive soundness and filename checked."""
    SDIST = "sdist"
    """A `.tar.gz`: gzip stream, tar member headers, PKG-INFO and file name checked."""
    FILE = "file"
    """Hashed only (a source archive PyPI does not take is named, A136)."""


@dataclass(frozen=True)
class ArtifactAudit:
    """Everything audited about one artifact."""

    path: str
    """The path as given on the command line."""
    sha256: str
    """SHA-256 of the whole file, hex."""
    size: int
    """File size in bytes."""
    kind: ArtifactKind
    """wheel, sdist or file."""
    entry_count: int
    """Entries in the central directory, or an sdist's tar members read (0 for plain files and
    unreadable archives), directory entries included."""
    directory_count: int
    """How many of those entries are directories (names ending in '/')."""
    findings: tuple[Finding, ...]
    """Every problem found, in a stable order (code, path, detail)."""
    surfaces: tuple[Surface, ...] = ()
    """Every execution surface of a wheel (`.pth`, customize modules, entry points, scripts,
    bytecode, top-level names); empty for other files."""
    natives: tuple[NativeNeeds, ...] = ()
    """Every ELF entry with the glibc/libstdc++ versions, DT_NEEDED and RPATH/RUNPATH it needs."""


@dataclass(frozen=True)
class ManifestMismatch:
    """An artifact whose SHA-256 differs from the manifest's."""

    name: str
    """Name as the manifest writes it."""
    expected: str
    """SHA-256 in the manifest."""
    actual: str
    """SHA-256 of the audited file."""
    artifact: str
    """The audited artifact as given on the command line (may differ from `name`: an artifact
    is matched to a manifest line by its file name when its full name is not listed)."""


@dataclass(frozen=True)
class ManifestCheck:
    """The audited artifacts against a pinned manifest."""

    path: str
    """The manifest file as given."""
    matched: tuple[str, ...]
    """Names whose hash matches."""
    mismatched: tuple[ManifestMismatch, ...]
    """Names whose hash differs."""
    missing: tuple[str, ...]
    """Names in the manifest that were not audited."""
    extra: tuple[str, ...]
    """Audited artifacts the manifest does not name."""
    ignore_missing: bool = False
    """`--ignore-missing`: names the run did not audit are listed, not findings (as
    `sha256sum --ignore-missing`); a run that verified none of them still fails."""
    sha256: str | None = None
    """SHA-256 of the manifest's bytes as read: `report` tells a manifest changed since."""

    def findings(self) -> tuple[Finding, ...]:
        """A201-A203 for every mismatched, missing and extra name (missing ones only without
        `--ignore-missing`, or when nothing at all was verified)."""
        found = [
            Finding(
                Code.A201,
                m.artifact,
                f"{self.path} lists {m.name} as {m.expected}; {m.artifact} hashes to {m.actual}",
            )
            for m in self.mismatched
        ]
        if not self.ignore_missing:
            found += [Finding(Code.A202, name, f"listed in {self.path}") for name in self.missing]
        elif not self.matched and not self.mismatched:
            found.append(
                Finding(
                    Code.A202,
                    "",
                    f"no audited artifact is listed in {self.path}: nothing was verified "
                    "(--ignore-missing)",
                )
            )
        found += [Finding(Code.A203, name, f"not listed in {self.path}") for name in self.extra]
        return tuple(found)


@dataclass(frozen=True)
class AuditReport:
    """The result of one `k3diff audit` run."""

    artifacts: tuple[ArtifactAudit, ...]
    """One per artifact, in command-line order."""
    manifest: ManifestCheck | None
    """The manifest check (`--manifest`), or None."""
    written_manifest: str | None
    """Where `--write-manifest` wrote the artifacts' hashes, or None."""
    policy: Policy = AUDIT_POLICY
    """Which findings fail the run: audit's fixed rules."""

    def all_findings(self) -> tuple[Finding, ...]:
        """Every artifact's findings and the manifest's."""
        found = [f for artifact in self.artifacts for f in artifact.findings]
        if self.manifest is not None:
            found += self.manifest.findings()
        return tuple(found)

    def located_findings(self) -> tuple[tuple[Finding, str], ...]:
        """Every finding with the artifact it is about: its own artifact's path, or for a
        manifest finding the name the manifest lists (its `path`)."""
        found = [(f, a.path) for a in self.artifacts for f in a.findings]
        if self.manifest is not None:
            found += [(f, f.path) for f in self.manifest.findings()]
        return tuple(found)

    def severity(self, finding: Finding, artifact: str) -> Severity:
        """error when `finding`, about `artifact`, fails the audit (and no waiver covers it),
        else info."""
        return self.policy.severity_of(finding, (artifact,))

    def waiver_outcome(self) -> WaiverOutcome | None:
        """What `--waivers` did in this run (None without a waiver file)."""
        if self.policy.waivers is None:
            return None
        from k3diff.wheel.waivers import outcome

        return outcome(self.policy.waivers, ((f, a, (a,)) for f, a in self.located_findings()))

    @property
    def errors(self) -> int:
        """Findings of error severity."""
        return sum(
            self.severity(finding, artifact) is Severity.ERROR
            for finding, artifact in self.located_findings()
        )

    @property
    def exit_code(self) -> ExitCode:
        """1 when any finding is an error, else 0."""
        return ExitCode.FINDINGS if self.errors else ExitCode.OK

"""What `k3diff audit` finds: codes, findings, per-artifact results and the manifest check.

Audit-only findings have A-codes (RECORD and manifest problems); archive soundness findings reuse
the W6xx codes of `k3diff wheels`, so the same trap has the same code in both commands.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum, StrEnum
from typing import TYPE_CHECKING

from k3diff.exitcodes import ExitCode
from k3diff.wheel.codes import FAILING_BY_DEFAULT, Code

if TYPE_CHECKING:
    from k3diff.audit.platform import NativeNeeds
    from k3diff.wheel.surfaces import Surface


class AuditCode(Enum):
    """Stable audit-only codes; the value is the message. Never renumbered."""

    A001 = "not a readable zip archive"
    A101 = "wheel has no RECORD"
    A102 = "malformed RECORD row"
    A103 = "entry content does not match its RECORD hash"
    A104 = "entry size does not match its RECORD size"
    A105 = "entry not listed in RECORD"
    A106 = "RECORD lists a file the archive does not hold"
    A107 = "RECORD row without a hash"
    A108 = "RECORD uses a weak hash algorithm (md5/sha1)"
    A109 = "RECORD uses an unknown hash algorithm"
    A110 = "RECORD does not list itself without a hash"
    A111 = "RECORD signature file present (not verified; no longer part of the wheel spec)"
    A112 = "RECORD lists a path more than once"
    A113 = "wheel has no .dist-info directory with METADATA"
    A114 = "entry uses a compression method k3diff does not read"
    A115 = "native needs a newer glibc than the wheel's manylinux/musllinux tag promises"
    A116 = "native's loader tables could not be read: its platform needs are unchecked"
    A120 = "exec bits pip ignores (a mode without a file type)"
    A121 = "ELF executable that pip installs not executable"
    A201 = "artifact SHA-256 does not match the manifest"
    A202 = "manifest names an artifact that was not audited"
    A203 = "artifact not in the manifest"


WARNING_CODES: frozenset[AuditCode] = frozenset({AuditCode.A116, AuditCode.A120, AuditCode.A121})
"""Audit codes reported without failing the run: an ELF whose platform needs could not be read
(A116), and entry permissions that install, but perhaps not as meant (A120, A121: k3diff cannot
know whether a file should be executable). A signature file (A111) fails, because k3diff cannot
verify it and its content is the one file RECORD never vouches for."""


class Severity(StrEnum):
    """error fails the run (exit 1); warning is reported only."""

    ERROR = "error"
    WARNING = "warning"


AnyCode = AuditCode | Code


def severity_of(code: AnyCode) -> Severity:
    """The fixed severity of a code in `k3diff audit`."""
    if isinstance(code, AuditCode):
        return Severity.WARNING if code in WARNING_CODES else Severity.ERROR
    return Severity.ERROR if code in FAILING_BY_DEFAULT else Severity.WARNING


@dataclass(frozen=True)
class AuditFinding:
    """One problem with one artifact (or one of its entries)."""

    code: AnyCode
    """Stable code: A-codes for audit-only findings, W6xx for archive soundness."""
    entry: str
    """Archive path the finding is about ('' for the artifact as a whole)."""
    detail: str
    """What exactly was observed."""

    @property
    def severity(self) -> Severity:
        """error or warning, fixed per code."""
        return severity_of(self.code)


class ArtifactKind(StrEnum):
    """How an artifact was audited."""

    WHEEL = "wheel"
    """RECORD, archive soundness and filename checked."""
    FILE = "file"
    """Hashed only."""


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
    """wheel or file."""
    entry_count: int
    """Entries in the central directory (0 for plain files and unreadable archives), directory
    entries included."""
    directory_count: int
    """How many of those entries are directories (names ending in '/')."""
    findings: tuple[AuditFinding, ...]
    """Every problem found, in a stable order (code, entry, detail)."""
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

    def findings(self) -> tuple[AuditFinding, ...]:
        """A201-A203 for every mismatched, missing and extra name (missing ones only without
        `--ignore-missing`, or when nothing at all was verified)."""
        found = [
            AuditFinding(
                AuditCode.A201,
                m.artifact,
                f"{self.path} lists {m.name} as {m.expected}; {m.artifact} hashes to {m.actual}",
            )
            for m in self.mismatched
        ]
        if not self.ignore_missing:
            found += [
                AuditFinding(AuditCode.A202, name, f"listed in {self.path}")
                for name in self.missing
            ]
        elif not self.matched and not self.mismatched:
            found.append(
                AuditFinding(
                    AuditCode.A202,
                    "",
                    f"no audited artifact is listed in {self.path}: nothing was verified "
                    "(--ignore-missing)",
                )
            )
        found += [
            AuditFinding(AuditCode.A203, name, f"not listed in {self.path}") for name in self.extra
        ]
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

    def all_findings(self) -> tuple[AuditFinding, ...]:
        """Every artifact's findings and the manifest's."""
        found = [f for artifact in self.artifacts for f in artifact.findings]
        if self.manifest is not None:
            found += self.manifest.findings()
        return tuple(found)

    @property
    def errors(self) -> int:
        """Findings of error severity."""
        return sum(1 for f in self.all_findings() if f.severity is Severity.ERROR)

    @property
    def exit_code(self) -> ExitCode:
        """1 when any finding is an error, else 0."""
        return ExitCode.FINDINGS if self.errors else ExitCode.OK

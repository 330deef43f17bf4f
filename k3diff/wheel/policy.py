"""Which findings a run reports and which of them fail it: `Policy` (the options of `wheels`),
and `AUDIT_POLICY` (audit's fixed rules). Apart from `wheel.codes` so that `Waiver`/`WaiverSet`
can live with their reader (`wheel.waivers`, loaded only with `--waivers`) without a cycle:
this module names them in annotations only."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from k3diff.wheel.codes import (
    FAILING_BY_DEFAULT,
    NATIVE_CODES,
    NATIVE_SURFACE_CODES,
    Code,
    Finding,
    Severity,
)

if TYPE_CHECKING:  # built by `wheel.waivers.load_waivers`, the one place that needs the classes
    from k3diff.wheel.waivers import Waiver, WaiverSet


@dataclass(frozen=True)
class Policy:
    """Which findings are reported and which of them fail the run."""

    allow_native_changes: bool = False
    """Relax the default rule that any native change, removal or addition fails: W101-W103,
    and a W708/W628 about native code (`NATIVE_SURFACE_CODES`, `Finding.native`)."""
    allow_bytecode: bool = False
    """Relax the default rule that bytecode checked with `--source` fails as unverifiable."""
    select: frozenset[Code] | None = None
    """Report only these codes (None: all)."""
    ignore: frozenset[Code] = frozenset()
    """Never report these codes."""
    waivers: WaiverSet | None = None
    """`--waivers FILE`: findings reviewed and accepted, by code, path and artifact."""

    def reports(self, code: Code) -> bool:
        """True when a finding with this code is kept."""
        if code in self.ignore:
            return False
        return self.select is None or code in self.select

    def fails(self, code: Code, native: bool = False) -> bool:
        """True when a kept finding with this code (about native code: `native`) fails the
        run."""
        return code in FAILING_BY_DEFAULT and self.relaxed_by(code, native) is None

    def relaxed_by(self, code: Code, native: bool = False) -> str | None:
        """The option that keeps this code, which fails by default, from failing the run
        (`--allow-native-changes`, `--allow-bytecode`); None when none does. `native`: the
        finding is about native code (`Finding.native`), which the option covers for the
        execution-surface codes of `NATIVE_SURFACE_CODES` too."""
        if code not in FAILING_BY_DEFAULT:
            return None
        if self.allow_native_changes and (
            code in NATIVE_CODES or (native and code in NATIVE_SURFACE_CODES)
        ):
            return "--allow-native-changes"
        if self.allow_bytecode and code is Code.W405:
            return "--allow-bytecode"
        return None

    def severity(self, code: Code, native: bool = False) -> Severity:
        """error when a kept finding with this code (about native code: `native`) fails the
        run, else info."""
        return Severity.ERROR if self.fails(code, native) else Severity.INFO

    def waiver(self, finding: Finding, artifacts: Iterable[str] = ()) -> Waiver | None:
        """The unexpired waiver covering `finding` in the artifact(s) named, or None."""
        return None if self.waivers is None else self.waivers.active_for(finding, artifacts)

    def severity_of(self, finding: Finding, artifacts: Iterable[str] = ()) -> Severity:
        """error when `finding`, found in `artifacts`, fails the run: its code fails and no
        waiver covers it; else info."""
        names = tuple(artifacts)
        if self.fails(finding.code, finding.native) and self.waiver(finding, names) is None:
            return Severity.ERROR
        return Severity.INFO

    def kept(self, findings: Iterable[Finding]) -> tuple[Finding, ...]:
        """The findings this policy reports, in their order."""
        return tuple(finding for finding in findings if self.reports(finding.code))

    def failing(
        self, findings: Iterable[Finding], artifacts: Iterable[str] = ()
    ) -> tuple[Finding, ...]:
        """The findings among `findings` (found in `artifacts`) that fail the run under this
        policy: reported, of a failing code, and not waived."""
        names = tuple(artifacts)
        return tuple(
            f
            for f in findings
            if self.reports(f.code) and self.severity_of(f, names) is Severity.ERROR
        )


AUDIT_POLICY = Policy()
"""`k3diff audit`'s fixed rules: every finding reported, the default failing table (no
`--select`, `--ignore` or `--allow-*`: an audit is the same for everyone)."""

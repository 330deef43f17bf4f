"""One view of a finding run for CI formats (SARIF, JUnit, GitHub annotations): the cases a
run checked (a wheel pair, an artifact, the manifest, a log side), each with its results.

Built from the same result values every other renderer reads, with the verdict taken from the
result (`exit_code`), never recomputed here: where a run fails for a reason no single finding
carries (an unpaired wheel, a log line past the message cap), the case says so as a `verdict`
result, so no CI format can read as a pass while the run exits 1.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from pathlib import Path, PurePath
from typing import TYPE_CHECKING

from k3diff.exitcodes import ExitCode
from k3diff.logs.model import WHOLE_LOG, LogFinding, LogsReport, unread_phrase
from k3diff.logs.model import Severity as LogSeverity
from k3diff.wheel.codes import FAILING_BY_DEFAULT, Code, Finding, Severity
from k3diff.wheel.policy import Policy

if TYPE_CHECKING:  # the results are read, never built, here: their modules stay unimported
    from k3diff.audit.model import AuditReport
    from k3diff.wheel.waivers import Waiver
    from k3diff.wheels.entry import EntryResult
    from k3diff.wheels.model import WheelReport
    from k3diff.wheels.releaseset import WheelSetReport

VERDICT_RULE = "verdict"
"""The rule of a failure no single finding carries."""


@dataclass(frozen=True)
class CiRule:
    """One rule: a finding code, a log rule, or `verdict`."""

    id: str
    """W/A code, log rule name, or `verdict`."""
    description: str
    """One line: what a finding of this rule means."""
    fails_by_default: bool
    """True when the default policy fails on it (SARIF's default level `error`)."""


@dataclass(frozen=True)
class CiResult:
    """One finding as CI formats show it."""

    rule: str
    """The rule id."""
    title: str
    """The rule's generic message."""
    detail: str
    """What exactly was observed."""
    artifact: str
    """The file the finding is in, as the user gave it."""
    member: str
    """The archive path inside the artifact ('' for the artifact as a whole or a log file)."""
    line: int | None
    """The 1-based line (log findings), else None."""
    failing: bool
    """True when it fails the run (after waivers)."""
    waiver: Waiver | None = None
    """The waiver that covers it, when one does."""
    identity: str = ""
    """What stays the same across runs (used for the fingerprint), besides rule and member."""
    content: str = ""
    """The digests of the content the finding is about (both sides' SHA-256 and size of a
    compared entry, filled in for SARIF only; the audited file's SHA-256), '' where none: part
    of the fingerprint, so a finding about other bytes is a new finding, never one a reviewer
    already dismissed (CRC-32 and size alone an attacker can keep while changing the bytes)."""


@dataclass(frozen=True)
class CiCase:
    """One thing the run checked, as one JUnit testcase."""

    name: str
    """`base.whl -> patch.whl`, an artifact's path, `manifest FILE`, `patch logs`."""
    artifact: str
    """The file it is about."""
    results: tuple[CiResult, ...]
    """Its findings (failing, informational and waived)."""

    @property
    def failing(self) -> tuple[CiResult, ...]:
        """The results that fail the run."""
        return tuple(r for r in self.results if r.failing)


@dataclass(frozen=True)
class CiRun:
    """A whole run."""

    command: str
    """`wheels`, `audit` or `logs`."""
    cases: tuple[CiCase, ...]
    """Everything checked, in report order."""
    rules: tuple[CiRule, ...]
    """The rules the results refer to, each once."""
    exit_code: ExitCode
    """The run's exit code, from its result."""
    verdict: str
    """The run's one-line verdict, from its result."""


def _code_rule(code: Code) -> CiRule:
    return CiRule(code.name, code.message, code in FAILING_BY_DEFAULT)


def _wheel_identity(name: str) -> str:
    """A wheel file's name without its version (`demo-1.0-py3-none-any.whl` →
    `demo-py3-none-any`), so a finding keeps its fingerprint across releases."""
    stem = PurePath(name).name
    if not stem.endswith(".whl"):
        return stem
    parts = stem[: -len(".whl")].split("-")
    if len(parts) < 5:
        return stem
    return "-".join([parts[0], *parts[-3:]])


def _member_identity(path: str) -> str:
    """An archive path without the version of its `.dist-info` / `.data` directory."""
    head, sep, rest = path.partition("/")
    for suffix in (".dist-info", ".data"):
        if sep and head.endswith(suffix):
            return f"{head[: -len(suffix)].split('-')[0]}{suffix}/{rest}"
    return path


def _contents(report: WheelReport) -> dict[str, str]:
    """Per archive path a finding of `report` names, the content its entry compared: each
    side's SHA-256 and size (`-` where the side has none). The patch's SHA-256 is the run's
    where it computed one; every other is hashed here (`wheels.contenthash`), for these few
    entries only (a raw-identical run is read only where a finding names one of its paths)."""
    wanted = {f.path for f in report.findings if f.path}
    named: dict[str, EntryResult] = {}
    if not wanted:
        return {}
    from k3diff.wheels.contenthash import entry_digests, sha256_hex
    from k3diff.wheels.entryruns import EntryResults  # loaded by every wheels run already

    entries = report.entries
    if isinstance(entries, EntryResults) and entries.columnar:
        singles: Iterable[EntryResult] = (result for _, result in entries.singles)
        for run in entries.runs:
            for number, name in enumerate(run.names()):
                if name in wanted:
                    named[name] = run.result(number)
    else:
        singles = entries
    for entry in singles:
        if entry.path in wanted:
            named[entry.path] = entry
    known = {e.path: sha256_hex(e.patch_digest) for e in named.values()}
    base = entry_digests(report.base.path, {e.base_path for e in named.values() if e.base_path})
    patch = entry_digests(
        report.patch.path,
        {e.patch_path for e in named.values() if e.patch_path and known[e.path] is None},
    )
    found = {}
    for path, entry in named.items():
        sides = []
        for side, member, size, digests in (
            ("base", entry.base_path, entry.base_size, base),
            ("patch", entry.patch_path, entry.patch_size, patch),
        ):
            if member is None:
                sides.append(f"{side} -")
                continue
            known_hex = known[path] if side == "patch" else None
            digest = f"sha256:{known_hex}" if known_hex else digests.get(member, "unread")
            sides.append(f"{side} {digest} size:{size}")
        found[path] = " ".join(sides)
    return found


def _finding(
    finding: Finding,
    policy: Policy,
    artifact: str,
    names: tuple[str, ...],
    content: str = "",
) -> CiResult:
    return CiResult(
        rule=finding.code.name,
        title=finding.message,
        detail=finding.detail,
        artifact=artifact,
        member=finding.path,
        line=None,
        failing=policy.reports(finding.code)
        and policy.severity_of(finding, names) is Severity.ERROR,
        waiver=policy.waiver(finding, names),
        identity=_wheel_identity(artifact) + "\0" + _member_identity(finding.path),
        content=content,
    )


def _verdict(case_name: str, artifact: str, reasons: list[str]) -> CiResult:
    return CiResult(
        VERDICT_RULE,
        "the run fails its policy",
        "; ".join(reasons),
        artifact,
        "",
        None,
        True,
        identity=case_name,
    )


def _rules(cases: list[CiCase], extra: dict[str, CiRule]) -> tuple[CiRule, ...]:
    seen: dict[str, CiRule] = {}
    for case in cases:
        for result in case.results:
            if result.rule in seen:
                continue
            if result.rule in extra:
                seen[result.rule] = extra[result.rule]
            elif result.rule == VERDICT_RULE:
                seen[result.rule] = CiRule(VERDICT_RULE, "the run fails its policy", True)
            elif result.rule in Code.__members__:
                seen[result.rule] = _code_rule(Code[result.rule])
            else:
                seen[result.rule] = CiRule(result.rule, result.title, result.failing)
    return tuple(seen[key] for key in sorted(seen))


def _wheels_content(report: WheelReport) -> str:
    """What a finding about a wheel as a whole (no archive path: bytes appended after the end
    record, a filename its metadata contradicts, a metadata note) is about: both files'
    SHA-256, the run's where it computed them (newuser64c: such a finding kept one fingerprint
    whatever bytes were appended, so a dismissed alert stayed dismissed for another payload)."""
    from k3diff.errors import InputError
    from k3diff.filehash import file_sha256

    sides = []
    for side in (report.base, report.patch):
        digest = side.sha256
        if digest is None:
            try:
                digest = file_sha256(Path(side.path))[0]
            except InputError as exc:
                digest = f"unread ({exc})"
        sides.append(f"sha256:{digest}")
    return " ".join(sides)


def _pair_case(report: WheelReport, fingerprinted: bool) -> CiCase:
    names = report.artifacts
    contents = _contents(report) if fingerprinted else {}
    whole = (
        _wheels_content(report)
        if fingerprinted and any(not f.path for f in report.findings)
        else ""
    )
    results = [
        _finding(
            f,
            report.policy,
            report.patch.path,
            names,
            # A finding about the whole wheel is also told apart by what it says (two notes of
            # one run: `version: 1 -> 2`, `requires_python: ...`).
            contents.get(f.path, "") if f.path else f"{whole} {f.detail}" if whole else "",
        )
        for f in report.findings
    ]
    if report.exit_code != ExitCode.OK and not any(r.failing for r in results):
        results.append(_verdict(report.patch.path, report.patch.path, ["the pair fails"]))
    return CiCase(f"{report.base.path} -> {report.patch.path}", report.patch.path, tuple(results))


def from_wheels(report: WheelReport, verdict: str, fingerprinted: bool = False) -> CiRun:
    """A two-wheel comparison: one case. `fingerprinted` (SARIF) hashes the content of the
    entries findings name, for their fingerprints."""
    cases = [_pair_case(report, fingerprinted)]
    return CiRun("wheels", tuple(cases), _rules(cases, {}), report.exit_code, verdict)


def from_wheelset(report: WheelSetReport, verdict: str, fingerprinted: bool = False) -> CiRun:
    """A release set: a case per pair, and one per wheel without a counterpart."""
    cases = [_pair_case(pair.report, fingerprinted) for pair in report.pairs]
    for side, wheels in (("base", report.only_base), ("patch", report.only_patch)):
        for wheel in wheels:
            path = str(wheel.path)
            reason = f"only in the {side} release: no counterpart to compare with"
            result = _verdict(path, path, [reason])
            if report.allow_unpaired:
                result = replace(result, failing=False)
            cases.append(CiCase(f"unpaired {side} {path}", path, (result,)))
    if report.exit_code != ExitCode.OK and not any(c.failing for c in cases):
        cases.append(CiCase("release set", "", (_verdict("set", "", list(report.failures)),)))
    return CiRun("wheels", tuple(cases), _rules(cases, {}), report.exit_code, verdict)


def from_audit(report: AuditReport, verdict: str) -> CiRun:
    """An audit: a case per artifact, and one for the manifest."""
    cases = [
        CiCase(
            a.path,
            a.path,
            tuple(
                _finding(f, report.policy, a.path, (a.path,), f"sha256:{a.sha256}")
                for f in a.findings
            ),
        )
        for a in report.artifacts
    ]
    if report.manifest is not None:
        found = report.manifest.findings()
        results = []
        for f in found:
            result = _finding(f, report.policy, report.manifest.path, (f.path,))
            results.append(replace(result, member=f.path))
        cases.append(
            CiCase(f"manifest {report.manifest.path}", report.manifest.path, tuple(results))
        )
    if report.exit_code != ExitCode.OK and not any(c.failing for c in cases):
        cases.append(CiCase("audit", "", (_verdict("audit", "", ["the audit fails"]),)))
    return CiRun("audit", tuple(cases), _rules(cases, {}), report.exit_code, verdict)


def _log_result(finding: LogFinding, side: str, failing: bool) -> CiResult:
    where = finding.examples[0] if finding.examples else None
    return CiResult(
        rule=finding.rule,
        title=f"{finding.rule} ({finding.severity.value}) on the {side} side",
        detail=f"{finding.message} (×{finding.count})",
        artifact=where.file if where is not None else "",
        member="",
        # A finding about the whole log (a restart) has no line to annotate.
        line=where.line if where is not None and where.line != WHOLE_LOG else None,
        failing=failing,
        identity=f"{side}\0{finding.message}",
    )


def from_logs(report: LogsReport, verdict: str) -> CiRun:
    """A log comparison: a case per side; the patch's new error findings fail (any error
    finding under `--strict`)."""
    new = {(f.rule, f.message) for f in report.new_on_patch}
    cases: list[CiCase] = []
    for side, scan in (("base", report.base), ("patch", report.patch)):
        results = []
        for finding in scan.findings:
            error = finding.severity is LogSeverity.ERROR
            is_new = side == "patch" and (finding.rule, finding.message) in new
            results.append(_log_result(finding, side, error and (report.strict or is_new)))
        if scan.skipped:  # logs64: not read, so it fails, beside any finding
            shown = ", ".join(scan.paths)
            results.append(_verdict(f"{side} logs", shown, [unread_phrase(side, scan.skipped)]))
        cases.append(CiCase(f"{side} logs", ", ".join(scan.paths), tuple(results)))
    if report.exit_code != ExitCode.OK and not any(c.failing for c in cases):
        cases.append(CiCase("logs", "", (_verdict("logs", "", list(report.failures)),)))
    rules = {
        r.name: CiRule(r.name, f"log rule {r.name}: {r.pattern}", r.severity is LogSeverity.ERROR)
        for r in report.rules
    }
    return CiRun("logs", tuple(cases), _rules(cases, rules), report.exit_code, verdict)

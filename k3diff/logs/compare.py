"""Both sides scanned, their findings matched, and the verdict."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from k3diff.errors import InputError, UsageError
from k3diff.logs.caps import MAX_INFLATED_BYTES, MAX_SECONDS, ScanBudget
from k3diff.logs.model import (
    LogFinding,
    LogsReport,
    RuleSummary,
    Settings,
    Severity,
    SideScan,
    unread_phrase,
)
from k3diff.logs.rules import Rule, active_rules
from k3diff.logs.scan import list_side, scan_side, total_size


@dataclass(frozen=True)
class LogsOptions:
    """What `k3diff logs` was asked to do."""

    rules: tuple[Rule, ...] = ()
    """User rules (`--rule`, `--warn-rule`), tried before the built-in ones."""
    ignored: tuple[str, ...] = ()
    """Rule names left out (`--ignore-rule`)."""
    strict: bool = False
    """Fail on any error finding on either side, not only on those new on the patch."""
    progress: Callable[[int, int], None] | None = field(default=None, compare=False)
    """Called with (bytes read, bytes in all) while reading."""
    max_inflated: int = MAX_INFLATED_BYTES
    """`--max-inflated-bytes`: bytes all `.gz` logs of both sides may inflate to."""
    max_seconds: float = MAX_SECONDS
    """`--max-seconds`: wall time the scan of both sides may take."""


def _keys(side: SideScan) -> set[tuple[str, str]]:
    return {(f.rule, f.message) for f in side.findings}


def _refuse_empty(side: SideScan, name: str) -> None:
    """Nothing read can never be a clean log: a side with no line is an error (exit 2)."""
    if side.lines == 0:
        shown = ", ".join(map(str, side.skipped[:3]))
        more = f" and {len(side.skipped) - 3} more" if len(side.skipped) > 3 else ""
        why = f"skipped {shown}{more}" if side.skipped else "empty file"
        raise InputError(
            f"{', '.join(side.paths)}: no log line to scan on the {name} side "
            f"({why}): a clean result would claim evidence that is not there"
        )


def _refuse_shared(base: tuple[Path, ...], patch: tuple[Path, ...]) -> None:
    """A file or directory given on both sides (`logs p p`, `logs d d/server.log`, a link or
    hard link to it) is an error (exit 2): every error of the patch would also be the base's,
    so none could be new (review64: `logs p p` on a crashed server passed, "the patch's 1 error
    match also occurs on the base", and report's runtime-logs row with it)."""
    for given in patch:
        one = given.resolve()
        for named in base:
            other = named.resolve()
            if one == other or other in one.parents or one in other.parents or _same(one, other):
                raise UsageError(
                    f"{given}: given as the patch's logs and, as {named}, the base's: the "
                    "patch's errors would be excused by themselves; give each side its own "
                    "server's logs"
                )


def _same(one: Path, other: Path) -> bool:
    """One file under two names (a hard link)."""
    try:
        return os.path.samefile(one, other)
    except OSError:
        return False


def scan_logs(base: tuple[Path, ...], patch: tuple[Path, ...], options: LogsOptions) -> LogsReport:
    """Scan both sides and compare their findings."""
    rules = active_rules(options.rules, options.ignored)
    _refuse_shared(base, patch)
    base_listed, patch_listed = list_side(base), list_side(patch)
    total = total_size(base_listed) + total_size(patch_listed)
    report = options.progress or (lambda done, all_: None)
    budget = ScanBudget(options.max_inflated, options.max_seconds)
    base_scan = scan_side(base, base_listed, rules, lambda done: report(done, total), budget)
    offset = sum(f.size for f in base_scan.files)
    patch_scan = scan_side(
        patch, patch_listed, rules, lambda done: report(offset + done, total), budget
    )
    _refuse_empty(base_scan, "base")
    _refuse_empty(patch_scan, "patch")
    base_keys, patch_keys = _keys(base_scan), _keys(patch_scan)
    new = tuple(f for f in patch_scan.findings if (f.rule, f.message) not in base_keys)
    gone = tuple(f for f in base_scan.findings if (f.rule, f.message) not in patch_keys)
    summaries = tuple(
        RuleSummary(
            name=r.name,
            severity=r.severity,
            builtin=r.builtin,
            pattern=r.pattern.pattern,
            base=base_scan.count(r.name),
            patch=patch_scan.count(r.name),
            new_on_patch=sum(1 for f in new if f.rule == r.name),
        )
        for r in rules
    )
    return LogsReport(
        base=base_scan,
        patch=patch_scan,
        rules=summaries,
        new_on_patch=new,
        gone_on_patch=gone,
        strict=options.strict,
        failures=_failures(base_scan, patch_scan, new, options.strict, _error_rules(summaries)),
        settings=Settings(
            rules=tuple((r.name, r.severity, r.pattern.pattern) for r in options.rules),
            ignored=options.ignored,
            strict=options.strict,
            max_inflated=options.max_inflated,
            max_seconds=options.max_seconds,
        ),
    )


def _error_rules(rules: tuple[RuleSummary, ...]) -> set[str]:
    return {r.name for r in rules if r.severity is Severity.ERROR}


def renamed(report: LogsReport, rename: Callable[[str, str], str]) -> LogsReport:
    """`report` with each side's entries not read renamed (`rename(side, entry)`) and the
    failures that name them said again: `report` running `logs` again on a side's copy
    elsewhere names them as the document does."""
    base, patch = (
        dataclasses.replace(
            scan,
            skipped=tuple(
                dataclasses.replace(s, entry=rename(side, s.entry)) for s in scan.skipped
            ),
        )
        for side, scan in (("base", report.base), ("patch", report.patch))
    )
    failures = _failures(
        base, patch, report.new_on_patch, report.strict, _error_rules(report.rules)
    )
    return dataclasses.replace(report, base=base, patch=patch, failures=failures)


def _errors(findings: tuple[LogFinding, ...]) -> list[LogFinding]:
    return [f for f in findings if f.severity is Severity.ERROR]


def _rules_phrase(findings: list[LogFinding]) -> str:
    """'out-of-memory' or, where findings follow from a crash, the crashes first and each
    consequence naming what it follows from: 'out-of-memory, then crash as its consequence',
    'out-of-memory, engine-error, then crash as a consequence of out-of-memory' (logs64: 'crash,
    out-of-memory' named vLLM's EngineDeadError first; newuser64: 'engine-error, out-of-memory,
    then crash as their consequence' named an error the crash did not follow from as its cause,
    and named it first)."""
    causes = {f.rule for f in findings if f.consequence_of is None}
    after: dict[str, set[str]] = {}
    for f in findings:
        if f.consequence_of is not None and f.rule not in causes:
            after.setdefault(f.rule, set()).add(f.consequence_of[0])
    roots = {root for of in after.values() for root in of} & causes
    parts = sorted(roots) + sorted(causes - roots)
    for rule, of in sorted(after.items()):
        if of == causes:
            parts.append(f"then {rule} as {'its' if len(of) == 1 else 'their'} consequence")
        else:
            then = "then " if of <= causes else ""
            parts.append(f"{then}{rule} as a consequence of {', '.join(sorted(of))}")
    return ", ".join(parts)


def _failures(
    base: SideScan,
    patch: SideScan,
    new: tuple[LogFinding, ...],
    strict: bool,
    error_rules: set[str],
) -> tuple[str, ...]:
    failures: list[str] = []
    new_errors = _errors(new)
    if new_errors:
        failures.append(
            f"{len(new_errors)} error finding{'s' if len(new_errors) != 1 else ''} new on the "
            f"patch ({_rules_phrase(new_errors)})"
        )
    for name, side in (("base", base), ("patch", patch)):
        # Not read, so it could hide anything: a side is judged on all of its entries (logs64:
        # a link out of a patch directory, or a FIFO in it, passed; only a binary patch file
        # failed). The base too: a base read in part is no reference a reviewer can rely on.
        if side.skipped:
            failures.append(unread_phrase(name, side.skipped))
    overflow = {r: n for r, n in patch.overflow_by_rule if r in error_rules}
    if overflow and not strict:
        failures.append(
            f"{sum(overflow.values())} patch error lines past the distinct-message cap could "
            f"not be matched against the base ({', '.join(sorted(overflow))})"
        )
    if strict:
        for name, side in (("base", base), ("patch", patch)):
            errors = _errors(side.findings)
            count = sum(f.count for f in errors) + sum(
                n for r, n in side.overflow_by_rule if r in error_rules
            )
            if count:
                named = _rules_phrase(errors) or "past the message cap"
                failures.append(f"--strict: {count} error lines on the {name} side ({named})")
    return tuple(failures)

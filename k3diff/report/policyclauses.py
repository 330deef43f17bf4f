"""What a `wheels` run's policy did to its verdict, as the verdict line's last clauses: findings
an `--allow-*` option let pass and findings `--select` / `--ignore` left out, each named by code
with `(would fail)` where the default run fails on it, so an OK that rests on a relaxed policy
says so."""

from __future__ import annotations

from collections import Counter

from k3diff.output import plural
from k3diff.wheels.model import WheelReport


def policy_clauses(report: WheelReport) -> str:
    """The clauses for what `--allow-*` let pass, then for what `--select`/`--ignore` left out
    ("" when the run's policy is the default one)."""
    return _allowed_clause(report) + _filtered_clause(report)


def _allowed_clause(report: WheelReport) -> str:
    allowed: dict[str, Counter[str]] = {}
    for finding in report.findings:
        option = report.policy.relaxed_by(finding.code)
        if option is not None and report.policy.waiver(finding, report.artifacts) is None:
            allowed.setdefault(option, Counter())[finding.code.name] += 1
    return "".join(
        f" — {plural(counts.total(), 'finding')} let pass by {option}: "
        + ", ".join(f"{n} × {code} (would fail)" for code, n in sorted(counts.items()))
        for option, counts in sorted(allowed.items())
    )


def _filtered_clause(report: WheelReport) -> str:
    if not report.filtered:
        return ""
    total = sum(count.count for count in report.filtered)
    parts = ", ".join(
        f"{count.count} × {count.code}{' (would fail)' if count.would_fail else ''}"
        for count in report.filtered
    )
    return f" — {plural(total, 'finding')} filtered out by --select/--ignore: {parts}"

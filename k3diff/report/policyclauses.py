"""What a `wheels` run's policy did to its verdict, as the verdict line's last clauses: findings
an `--allow-*` option let pass and findings `--select` / `--ignore` left out, each named by code
with `(would fail)` where the default run fails on it, so an OK that rests on a relaxed policy
says so. A release set's verdict line sums them over its pairs (`set_policy_clauses`)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence

from k3diff.output import plural
from k3diff.wheels.model import WheelReport


def policy_clauses(report: WheelReport) -> str:
    """The clauses for what `--allow-*` let pass, then for what `--select`/`--ignore` left out
    ("" when the run's policy is the default one)."""
    return set_policy_clauses((report,))


def set_policy_clauses(reports: Iterable[WheelReport]) -> str:
    """`policy_clauses` summed over several comparisons (a release set's pairs), so the set's
    one verdict line says what its OK rests on, not only each pair's section."""
    reports = tuple(reports)
    return _allowed_clause(reports) + _filtered_clause(reports)


def _allowed_clause(reports: Sequence[WheelReport]) -> str:
    allowed: dict[str, Counter[str]] = {}
    for report in reports:
        for finding in report.findings:
            option = report.policy.relaxed_by(finding.code, finding.native)
            if option is not None and report.policy.waiver(finding, report.artifacts) is None:
                allowed.setdefault(option, Counter())[finding.code.name] += 1
    return "".join(
        f" — {plural(counts.total(), 'finding')} let pass by {option}: "
        + ", ".join(f"{n} × {code} (would fail)" for code, n in sorted(counts.items()))
        for option, counts in sorted(allowed.items())
    )


def _filtered_clause(reports: Sequence[WheelReport]) -> str:
    counts: dict[str, tuple[int, bool]] = {}  # code -> (count, would fail), first seen first
    for report in reports:
        for count in report.filtered:
            total, fails = counts.get(count.code, (0, False))
            counts[count.code] = (total + count.count, fails or count.would_fail)
    if not counts:
        return ""
    parts = ", ".join(
        f"{n} × {code}{' (would fail)' if fails else ''}" for code, (n, fails) in counts.items()
    )
    total = sum(n for n, _ in counts.values())
    return f" — {plural(total, 'finding')} filtered out by --select/--ignore: {parts}"

"""A `k3diff.logs/1` document's counts and places held to its findings, for a document judged
without its logs (records76).

`novelty_problems` checks each patch finding's `new` against the base's findings, so the edit
that hides a new patch error is now on the base: a finding of the patch's rule and message
added there, the patch's `new` made false, the summary and verdict to agree (the bundle's
runtime-logs row passed, exit 0). What the document alone can hold such an edit to:

- each side's `error_lines`, `warning_lines` and `distinct` are its findings' (`logs` writes
  them from the findings, the lines past the distinct-message cap not counted);
- each rule's `base` and `patch` counts at least its findings' on that side, the lines past
  the cap making up the side's `overflow` exactly; its `new_on_patch` the patch findings of it
  marked new; `summary.gone_on_patch` the base findings the patch lacks;
- each finding quotes `min(count, 3)` places, each in a file its side read (`files`, by the
  name `logs` gives it) and at most that file's line count (0: a restart, the file whole).

Not checkable without the logs: a base finding whose every count was edited to agree and whose
place names a base file and a line within it says what that line holds, and only the file's
bytes (the SHA-256 its side records) show whether it does: `report logs.json BASE PATCH` runs
`logs` again on them.

Held first (`bound_problems`, review76c): no side lists more findings than `logs` keeps
(`DISTINCT_CAP`) and no finding more places (`EXAMPLES`), so that the checks that run k3diff's
patterns over each quoted line (about half a millisecond a line) read at most 60,000 of them.
"""

from __future__ import annotations

from collections import Counter

from k3diff.documents.logs import LogsDocument
from k3diff.logs.matcher import DISTINCT_CAP, EXAMPLES
from k3diff.sample.names import SIDES


def bound_problems(view: LogsDocument) -> list[str]:
    """Where the document lists more than `logs` ever writes: a side's findings past
    `DISTINCT_CAP`, a finding's places past `EXAMPLES` (the first three)."""
    listed = Counter(f.side for f in view.findings)
    problems = [
        f"the {side} lists {count:,} findings, more than the {DISTINCT_CAP:,} distinct messages "
        "logs keeps a side"
        for side, count in sorted(listed.items())
        if count > DISTINCT_CAP
    ]
    problems += [
        f"the {f.side}'s {f.rule} finding {f.message[:80]!r} quotes {len(f.places):,} places, "
        f"more than the {EXAMPLES} logs keeps"
        for f in view.findings
        if len(f.places) > EXAMPLES
    ][:3]
    return problems


def tally_problems(view: LogsDocument, shown: int = 3) -> list[str]:
    """Where the document's counts and places disagree with its findings; the first `shown`."""
    problems = _side_problems(view) + _rule_problems(view) + _place_problems(view)
    base = {(f.rule, f.message) for f in view.findings if f.side == "base"}
    patch = {(f.rule, f.message) for f in view.findings if f.side == "patch"}
    gone = len(base - patch)
    if view.summary.get("gone_on_patch", gone) != gone:
        problems.append(
            f"summary.gone_on_patch is {view.summary['gone_on_patch']} but the base lists {gone} "
            "findings the patch does not"
        )
    if len(problems) > shown:
        problems[shown:] = [f"{len(problems) - shown:,} more such disagreements"]
    return problems


def _side_problems(view: LogsDocument) -> list[str]:
    problems = []
    for side, tally in view.tallies.items():
        findings = [f for f in view.findings if f.side == side]
        counted = {
            "error_lines": sum(f.count for f in findings if f.severity == "error"),
            "warning_lines": sum(f.count for f in findings if f.severity == "warning"),
            "distinct": len(findings),
        }
        for name, count in counted.items():
            stated = getattr(tally, name)
            if stated != count:
                problems.append(f"{side}.{name} is {stated:,} but its findings give {count:,}")
    return problems


def _rule_problems(view: LogsDocument) -> list[str]:
    problems = []
    matched: dict[str, Counter[str]] = {side: Counter() for side in SIDES}
    for f in view.findings:
        matched[f.side][f.rule] += f.count
    new = Counter(f.rule for f in view.findings if f.side == "patch" and f.new is True)
    past = dict.fromkeys(SIDES, 0)
    for name, base, patch, new_on_patch in view.rule_counts:
        for side, stated in zip(SIDES, (base, patch), strict=True):
            found = matched[side][name]
            if stated < found:
                problems.append(
                    f"the rule {name} counts {stated:,} {side} matches, but its {side} findings "
                    f"count {found:,}"
                )
            past[side] += max(0, stated - found)
        if new_on_patch != new[name]:
            problems.append(
                f"the rule {name} says {new_on_patch:,} new on the patch, but {new[name]:,} of "
                "its patch findings are marked new"
            )
    for side, tally in view.tallies.items():
        if past[side] != tally.overflow:
            problems.append(
                f"the rules count {past[side]:,} {side} matches beyond its findings, but "
                f"{side}.overflow (the lines past the distinct-message cap) is {tally.overflow:,}"
            )
    return problems


def _place_problems(view: LogsDocument) -> list[str]:
    problems = []
    for f in view.findings:
        where = f"the {f.side}'s {f.rule} finding {f.message[:80]!r}"
        if len(f.places) != min(f.count, EXAMPLES):
            problems.append(
                f"{where} counts {f.count:,} and quotes {len(f.places)} places, where logs "
                f"quotes the first {min(f.count, EXAMPLES)}"
            )
        files = view.tallies[f.side].files
        for file, line in f.places:
            lines = files.get(file)
            if lines is None:
                problems.append(f"{where} is placed in {file!r}, which its side did not read")
            elif line > lines:
                problems.append(
                    f"{where} is placed at line {line:,} of {file!r}, which has {lines:,} lines"
                )
    return problems

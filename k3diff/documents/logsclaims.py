"""A `k3diff.logs/1` document's rules held to its settings, and its findings of built-in warning
rules to their own lines.

Its `rules` list k3diff's own as built in and the user's as `rerun.rules` records them: a rule
listed as the user's that the run was not given, or one called built in that k3diff does not
have, is no rule `logs` scanned for (review75f: the patch's CUDA error moved to a made-up user
warning rule passed the runtime-logs row, exit 0).

A warning fails nothing, so a finding moved from an error rule to a warning rule (its `rule` and
`severity` edited, the counts and verdict to agree) passed every self-check (review75f: the
patch's new CUDA error renamed an `engine-warning` passed the bundle's runtime-logs row, exit 0).
`logs` calls a line a built-in warning rule's only where that rule is the first of the rules it
tried to match it (`matcher.FileMatcher._match`: the line without its worker prefix, or inside
a traceback the line without its logger prefix, tried without the level rules). Each example
whose line is kept whole (shorter than `matcher.TEXT_CAP`) is tried the same way, with k3diff's
own patterns only: a user's pattern is never run on a document judged alone.
"""

from __future__ import annotations

from collections.abc import Sequence

from k3diff.documents.logs import LogsDocument
from k3diff.logs.matcher import TEXT_CAP
from k3diff.logs.model import Severity
from k3diff.logs.normalize import strip_log_prefix, strip_worker_prefix
from k3diff.logs.rules import BUILTIN_RULES, LEVEL_RULES, MULTILINE_RULES, Rule

_BUILTIN_NAMES = frozenset(r.name for r in BUILTIN_RULES)
_LINE_RULES = tuple(r for r in BUILTIN_RULES if r.name not in MULTILINE_RULES)


def rule_list_problems(view: LogsDocument) -> list[str]:
    """A rule listed as built in that k3diff does not have; user rules listed otherwise than
    `rerun.rules` gives them (where the document has `rerun`)."""
    problems = [
        f"the rule {name} is listed as built in, but k3diff has no such rule"
        for name, _severity, builtin in view.rules
        if builtin and name not in _BUILTIN_NAMES
    ]
    listed = tuple((name, severity) for name, severity, builtin in view.rules if not builtin)
    given = view.user_rules
    if given is not None and listed != given:
        shown = ", ".join(f"{n} ({s})" for n, s in listed) or "none"
        run = ", ".join(f"{n} ({s})" for n, s in given) or "none"
        problems.append(f"its rules list the user's rules {shown}, but it ran with {run}")
    return problems


def warning_line_problems(view: LogsDocument) -> list[str]:
    """Each built-in warning finding one of whose whole lines its rule does not match, or an
    active built-in rule tried before it does; the first three."""
    listed = {name for name, _severity, builtin in view.rules if builtin}
    active = tuple(r for r in _LINE_RULES if r.name in listed)
    problems = []
    for f in view.findings:
        rule = next((r for r in active if r.name == f.rule), None)
        if rule is None or rule.severity is not Severity.WARNING:
            continue
        earlier = active[: active.index(rule)]
        wrong = next(
            (t for t in f.texts if len(t) < TEXT_CAP and not _first(rule, earlier, t)), None
        )
        if wrong is not None:
            problems.append(
                f"the {f.side}'s {f.rule} finding quotes the line {wrong[:120]!r}, which its "
                "rule does not match before every other rule tried"
            )
    return problems[:3]


def _first(rule: Rule, earlier: Sequence[Rule], text: str) -> bool:
    """Whether `rule` could be the first rule `logs` found in the line `text`."""
    line = strip_worker_prefix(text)
    inner = tuple(r for r in earlier if r.name not in LEVEL_RULES)
    tried = (
        (line, earlier),
        (strip_log_prefix(line), inner if rule.name not in LEVEL_RULES else None),
    )
    return any(
        rules is not None
        and rule.pattern.search(form) is not None
        and not any(r.pattern.search(form) for r in rules)
        for form, rules in tried
    )

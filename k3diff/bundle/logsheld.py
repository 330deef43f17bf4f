"""What holds the runtime-logs row whatever a `k3diff.logs/1` document's findings say: rules of
its own that left a built-in error rule out of what its verdict counts (docs77).

`logs` keeps the user's exit code for `--ignore-rule` (hunt75) and for a `--warn-rule` whose
pattern takes an error line first (records76), and says both; the bundle said them as
qualifications and passed. But a document's `rerun` is its author's word, and `report` runs
`logs` again with it: a `--warn-rule gpu-noise=CUDA` written into `rerun.rules`, or
`cuda-error` into `rerun.ignored`, passed the patch's new CUDA error, judged alone or run again
on its logs. The bundle judges logs by k3diff's own error rules, as it judges a triage at the
house α and `--shift`: the row is held (FAIL, exit 1) where a built-in error rule was ignored,
or where error lines were counted as warnings on a side whose errors the verdict counts (the
patch; the base too under `--strict`). What excuses no patch error stays a qualification: a
built-in warning rule ignored, error lines counted as warnings on the base alone (the patch's
same line would be the same rule's, or an error new on the patch).
"""

from __future__ import annotations

from dataclasses import dataclass

from k3diff.documents.logs import BUILTIN_SEVERITIES, LogsDocument, ignored_sentence
from k3diff.documents.logsparts import downgraded_sentence

_JUDGED_BY = (
    "the bundle judges logs by k3diff's own error rules (a document's rules are its author's "
    "word): run k3diff logs without"
)


@dataclass(frozen=True)
class HeldByRules:
    """What of a document's own rules holds its row, and what is only said."""

    reasons: tuple[str, ...]
    """Each rule setting that holds the row, said (none: not held)."""
    downgraded_sides: frozenset[str]
    """The sides whose `downgraded` hold it (the others' are qualifications)."""
    ignored_warnings: tuple[str, ...]
    """Rules left out that are not built-in error rules (a qualification)."""


def held_by_rules(logs: LogsDocument) -> HeldByRules:
    """The document's rules read against k3diff's own (see the module)."""
    errors = [n for n in logs.ignored if BUILTIN_SEVERITIES.get(n) == "error"]
    sides = frozenset(
        side
        for side, downgraded in logs.downgraded.items()
        if downgraded and (side == "patch" or logs.strict)
    )
    reasons = []
    if errors:
        reasons.append(
            f"built-in error {ignored_sentence(errors)}; {_JUDGED_BY} "
            f"{'that --ignore-rule' if len(errors) == 1 else 'those --ignore-rule options'}"
        )
    reasons += [
        f"{downgraded_sentence(logs.downgraded[side], side)}; {_JUDGED_BY} that --warn-rule, or "
        "narrow its pattern"
        for side in sorted(sides, reverse=True)  # the patch first
    ]
    others = tuple(n for n in logs.ignored if n not in errors)
    return HeldByRules(tuple(reasons), sides, others)

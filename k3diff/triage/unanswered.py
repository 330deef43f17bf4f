"""A side that never answered a record holds it: every request sent to it for the record, in
every mode, failed (an HTTP error, a connection closed), or the logs hold none of its lines for
a record the other side's lines hold (a run stopped between the sides, or its failed lines
removed from the log), so that side proved nothing.

Before (triage69), a record whose captures match and whose every patch request failed was an
`inconclusive` that passed without `--fail-inconclusive` (exit 0): a patch server that answered
nothing read as one that had not been sampled enough. Such a record is held `unanswered` and
fails the run (exit 1, as every hold: triage read its inputs and judged every record; the
evidence cannot clear this one), whatever `--fail-inconclusive` says. Where the captures differ,
`unsampled` already holds the record and says the same of the side (`rollup.hold_unsampled`).
Review69c: a log whose failed patch lines were removed (`jq 'select(.error == null)'`) held no
failed request, so the record passed again (exit 0); a side the logs sampled that has no line
for a record they sampled is held the same. A side no log sampled (a base-only run) is not.
A record no log holds a line of is not held here (a prompts file that left it out)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection

from k3diff.numbers import all_of
from k3diff.triage.model import Flag, RecordVerdict
from k3diff.triage.rollup import held
from k3diff.triage.samples import Sample

ERROR_SHOWN = 120
"""Characters of the most common error a reason shows (the sample log keeps it whole)."""


def unanswered_sides(
    samples: dict[str, dict[str, list[Sample]]], sampled: Collection[str] = ("base", "patch")
) -> list[tuple[str, int, str]]:
    """(side, requests sent, the most common error) for each side of `sampled` (the sides the
    logs sampled) whose lines for the record, in every mode, hold no output, where the logs hold
    a line of the record: every request failed, or none is in the logs (0 sent, no error)."""
    found: list[tuple[str, int, str]] = []
    if not any(lines for sides in samples.values() for lines in sides.values()):
        return found
    for side in (side for side in ("base", "patch") if side in sampled):
        sent = [s for sides in samples.values() for s in sides.get(side, ())]
        if not sent:
            found.append((side, 0, ""))
        elif all(s.text_xxh3 is None for s in sent):
            errors = Counter(s.error or f"HTTP {s.line.status}" for s in sent)
            error = errors.most_common(1)[0][0]
            if len(error) > ERROR_SHOWN:
                error = error[: ERROR_SHOWN - 1] + "…"
            found.append((side, len(sent), error))
    return found


def hold_unanswered(
    verdict: RecordVerdict,
    samples: dict[str, dict[str, list[Sample]]],
    sampled: Collection[str] = ("base", "patch"),
) -> RecordVerdict:
    """`verdict`, made inconclusive (flag unanswered) where a side answered none of the record's
    requests (`unanswered_sides`). A regression candidate stays one; a record `unsampled`
    already holds for it says so itself."""
    if verdict.regression_candidate or Flag.UNSAMPLED in verdict.flags:
        return verdict
    found = unanswered_sides(samples, sampled)
    if not found:
        return verdict
    said = " and ".join(
        f"every {side} request for this record failed ({_count(sent)}; {error})"
        if sent
        else f"the logs hold no {side} line for this record (a run stopped before them, or "
        "its lines removed)"
        for side, sent, error in found
    )
    which = " and ".join(side for side, _, _ in found)
    return held(
        verdict,
        Flag.UNANSWERED,
        f"unanswered: {said}, so the {which} proved nothing: make that server answer these "
        "requests, then sample them again",
    )


def _count(sent: int) -> str:
    return "its 1 request" if sent == 1 else f"{all_of(sent)} requests"

"""A side that never answered a record holds it: every request sent to it for the record, in
every mode, failed (an HTTP error, a connection closed), so that side proved nothing.

Before (triage69), a record whose captures match and whose every patch request failed was an
`inconclusive` that passed without `--fail-inconclusive` (exit 0): a patch server that answered
nothing read as one that had not been sampled enough. Such a record is held `unanswered` and
fails the run (exit 1, as every hold: triage read its inputs and judged every record; the
evidence cannot clear this one), whatever `--fail-inconclusive` says. Where the captures differ,
`unsampled` already holds the record and says the same of the side (`rollup.hold_unsampled`)."""

from __future__ import annotations

from collections import Counter

from k3diff.numbers import all_of
from k3diff.triage.model import Flag, RecordVerdict
from k3diff.triage.rollup import held
from k3diff.triage.samples import Sample

ERROR_SHOWN = 120
"""Characters of the most common error a reason shows (the sample log keeps it whole)."""


def unanswered_sides(samples: dict[str, dict[str, list[Sample]]]) -> list[tuple[str, int, str]]:
    """(side, requests sent, the most common error) for each side sent requests for the record
    in some mode, none of which came back with an output."""
    found = []
    for side in ("base", "patch"):
        sent = [s for sides in samples.values() for s in sides.get(side, ())]
        if sent and all(s.text_xxh3 is None for s in sent):
            errors = Counter(s.error or f"HTTP {s.line.status}" for s in sent)
            error = errors.most_common(1)[0][0]
            if len(error) > ERROR_SHOWN:
                error = error[: ERROR_SHOWN - 1] + "…"
            found.append((side, len(sent), error))
    return found


def hold_unanswered(
    verdict: RecordVerdict, samples: dict[str, dict[str, list[Sample]]]
) -> RecordVerdict:
    """`verdict`, made inconclusive (flag unanswered) where a side answered none of the record's
    requests (`unanswered_sides`). A regression candidate stays one; a record `unsampled`
    already holds for it says so itself."""
    if verdict.regression_candidate or Flag.UNSAMPLED in verdict.flags:
        return verdict
    found = unanswered_sides(samples)
    if not found:
        return verdict
    said = " and ".join(
        f"every {side} request for this record failed ({_count(sent)}; {error})"
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

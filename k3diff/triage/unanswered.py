"""A side that never answered a record in a mode holds it: every request sent to it for the
record in that mode failed (an HTTP error, a connection closed), or the logs hold none of its
lines of a mode they hold the record's lines of (a run stopped between the sides, or its failed
lines removed from the log), so that side proved nothing there.

Before (triage69), a record whose captures match and whose every patch request failed was an
`inconclusive` that passed without `--fail-inconclusive` (exit 0): a patch server that answered
nothing read as one that had not been sampled enough. Such a record is held `unanswered` and
fails the run (exit 1, as every hold: triage read its inputs and judged every record; the
evidence cannot clear this one), whatever `--fail-inconclusive` says. Where the captures differ,
`unsampled` already holds the record and says the same of the side (`rollup.hold_unsampled`).
Review69c: the rule held only a side that answered in no mode, so a patch server failing every
concurrent request of a record it answered serially passed (exit 0), as did a log whose failed
patch lines were removed (`jq 'select(.error == null)'`: no failed request left). It is judged
per mode, and a side the logs sampled with no line in a mode that holds the record's lines is
held the same; a side no log sampled (a base-only run) is not. Triage70: a record whose every
line was removed (both sides failed it, then `jq`), or that a killed run never reached, was read
as one no prompts file asked; a log's header lists the records its run asked, and each one the
comparison has is given every mode the run asked (`triage.asked`), so its sides with no line
there are held alike. A record no log asked (a prompts file that left it out), or one a log
written before the header listed them holds no line of, is not."""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection

from k3diff.numbers import all_of, one_of
from k3diff.triage.model import Flag, RecordVerdict
from k3diff.triage.rollup import held
from k3diff.triage.samples import Sample

ERROR_SHOWN = 120
"""Characters of the most common error a reason shows (the sample log keeps it whole)."""


def unanswered_sides(
    samples: dict[str, dict[str, list[Sample]]], sampled: Collection[str] = ("base", "patch")
) -> list[tuple[str, tuple[str, ...], int, str]]:
    """(side, the modes it answered none of, requests sent there, their most common error) for
    each side of `sampled` (the sides the logs sampled) with a mode holding a line of the record
    where none of the side's lines holds an output: every request failed, or none is in the
    logs (0 sent, no error); the modes are empty where that is every mode of the record."""
    found: list[tuple[str, tuple[str, ...], int, str]] = []
    modes = list(samples)  # each holds a line of the record, or a log's header asked it
    for side in (side for side in ("base", "patch") if side in sampled):
        silent = [
            mode for mode in modes if all(s.text_xxh3 is None for s in samples[mode].get(side, ()))
        ]
        if not silent:
            continue
        sent = [s for mode in silent for s in samples[mode].get(side, ())]
        error = ""
        if sent:
            errors = Counter(s.error or f"HTTP {s.line.status}" for s in sent)
            error = errors.most_common(1)[0][0]
            if len(error) > ERROR_SHOWN:
                error = error[: ERROR_SHOWN - 1] + "…"
        found.append((side, () if len(silent) == len(modes) else tuple(silent), len(sent), error))
    return found


def hold_unanswered(
    verdict: RecordVerdict,
    samples: dict[str, dict[str, list[Sample]]],
    sampled: Collection[str] = ("base", "patch"),
) -> RecordVerdict:
    """`verdict`, made inconclusive (flag unanswered) where a side answered none of the record's
    requests in a mode (`unanswered_sides`). A regression candidate stays one; a record
    `unsampled` already holds for it says so itself."""
    if verdict.regression_candidate or Flag.UNSAMPLED in verdict.flags:
        return verdict
    found = unanswered_sides(samples, sampled)
    if not found:
        return verdict
    failed = [
        f"every {side} request for this record{_in(modes)} failed ({_count(sent)}; {error})"
        for side, modes, sent, error in found
        if sent
    ]
    unlogged: dict[tuple[str, ...], list[str]] = {}
    for side, modes, sent, _ in found:
        if not sent:
            unlogged.setdefault(modes, []).append(side)
    lacking = [
        f"the logs hold no {one_of(sides, 'or')} line for this record{_in(modes)}, which the "
        "run asked (its lines removed from the log: give the log as sample wrote it, whose "
        "lines say why; or the run killed before them: its sample command with --resume "
        "takes them)"
        for modes, sides in unlogged.items()
    ]
    which = " and ".join(side for side, _, _, _ in found)
    every = sorted({mode for _, modes, _, _ in found for mode in modes})
    fix = ": make that server answer these requests, then sample them again" if failed else ""
    return held(
        verdict,
        Flag.UNANSWERED,
        f"unanswered: {' and '.join(failed + lacking)}, so the {which} proved "
        f"nothing{_in(tuple(every))}{fix}",
    )


def _in(modes: tuple[str, ...]) -> str:
    """' in concurrent', ' in serial and loaded': the modes a side answered none of ('' for
    every mode of the record)."""
    return f" in {one_of(modes, 'and')}" if modes else ""


def _count(sent: int) -> str:
    return "its 1 request" if sent == 1 else f"{all_of(sent)} requests"

"""A patch whose server fails requests more often than the base's is held (`patch-errors`).

A failed sample (an HTTP error, a transport failure after retries, an HTTP-200 answer whose
finish reason says its text is not whole: null, `error`, `abort`) lowers a side's n and adds
the flag `errors-present`, which holds nothing. Before errors73 (review73d), a greedy patch
answering `A` 7 times and failing 3 against a base answering `A` 10 of 10 was a `match`, exit 0:
a patch that makes the engine abort 30 % of generations passed.

Each record and mode where the patch failed a request gets Fisher's exact test on (failed,
answered) of the patch against the base, one-sided (`alternative="greater"`: only a patch that
fails more often rejects); each mode of 2 or more records with failures on a side gets the
stratified exact test of the patch's failures summed over them (each record keeps its margins:
the sum's law is the convolution of the records' hypergeometric laws), so a rate spread thinly
over many prompts, which no record's own test reaches α with, is seen. Every test so run is one
family of its own, corrected with `--correction` and judged at `--alpha` (as the finish-reason
family of `besidetext`). A rejection holds the record: inconclusive, flag `patch-errors`, exit 1;
a regression candidate stays one. A side that answered none of a mode's requests is held
`unanswered` besides (`k3diff.triage.unanswered`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from k3diff.triage import stats
from k3diff.triage.flags import Flag
from k3diff.triage.model import RecordVerdict
from k3diff.triage.rollup import held, ordered_modes
from k3diff.triage.samples import Sample
from k3diff.triage.settings import Correction, Settings

_Modes = Mapping[str, Mapping[str, Sequence[Sample]]]
"""One key's samples: mode -> side -> samples."""
Counts = tuple[int, int, int, int]
"""One record's requests in a mode: (patch failed, patch sent, base failed, base sent)."""
_Tested = tuple[tuple[str, ...], str, float, str]
"""A test of the family: (the records a rejection holds, the mode, p, what it compared)."""


def failure_counts(sides: Mapping[str, Sequence[Sample]]) -> Counts:
    """(patch failed, patch sent, base failed, base sent) of one record's mode: a failed
    sample is one whose line holds no output."""
    patch, base = sides.get("patch", ()), sides.get("base", ())
    return (
        sum(1 for s in patch if s.text_xxh3 is None),
        len(patch),
        sum(1 for s in base if s.text_xxh3 is None),
        len(base),
    )


def fisher_p(counts: Counts) -> float:
    """The one-sided p of Fisher's exact test that the patch fails more often than the base."""
    from scipy import stats as scipy_stats

    failed, sent, base_failed, base_sent = counts
    table = [[failed, sent - failed], [base_failed, base_sent - base_failed]]
    return float(scipy_stats.fisher_exact(table, alternative="greater").pvalue)


def pooled_p(tables: Sequence[Counts]) -> float:
    """The one-sided p of the stratified exact test: the patch's failures summed over records,
    each record's conditional law hypergeometric (its sides' sizes and its failures kept), the
    sum's law their convolution."""
    import numpy as np
    from scipy import stats as scipy_stats

    law = np.ones(1)
    for failed, sent, base_failed, base_sent in tables:
        drawn = scipy_stats.hypergeom(sent + base_sent, failed + base_failed, sent)
        law = np.convolve(law, drawn.pmf(np.arange(sent + 1)))
    observed = sum(table[0] for table in tables)
    return min(1.0, float(law[observed:].sum()))


def _words(mode: str, counts: Counts) -> str:
    failed, sent, base_failed, base_sent = counts
    return (
        f"the patch failed {failed:,} of {sent:,} requests in {mode}, the base "
        f"{base_failed:,} of {base_sent:,}"
    )


def error_holds(grouped: Mapping[str, _Modes], settings: Settings) -> dict[str, tuple[str, str]]:
    """Per record key whose patch failed requests more often than its base (a test of the
    family rejects after `--correction`, at `--alpha`): (the mode, why in words)."""
    tested: list[_Tested] = []
    pools: dict[str, list[tuple[str, Counts]]] = {}
    for key, modes in grouped.items():
        for mode in ordered_modes(dict(modes)):
            counts = failure_counts(modes[mode])
            if counts[0] == 0 or counts[3] == 0:
                continue
            p = fisher_p(counts)
            tested.append(((key,), mode, p, f"{_words(mode, counts)}; Fisher"))
            pools.setdefault(mode, []).append((key, counts))
    for mode, members in pools.items():
        if len(members) > 1:
            tested.append(_pooled(mode, members))
    adjusted = stats.corrected([p for *_, p, _ in tested], settings.correction == Correction.HOLM)
    found: dict[str, tuple[str, str]] = {}
    for (keys, mode, p, said), p_adjusted in zip(tested, adjusted, strict=True):
        if p_adjusted > settings.alpha:
            continue
        why = f"{said} p = {p:.3g}, corrected {p_adjusted:.3g} <= alpha = {settings.alpha:g}"
        for key in keys:
            found.setdefault(key, (mode, why))
    return found


def _pooled(mode: str, members: Sequence[tuple[str, Counts]]) -> _Tested:
    """The mode's pooled test; a rejection names the records whose patch failed more than its
    share of the record's failures (its side's part of the requests)."""
    tables = [counts for _, counts in members]
    named = tuple(
        key
        for key, (failed, sent, base_failed, base_sent) in members
        if failed * (sent + base_sent) > sent * (failed + base_failed)
    )
    summed = [sum(column) for column in zip(*tables, strict=True)]
    said = (
        f"pooled over {mode}'s {len(members):,} records with failures, "
        f"{_words(mode, (summed[0], summed[1], summed[2], summed[3]))}; stratified exact"
    )
    return named, mode, pooled_p(tables), said


def hold_patch_errors(
    verdicts: Sequence[RecordVerdict], grouped: Mapping[str, _Modes], settings: Settings
) -> tuple[RecordVerdict, ...]:
    """Each verdict held (flag `patch-errors`) where its patch failed requests more often than
    its base (`error_holds`); a regression candidate stays one, and a record `unsampled`
    holds (a side with no answer in any mode, the captures differing) says so itself."""
    found = error_holds(grouped, settings)
    return tuple(
        verdict
        if verdict.key not in found
        or verdict.regression_candidate
        or Flag.UNSAMPLED in verdict.flags
        else held(
            verdict,
            Flag.PATCH_ERRORS,
            f"patch-errors: {found[verdict.key][1]}: a patch whose server fails requests more "
            "often than the base's is a regression the texts compared do not show",
        )
        for verdict in verdicts
    )

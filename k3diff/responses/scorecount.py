"""The score tests of a `k3diff.responses/1` document recounted from what it carries, so that
`k3diff report` (and `triage`, through `doccheck`) refuses an edit of the numbers the gate and
the verdict are re-derived from:

- every test: `n` at most the paired records that could score it (one item a record and
  metric; for lm-eval, the records of the test's filter), a binary test's `p` McNemar's of its
  own `lost` and `gained`, every `p_adjusted` Holm's of the `p`s, a binary `mde` the exact
  power's of `n`, `lost` and `gained`;
- lm-eval records carry every doc's metric change (`lm_eval.metric_changes`, base and patch
  value, uncapped): `lost` and `gained` are recounted from them, and a continuous test's `p`
  (the signed-rank test of the non-zero differences), its mean difference and its `mde` (the
  differences' spread, with the `n − moved` zeros).

- every scored record carries its scores (`scores`, `[metric, filter, base, patch]`, since
  stop 61): every test is rebuilt from them as `responses` computed it (`scoretests.run_tests`)
  and compared field by field, the means and inspect_ai's scores included; a document with
  score tests and no record carrying scores (written before stop 61) is refused.

A forger who edits the records' scores with the tests is not caught (nothing in the document
binds the logs' scores); `one_sided`, `unscored` and the noise band are not recounted."""

from __future__ import annotations

import math
from collections.abc import Sequence
from itertools import chain

from k3diff.responses.model import score_number
from k3diff.responses.recordview import ResponsesRecord
from k3diff.responses.scores import (
    LOWER_IS_BETTER,
    Direction,
    ScoreCollector,
    ScoreKind,
    ScoreTest,
    moved,
)
from k3diff.responses.scoresview import ScoresView

_CLOSE = 1e-9


def _close(a: float | None, b: float | None) -> bool:
    if a is None or b is None:
        return a is b
    return math.isclose(a, b, rel_tol=_CLOSE, abs_tol=1e-12)


Change = tuple[float, float]
"""One item's (base, patch) score, the two differing."""


def _changes(comparable: Sequence[ResponsesRecord]) -> dict[tuple[str, str | None], list[Change]]:
    """(base, patch) per (metric, group), from every record's lm-eval metric changes (values
    that are no score on either side, NaN or a string, are not items: skipped as `responses`
    skips them)."""
    moved: dict[tuple[str, str | None], list[Change]] = {}
    for record in comparable:
        for metric, group, base, patch in record.metric_changes or ():
            before, after = score_number(base), score_number(patch)
            if before is not None and after is not None and after != before:
                moved.setdefault((metric, group), []).append((before, after))
    return moved


def _items(test: ScoreTest, comparable: Sequence[ResponsesRecord], lm_eval: bool) -> int:
    if not lm_eval:
        return len(comparable)
    # A record without an lm-eval comparison says nothing of its filter: it bounds every one.
    return sum(1 for r in comparable if r.metric_changes is None or r.lm_eval_group == test.group)


def _recounted(
    test: ScoreTest, changes: list[Change], alpha: float, power: float
) -> tuple[list[str], float]:
    """Where `test` disagrees with its records' changes; and its p from them."""
    from k3diff.responses.scoretests import wilcoxon_mde, wilcoxon_signed_rank

    where = f"scores {test.label!r}"
    moved = [after - before for before, after in changes]
    higher = test.metric not in LOWER_IS_BETTER
    gained = sum(1 for d in moved if (d > 0) == higher)
    lost = len(moved) - gained
    problems = []
    if (lost, gained) != (test.lost, test.gained):
        problems.append(
            f"{where}: lost {test.lost} and gained {test.gained}, but its records' metric "
            f"changes give {lost} and {gained}"
        )
    if test.kind is ScoreKind.BINARY:
        if any(abs(d) != 1 for d in moved):
            problems.append(f"{where}: binary, but its records' metric changes are not 0 or 1")
        return problems, test.p
    p = wilcoxon_signed_rank(moved)
    # Σpatch − Σbase over the items that moved, rounded once, as `responses` states the means
    # (`math.fsum` of the scores, not of the rounded differences: 1 → 1e100 beside 1e100 → 0
    # rounds each difference to ±1e100, whose sum 0 hid the 1 lost; flake79, a genuine
    # document refused).
    total = math.fsum(chain.from_iterable((after, -before) for before, after in changes))
    mean = total / test.n if test.n else 0.0
    scale = max(1.0, abs(test.base_mean), abs(test.patch_mean))
    if not math.isclose(test.difference, mean, rel_tol=1e-6, abs_tol=_CLOSE * scale):
        problems.append(
            f"{where}: the means differ by {test.difference:g}, but its records' metric changes "
            f"give a mean difference of {mean:g}"
        )
    mde = wilcoxon_mde([*moved, *([0.0] * (test.n - len(moved)))], alpha, power)
    if not _close(test.mde, mde):
        problems.append(f"{where}: mde {test.mde} but its records' metric changes give {mde}")
    return problems, p


def _from_scores(
    scores: ScoresView, comparable: Sequence[ResponsesRecord], epochs: bool
) -> list[str]:
    """Every test recomputed from the records' own scores (scores61): the tests, means,
    lost and gained, p, Holm, MDE and kind, as `responses` computed them (`epochs`: inspect_ai
    records keyed `ID/epoch-N`, one item a sample, the mean over its epochs, as `responses`
    took them)."""
    from k3diff.responses.epochs import sample_of
    from k3diff.responses.scores import ScoreCollector
    from k3diff.responses.scoretests import run_tests

    if not any(r.scores for r in comparable):
        return [
            f"summary.scores states {len(scores.tests)} score tests, but no paired record "
            "carries its scores (written by an older k3diff: run `k3diff responses` again)"
        ]
    problems = _unscored_changes(scores, comparable)
    collector = ScoreCollector()
    for record in comparable:
        cluster = sample_of(record.key) if epochs else None
        for metric, group, base, patch in record.scores or ():
            collector.take(metric, group, base, patch, cluster)
    found = run_tests(collector, scores.alpha, scores.power)
    derived = {t.label: t for t in (found.tests if found is not None else ())}
    stated = {t.label: t for t in scores.tests}
    if sorted(derived) != sorted(stated):
        return [
            *problems,
            f"summary.scores tests {', '.join(sorted(stated))}, but the records' scores give "
            f"{', '.join(sorted(derived)) or 'none'}",
        ]
    older = _older_directions(collector)
    for label, test in stated.items():
        again = derived[label]
        # The direction and significance the gate and the verdict read, exactly: the stated
        # means' tolerance (`scoresview`, 1e-9 of their scale) let a forged `better` clear a
        # significant loss of 1 beside means of 1e12 (flake79: report exit 0 on the forgery).
        for name in _EXACT:
            if name == "direction" and not again.significant and test.direction == older[label]:
                continue  # as a k3diff before cbaa67c8 wrote it: see `_older_directions`
            if name == "significant" and _significance_read(test, again, scores.alpha):
                continue
            if getattr(test, name) != getattr(again, name):
                problems.append(
                    f"scores {label!r}: {name} {getattr(test, name)} but its records' scores "
                    f"give {getattr(again, name)}"
                )
        for name in ("base_mean", "patch_mean", "p", "p_adjusted", "mde"):
            if not _close(getattr(test, name), getattr(again, name)):
                problems.append(
                    f"scores {label!r}: {name} {getattr(test, name)} but its records' scores "
                    f"give {getattr(again, name)}"
                )
    return problems


def _significance_read(test: ScoreTest, again: ScoreTest, alpha: float) -> bool:
    """Whether a `significant` other than the recount's is read: its p_adjusted is the
    recount's by `correction.recount_disagreement` (within 1e-9, read toward rejecting), so
    a test written significant whose recount falls short of α by the last digits another
    scipy's signed-rank or binomial p gives is read; one written not significant where the
    recount rejects is refused, whatever the digits (the band a forger could use is the
    passing one; a genuine document there is refused, exit 2, never read as a pass). Only a
    test in the worse direction: a significant rise is a pass, so one is compared exactly."""
    from k3diff.correction import recount_disagreement

    # Significance rejects only in the worse direction (`ScoreTest.fails`): a significant rise
    # passes the score gate (`scoregate`: `better`), so there "toward rejecting" is toward not
    # significant, and a significant BETTER the recount does not hold is refused (review80d).
    written = test.significant and test.p_adjusted <= alpha and test.direction is Direction.WORSE
    return written and recount_disagreement(test.p_adjusted, again.p_adjusted, (alpha,)) is None


def _older_directions(collector: ScoreCollector) -> dict[str, Direction]:
    """Each continuous test's direction as `responses` wrote it before cbaa67c8: the sign of
    numpy's mean of the rounded differences, not of Σpatch − Σbase. The two differ only where
    the sums tie within rounding (review79e: BLEU scores of one decimal, 6 of 40 items'
    scores exchanged, were written `better`, now `worse` by the counts; report refused the
    genuine stop-78 document, exit 1 -> 2). Accepted only on a test not significant: the gate
    and the verdict read a direction only beside significance (`fails`, a significant rise)."""
    import numpy as np

    found: dict[str, Direction] = {}
    for metric, group, base, patch in collector.columns():
        differences = np.frombuffer(patch, dtype=float) - np.frombuffer(base, dtype=float)
        higher = metric not in LOWER_IS_BETTER
        mean = float(np.mean(differences)) if len(differences) else 0.0
        counts = float(np.sum(differences > 0) - np.sum(differences < 0))
        direction = moved(mean, higher) if mean else moved(counts if higher else -counts, True)
        found[metric if group is None else f"{metric} [{group}]"] = direction
    return found


_EXACT = (
    "kind",
    "n",
    "lost",
    "gained",
    "direction",
    "significant",
    "records",
    "epochs",
    "binary_epochs",
)
"""The fields of a score test its records' scores give exactly."""


def _scored_metrics(path: str) -> set[str]:
    """The inspect_ai metrics a field change's path may hold the value of: `scores.NAME.value`
    is NAME's, `scores.NAME.value.KEY` (a score whose value is a dict) `NAME.KEY`'s. A key may
    hold dots (`scores.judge.value.rouge.f1`, `judge.rouge.f1`: review76c, such a forgery
    passed), so each split at `.value.` is one, the first `_SPLITS` (a path is the document's:
    one of 1 MB of `.value` would build a metric at each)."""
    if not path.startswith("scores."):
        return set()
    rest = path.removeprefix("scores.")
    found = {rest.removesuffix(".value")} if rest.endswith(".value") else set()
    at = rest.find(".value.")
    while at > 0 and len(found) < _SPLITS:
        if rest[at + len(".value.") :]:
            found.add(f"{rest[:at]}.{rest[at + len('.value.') :]}")
        at = rest.find(".value.", at + 1)
    return found


_SPLITS = 16
"""The most metrics one field change's path is read as."""


def _unscored_changes(scores: ScoresView, comparable: Sequence[ResponsesRecord]) -> list[str]:
    """A record whose score for a tested metric changed (an inspect_ai `scores.NAME.value`
    field change, read from the logs on both sides) to values that are scores on both sides,
    as inspect reads them, but that carries no score of that metric (review61b: the scores of
    only the changed records dropped, with the tests edited to match, passed). A value that is
    no score (`" yes"`, `"1e0"`, a number past `MAX_SCORE_MAGNITUDE`) makes the metric
    one-sided on that record, and `responses` writes no score for it (records76: such a
    genuine document was refused)."""
    from k3diff.responses.inspect_log import score_value

    tested = {test.metric for test in scores.tests}
    unscored = []
    for record in comparable:
        carried = {metric for metric, _, _, _ in record.scores or ()}
        for path, base, patch in record.changed_values:
            if (
                _scored_metrics(path) & tested - carried
                and score_value(base) is not None
                and score_value(patch) is not None
            ):
                unscored.append(record.name)
                break
    if not unscored:
        return []
    return [
        f"records {', '.join(unscored[:5])}{' and more' if len(unscored) > 5 else ''}: a "
        "tested score changed (field_changes) between two scores, but the record carries no "
        "score of it"
    ]


def recount_problems(
    scores: ScoresView | None,
    comparable: Sequence[ResponsesRecord],
    lm_eval: bool,
    epochs: bool = False,
) -> list[str]:
    """Where the score tests disagree with the records (`comparable`: the paired records whose
    prompts match; `lm_eval`: both sides are lm-eval logs, so the records carry the changes;
    `epochs`: paired by inspect_ai's sample and epoch, one item a sample)."""
    if scores is None or not scores.tests:
        return []
    from k3diff.correction import holm
    from k3diff.responses.scoretests import mcnemar_exact, mcnemar_mde, signed_rank_can_reject

    moved = _changes(comparable) if lm_eval else {}
    problems: list[str] = []
    ps = []
    for test in scores.tests:
        where = f"scores {test.label!r}"
        items = _items(test, comparable, lm_eval)
        if test.n > items:
            problems.append(f"{where}: n {test.n} but only {items} paired records could score it")
            ps.append(test.p)
            continue
        flips = test.lost + test.gained
        if (
            test.kind is ScoreKind.CONTINUOUS
            and test.mde is None
            and flips not in (0, test.n)
            and signed_rank_can_reject(test.n, scores.alpha)
        ):
            # No spread means every item moved alike: all of them, or none (or the items are
            # too few for the test to reject anything, and no MDE is stated).
            problems.append(
                f"{where}: mde null (differences that do not vary) but {test.lost} lost and "
                f"{test.gained} gained of {test.n}"
            )
        p = test.p
        if lm_eval:
            found, p = _recounted(test, moved.get((test.metric, test.group), []), *_at(scores))
            problems += found
        if test.kind is ScoreKind.BINARY:
            p = mcnemar_exact(test.lost, test.gained)
            mde = mcnemar_mde(test.n, test.lost + test.gained, scores.alpha, scores.power)
            if not _close(test.mde, mde):
                problems.append(f"{where}: mde {test.mde} but its n, lost and gained give {mde}")
        if not _close(test.p, p):
            name = (
                f"McNemar's exact test of {test.lost} lost, {test.gained} gained"
                if test.kind is ScoreKind.BINARY
                else "the signed-rank test of its records' metric changes"
            )
            problems.append(f"{where}: p {test.p:g} but {name} gives {p:g}")
        ps.append(p)
    for test, adjusted in zip(scores.tests, holm(ps), strict=True):
        if not _close(test.p_adjusted, adjusted):
            problems.append(
                f"scores {test.label!r}: p_adjusted {test.p_adjusted:g} but Holm's correction "
                f"of the tests' p gives {adjusted:g}"
            )
    return problems + _from_scores(scores, comparable, epochs)


def _at(scores: ScoresView) -> tuple[float, float]:
    return scores.alpha, scores.power

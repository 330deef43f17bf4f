"""What a distribution test does to a mode's verdict, in words a reviewer reads: a rejection
makes a `distribution-shift` regression candidate, a non-rejection says what the test could
have detected, a sampled mode whose test could not have detected `--shift` at its n (a larger
shift only, or none) clears nothing (`no-power`), and
a greedy patch settled on the base's batch-1 answer is never a regression, and a greedy mode
left undecided on a patch output the base never gave clears nothing (`novel-undecided`)
(`k3diff.triage.shift` plans and runs the tests)."""

from __future__ import annotations

import dataclasses

from k3diff.triage import firsttext, moresamples, prefixes
from k3diff.triage.distribution import DistributionTest
from k3diff.triage.model import Category, Flag, ModeVerdict, Settings
from k3diff.triage.sampledlevel import alpha_text, judged_at
from k3diff.triage.testtext import (
    level_text,
    pooled_only_text,
    power_text,
    test_text,
    token_notes,
)


def apply(
    verdict: ModeVerdict,
    test: DistributionTest | None,
    settings: Settings,
    oracle: str | None = None,
) -> ModeVerdict:
    """The mode's verdict with its distribution test: a rejection makes a record no other test
    blamed a `distribution-shift` regression candidate; a non-rejection says what the test could
    have detected.

    `oracle`: in a batched or loaded mode, the base's serial output when every serial sample of
    the base agreed on it (the batch-1 answer). A greedy patch stable on that answer where the
    base's batches vary is more stable than the base, on the base's own answer: the shift is
    said, and is never a regression (DESIGN: "a patch more stable than the base is never a
    regression"). A sampled mode keeps its test: there a patch that stopped varying is news."""
    if test is None:
        return verdict
    token_moved, not_used = token_notes(test, settings)
    moved = "; ".join(m for m in (token_moved, prefixes.moved_text(test.moved)) if m)
    tested = test_text(test, settings)
    judged = alpha_text(settings.alpha, test.sampled)
    if test.rejects(settings.alpha) and _settled_on_oracle(verdict, test, oracle):
        text = (
            f"{verdict.reason}; distribution: the patch settled on the base's serial answer "
            f"where the base's own outputs vary ({moved}; {tested} ≤ {judged}): "
            "more stable than the base, on the base's batch-1 output, so not a regression"
        )
        return dataclasses.replace(verdict, reason=text, distribution=test)
    if test.rejects(settings.alpha):
        pooled = pooled_only_text(test, settings)
        if verdict.regression_candidate:
            text = (
                f"{verdict.reason}; the output distribution moved too ({moved}; {tested}){pooled}"
                f"{not_used}"
            )
            return dataclasses.replace(verdict, reason=text, distribution=test)
        text = (
            f"regression candidate: the patch's outputs do not follow the base's distribution "
            f"({moved}; {tested} ≤ {judged}){pooled}; base {verdict.base.n} "
            f"samples with {verdict.base.distinct} distinct outputs, patch {verdict.patch.n} "
            f"with {verdict.patch.distinct}{not_used}"
        )
        return dataclasses.replace(
            verdict,
            category=Category.DISTRIBUTION_SHIFT,
            reason=text,
            regression_candidate=True,
            distribution=test,
        )
    if _underpowered(verdict, test, settings):
        return _held_underpowered(verdict, test, settings, f"{tested} > {judged}")
    sampled = "the requests sampled; " if test.sampled else ""
    text = (
        f"{verdict.reason}; distribution: {sampled}no shift detected ({tested} > {judged})"
        f"{not_used}; {power_text(test, settings)}"
    )
    return dataclasses.replace(verdict, reason=text, distribution=test)


def untested(verdict: ModeVerdict, settings: Settings) -> ModeVerdict:
    """A sampled mode no distribution test ran on (a side with fewer than 2 answers): nothing
    could have seen a shift, so it clears nothing (`Flag.NO_POWER`), as `_underpowered`. Its
    `more_samples` is the plan's exact Fisher figure for `--shift` at the α its test would be
    judged at (α / 2, shared with the novelty test: `sampledlevel`), less the
    smaller side's n: a least figure, as the run's correction lowers each test's level (it
    kept the greedy bound's figure, 59 more where a sampled run needs 17)."""
    if verdict.regression_candidate or verdict.category is Category.MATCH:
        return verdict
    n = min(verdict.base.n, verdict.patch.n)
    judged = judged_at(settings.alpha, True)
    needed = moresamples.plan_figure(settings.shift, judged, settings.power)
    more = None if needed is None or unbatched(verdict) else max(1, needed - n)
    shift = f"{100 * settings.shift:.3g} %"
    decide = (
        ""
        if more is None
        else f"; at least {more:,} more sample{'s' if more != 1 else ''} a side decide it "
        f"({needed:,} a side, the plan's exact Fisher figure for {shift} at "
        f"{alpha_text(settings.alpha, True)}, before the correction over the run's tests: "
        f"triage --plan --shift {settings.shift:g} --alpha {settings.alpha:g} --power "
        f"{settings.power:g})"
    )
    why = (
        "no distribution test ran (a side has fewer than 2 answers), so nothing could have "
        f"seen a shift: it clears nothing{decide}"
    )
    return _no_power(dataclasses.replace(verdict, more_samples=more), why)


UNBATCHED = frozenset({Flag.NOT_EXERCISED, Flag.UNPROVEN})
"""Mode flags no number of samples of the same run lifts: only a run whose batches the server
overlaps, and its gauge proves, decides such a mode (`classify.decide` asks for none)."""
UNBATCHED_TEXT = "more samples of this run, whose batches are not, decide nothing"


def unbatched(verdict: ModeVerdict) -> bool:
    """A mode held not-exercised or unproven: a no-power hold on it asks for no more samples
    (`more_samples` None), as more of them would leave it held (newuser79: a concurrent mode at
    temperature 1 on a server without a gauge asked for 45 more a side, and `next:` told the
    user to grow the run, after which it was as unproven as before)."""
    return bool(UNBATCHED & set(verdict.flags))


ALREADY_HELD = frozenset({Flag.NOT_EXERCISED, Flag.UNPROVEN, Flag.NO_POWER})
"""Mode flags that already keep an inconclusive mode from clearing (`novel_undecided` adds
nothing to them)."""


def novel_undecided(verdict: ModeVerdict, settings: Settings | None = None) -> ModeVerdict:
    """A greedy mode (its requests did not sample; a seeded one repeating one draw counts as
    greedy) judged inconclusive where the patch gave an output the base never gave in it
    (`novelty` > 0) and no test made it a regression candidate: held with
    `Flag.NOVEL_UNDECIDED`, as `_underpowered` holds a sampled mode. An undecided mode alone
    passes without --fail-inconclusive, and a patch output outside the base's observed set that
    the run could not explain is no evidence of safety (base A, A, A against patch A, Z, A
    passed with exit 0; so did base A against patch Z, one sample a side, where no novelty
    test runs and `novelty` counts the patch's new observations all the same; and so did a
    base whose every request in the mode failed against patch Z, Z, Z: a base without an
    observation explains none of the patch's, in serial mode whatever its other modes gave).

    Not held: a patch whose outputs all lie in the base's set, in this mode or (outside serial
    mode) another (`novelty` 0: `base-nondeterminism`, or a patch more stable than the base on
    the base's outputs, the batch-invariant patch settled on the base's serial answer among
    them); a mode already held (`ALREADY_HELD`); a sampled mode (the distribution test and
    `no-power` judge it); and `both-nondeterministic`, where the base varies too and the
    patch's new outputs are of the kind its own variation gives (DESIGN's category, which
    passes) where its distribution test could tell (`greedy_unpowered`, at `settings.shift`:
    base A, B against patch C, D passed so, its test without power). A stable patch on an
    output a flaky base never gave is not more stable on the base's outputs: it stays
    undecided, and held."""
    if verdict.regression_candidate or verdict.sampled or not verdict.novelty:
        return verdict
    if verdict.category is Category.BOTH_NONDETERMINISTIC and settings is not None:
        return _both_unpowered(verdict, settings)
    if verdict.category is not Category.INCONCLUSIVE:
        return verdict
    if ALREADY_HELD & set(verdict.flags):
        return verdict
    more = verdict.more_samples
    unobserved = not verdict.base.n
    observed = "" if unobserved else " if both sides went on as observed"
    decide = (
        f"{more:,} more sample{'s' if more != 1 else ''} a side would decide it{observed}"
        if more
        else "more samples a side would decide it"
    )
    few = min(verdict.base.n, verdict.patch.n) < 2
    untested = " (no novelty test runs with fewer than 2 observations a side)" if few else ""
    if unobserved:
        untested = (
            " (the base gave no successful answer in this mode, so none of its explains the "
            "patch's)"
        )
    held = (
        "novel-undecided: the patch gave an output the base never gave in this mode and no "
        f"test could decide it at this n{untested}: an output the run cannot explain is no "
        f"evidence of safety, so it clears nothing and fails the run; {decide}"
    )
    return dataclasses.replace(
        verdict, flags=(*verdict.flags, Flag.NOVEL_UNDECIDED), reason=f"{held}; {verdict.reason}"
    )


def greedy_unpowered(kind: str, detectable_shift: float | None, shift: float) -> bool:
    """A greedy mode's non-rejecting distribution test that cannot clear a varying patch's new
    outputs: an MMD test (every output new on both sides: the mode is judged as a sampled one)
    that could not have detected `shift` (`beyond_shift`), or a count test with power against
    no shift at all. The rule `k3diff report`'s check recounts."""
    return beyond_shift(detectable_shift, shift) if kind == "mmd" else detectable_shift is None


def _both_unpowered(verdict: ModeVerdict, settings: Settings) -> ModeVerdict:
    """A greedy `both-nondeterministic` mode with patch outputs the base never gave, held
    `novel-undecided` where its test could not tell (`greedy_unpowered`)."""
    test = verdict.distribution
    could_detect = None if test is None else test.detectable_shift
    if test is not None and not greedy_unpowered(test.kind, could_detect, settings.shift):
        return verdict
    could = (
        "no shift at all"
        if test is None or test.detectable_shift is None
        else f"only {100 * test.detectable_shift:.3g} % of the answers moved"
    )
    # How many more a side, as a no-power hold says it (no test: at α, a least figure).
    level, detectable = (settings.alpha, None) if test is None else (test.level, could_detect)
    more, decide = moresamples.to_detect(
        settings, level, min(verdict.base.n, verdict.patch.n), detectable
    )
    held = (
        "novel-undecided: both sides vary and the patch gave outputs the base "
        f"never gave, but at this n its distribution test could not have detected --shift "
        f"{100 * settings.shift:.3g} % (it had {100 * settings.power:.3g} % power against "
        f"{could}): the base's own variation does not explain them, so it clears nothing and "
        f"fails the run; {decide}"
    )
    return dataclasses.replace(
        verdict,
        category=Category.INCONCLUSIVE,
        flags=(*verdict.flags, Flag.NOVEL_UNDECIDED),
        reason=f"{held}; {verdict.reason}",
        more_samples=more,
    )


def _no_power(verdict: ModeVerdict, why: str) -> ModeVerdict:
    """`verdict` held inconclusive with `Flag.NO_POWER`, its reason led by `why`."""
    return dataclasses.replace(
        verdict,
        category=Category.INCONCLUSIVE,
        flags=(*verdict.flags, Flag.NO_POWER),
        reason=f"inconclusive: the requests sampled, and {why}; {verdict.reason}",
    )


def beyond_shift(detectable_shift: float | None, shift: float) -> bool:
    """A non-rejecting test that could not have detected `shift` (`--shift`): the least shift it
    had the power to detect is larger, or there is none (`detectable_shift` None). The one rule
    of `no-power`, which `k3diff report`'s check recounts from a document's numbers."""
    return detectable_shift is None or detectable_shift > shift


def _underpowered(verdict: ModeVerdict, test: DistributionTest, settings: Settings) -> bool:
    """A sampled mode the test did not make a regression candidate and that is no match (both
    sides stable on one output), where the test could not have detected `settings.shift` at
    this n (`beyond_shift`): the non-rejection is evidence only down to the shift it could
    detect, so it clears nothing (`Flag.NO_POWER`). An undecided record is held too: a patch
    stuck on one new answer at temperature 1 is undecided at a small n, and undecided alone
    passes without --fail-inconclusive. Not a seeded mode judged as one draw, nor a greedy one
    (their tests are not `sampled`)."""
    return (
        test.sampled
        and beyond_shift(test.detectable_shift, settings.shift)
        and not verdict.regression_candidate
        and verdict.category is not Category.MATCH
    )


def _held_underpowered(
    verdict: ModeVerdict, test: DistributionTest, settings: Settings, judged: str
) -> ModeVerdict:
    """`verdict` held `no-power`: what its test could detect, against --shift, and how many
    more samples a side the plan's exact Fisher figure asks for (`more_samples`)."""
    _, not_used = token_notes(test, settings)
    shift = f"{100 * settings.shift:.3g} %"
    if test.detectable_shift is None:
        what = (
            f"at this n the distribution test could not have seen a shift ({judged}; "
            f"{power_text(test, settings)})"
        )
        tail = "as a patch that rewords every answer would pass the same way"
    else:
        token = (
            ""
            if test.first_token is None
            else firsttext.power_text(test.first_token, settings.power)
        )
        powers = f"; {token}" if token else ""
        what = (
            f"at this n its distribution test had {100 * settings.power:.3g} % power only "
            f"against {100 * test.detectable_shift:.3g} % of the patch's answers moved to one "
            f"answer the base does not give, above --shift {shift} ({judged}; "
            f"{level_text(test, settings)}{powers})"
        )
        tail = f"as a patch that moves {shift} of its answers could pass the same way"
    n = min(verdict.base.n, verdict.patch.n)
    more, decide = moresamples.to_detect(settings, test.level, n, test.detectable_shift)
    if unbatched(verdict):
        more = None
        decide = f"{decide} in a run whose batches are proven to overlap ({UNBATCHED_TEXT})"
    why = f"{what}{not_used}: its non-rejection clears nothing, {tail}; {decide}"
    held = dataclasses.replace(verdict, distribution=test, more_samples=more)
    return _no_power(held, why)


def _settled_on_oracle(verdict: ModeVerdict, test: DistributionTest, oracle: str | None) -> bool:
    """A greedy mode's patch gives only the base's stable serial output, and the base varies
    here (`apply`'s `oracle`)."""
    return (
        oracle is not None
        and not test.sampled
        and not verdict.regression_candidate
        and verdict.base.unstable
        and verdict.patch.stable
        and verdict.patch.modal_output == oracle
    )

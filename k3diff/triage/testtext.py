"""A distribution test in the words a verdict states (`shiftverdict`): the test and its p-values,
what its pooled test or first-token test added, and the power it had at the level it is judged
at (`sampledlevel`: a sampled mode's test shares α with its novelty test)."""

from __future__ import annotations

from k3diff.triage import distribution as dist
from k3diff.triage import firsttext
from k3diff.triage import kernel as text_kernel
from k3diff.triage.distribution import DistributionTest
from k3diff.triage.sampledlevel import SAMPLED_FAMILIES, alpha_text, judged_at
from k3diff.triage.settings import Settings


def test_text(test: DistributionTest, settings: Settings) -> str:
    """'MMD test (`kernel.PROSE`, 9,999 label permutations, seed 0): MMD² = 0.21, p = 0.0001,
    holm 0.0004; pooled over 3 records p = 0.0001, holm 0.0004'."""
    name = settings.correction.value
    if test.kind == "mmd":
        # A rounding error of the kernel sums, never a negative MMD² (-5.55e-17 read as one).
        mmd = 0.0 if abs(test.statistic) <= dist.MMD_ZERO else test.statistic
        head = (
            f"MMD test ({text_kernel.PROSE}, "
            f"{test.permutations or 0:,} label permutations, seed {dist.SEED}): MMD² = "
            f"{mmd:.3g}, p = {test.p:.3g}, {name} {test.p_adjusted:.3g}"
        )
    else:
        how = (
            "exact" if test.exact else f"{test.permutations or 0:,} permutations, seed {dist.SEED}"
        )
        head = (
            f"count test ({how}): {test.statistic:.0f} patch samples are not the base's most "
            f"common output, p = {test.p:.3g}, {name} {test.p_adjusted:.3g}"
        )
    if test.pooled_p is not None and test.pooled_p_adjusted is not None:
        how = "labels permuted within each"
        if test.kind == "counts":
            how = (
                "count statistics summed; exact, the records' laws convolved"
                if test.pooled_exact
                else f"count statistics summed; {how}, {test.permutations or 0:,} times"
            )
        head += (
            f"; pooled over {test.pooled_records:,} records ({how}) "
            f"p = {test.pooled_p:.3g}, {name} {test.pooled_p_adjusted:.3g}"
        )
        if test.pooled_not_its_own and test.pooled_p_adjusted <= judged_at(
            settings.alpha, test.sampled
        ):
            own = (
                "its patch gave only the base's most common output (on a tie, one of them)"
                if test.kind == "counts"
                else "this record's MMD² is 0, its sides agree"
            )
            head += f" (another record's shift: {own})"
    if test.first_token is not None and test.first_token.used:
        head += "; " + firsttext.tested_text(
            test.first_token, name, judged_at(settings.alpha, test.sampled)
        )
    return head


def pooled_only_text(test: DistributionTest, settings: Settings) -> str:
    """'; this rejection is the mode's pooled test's alone (...): ... most of the pooled MMD²
    from p1 (78 %), p2 (11 %)' for a record its own tests do not reject, flagged because its
    mode's pooled test does (stop 61); "" otherwise."""
    alpha = judged_at(settings.alpha, test.sampled)
    token = test.first_token is not None and test.first_token.rejects(alpha)
    pooled = test.pooled_p_adjusted
    if token or test.p_adjusted <= alpha or pooled is None or pooled > alpha:
        return ""
    statistic = "MMD²" if test.kind == "mmd" else "count statistic"
    leaders = ", ".join(f"{key} ({100 * share:.2g} %)" for key, share in test.pooled_leaders)
    most = f"; most of the pooled {statistic} from {leaders}" if leaders else ""
    return (
        f"; this rejection is the mode's pooled test's alone (this record's own test: "
        f"{settings.correction.value} {test.p_adjusted:.3g} > {alpha_text(settings.alpha, test.sampled)}): "
        "the pooled test "
        f"says some record of the {test.pooled_records:,} moved, not which{most}"
    )


def token_notes(test: DistributionTest, settings: Settings) -> tuple[str, str]:
    """(what the first-token test saw moved, or "", why it was not used, or "")."""
    token = test.first_token
    if token is None:
        return "", ""
    alpha = judged_at(settings.alpha, test.sampled)
    if not token.used:
        return "", f"; {firsttext.tested_text(token, settings.correction.value, alpha)}"
    return firsttext.moved_text(token, alpha), ""


def power_text(test: DistributionTest, settings: Settings) -> str:
    """What the test could have detected at this n."""
    how = f"({level_text(test, settings)})"
    if test.detectable_shift is None:
        text = (
            f"at this n it had less than {100 * settings.power:.3g} % power against any shift of "
            f"the answers to a new answer, however large {how}"
        )
    else:
        text = (
            f"it had {100 * settings.power:.3g} % power against {100 * test.detectable_shift:.3g}"
            f" % of the patch's answers moved to one answer the base does not give {how}"
        )
    token = (
        "" if test.first_token is None else firsttext.power_text(test.first_token, settings.power)
    )
    return f"{text}; {token}" if token else text


def level_text(test: DistributionTest, settings: Settings) -> str:
    """'at α / 4 tests = 0.0125; the permutation test itself on 500 simulated patches ...'
    ('at α / 2 / 4 tests = 0.00625' for a sampled mode: α shared with its novelty test)."""
    share = f"α / {SAMPLED_FAMILIES} (shared with the novelty test) / " if test.sampled else "α / "
    return f"at {share}{_tests(test, settings)} = {test.level:.3g}; {_simulated(test)}"


def _simulated(test: DistributionTest) -> str:
    """How the stated power was found (`power.detectable_shift`)."""
    draws = f"{dist.SIMULATIONS:,} simulated patches per size"
    if test.kind == "counts":
        return f"the count test itself on {draws} drawn from the base's own samples"
    return (
        f"the permutation test itself on {draws} drawn from the base's own samples (a bootstrap"
        " of the MMD² from the pooled law where that is too costly), the new answer as like the"
        " base's answers under the test's kernel, on average, as the most typical of them is"
        " like the others (one closer, a smaller rewording, is detected less often)"
    )


def _tests(test: DistributionTest, settings: Settings) -> str:
    return f"{round(judged_at(settings.alpha, test.sampled) / test.level):,} tests"

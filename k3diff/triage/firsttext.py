"""The first-token test's sentences (`k3diff.triage.firsttoken`): what moved, what was tested,
what it could have detected, or why it was not used."""

from __future__ import annotations

from k3diff.triage.distribution import SEED, SIMULATIONS
from k3diff.triage.firstverdict import OTHER, FirstTokenTest, FitTest


def fit_moved(test: FitTest) -> str:
    """ "first token ' The': patch 30 of 36, base reports p = 0.42, the patch itself 0.83"."""
    token = test.token if test.token == OTHER else repr(test.token)
    text = (
        f"first token {token}: {test.side} {test.count} of {test.n}, {test.against} reports "
        f"p = {test.reported:.3g}"
    )
    if test.side != test.against:
        itself = "none" if test.other_reported is None else f"{test.other_reported:.3g}"
        text += f", the {test.side} itself {itself}"
    return text


def moved_text(test: FirstTokenTest, alpha: float) -> str:
    """What moved: the cross test's furthest token, and whether the patch samples what it
    reports (from each fit test that rejects, or whose mode's pooled test rejects and that the
    record added to)."""
    pooled = {t.test for t in test.pooled if t.its_own and t.p_adjusted <= alpha}
    cross, own = (
        t is not None and (t.p_adjusted <= alpha or name in pooled)
        for name, t in (("cross", test.cross), ("patch_own", test.patch_own))
    )
    sampler = "its sampler does not sample what it reports"
    if cross and test.cross is not None:
        why = sampler if own else "its model's first-token distribution moved"
        return f"{fit_moved(test.cross)} ({why})"
    if own and test.patch_own is not None:
        return f"{fit_moved(test.patch_own)} ({sampler})"
    return ""


def tested_text(test: FirstTokenTest, correction: str, alpha: float) -> str:
    """'first-token test (G against the base's reported first-token probabilities, 9,999
    multinomial draws, seed 0): p = 0.0001, holm 0.0003; ...' or why it was not used."""
    if not test.used or test.cross is None:
        return f"first-token test not used: {test.why_not}"
    cross = test.cross
    text = (
        f"first-token test (G against the base's reported first-token probabilities, "
        f"{test.draws:,} multinomial draws, seed {SEED}): p = {cross.p:.3g}, {correction} "
        f"{cross.p_adjusted:.3g}"
    )
    if test.patch_own is not None:
        own = test.patch_own
        text += (
            f"; patch against its own reports p = {own.p:.3g}, {correction} {own.p_adjusted:.3g}"
        )
    for pooled in test.pooled:
        what = "the base's reports" if pooled.test == "cross" else "its own reports"
        text += (
            f"; pooled over {pooled.records:,} records against {what} p = {pooled.p:.3g}, "
            f"{correction} {pooled.p_adjusted:.3g}"
        )
        if pooled.p_adjusted <= alpha and not pooled.its_own:
            text += " (other records' shift: this record's own p is at least 1/2)"
    return text


def power_text(test: FirstTokenTest, power: float) -> str:
    """What the cross test could have detected (empty when it was not used)."""
    if not test.used or test.mode_token is None:
        return ""
    mode = f"{test.mode_token!r} (reported p = {test.mode_p:.3g})"
    if test.detectable is None:
        return f"the first-token test could detect no sharpening onto the most likely {mode}"
    return (
        f"the first-token test had {100 * power:.3g} % power against a total variation of "
        f"{test.detectable:.3g} moved onto the base's most likely first token {mode} (at "
        f"{test.level:.3g}; simulated, {SIMULATIONS:,} draws per size from the base's reports)"
    )

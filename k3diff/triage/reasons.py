"""The one sentence each mode verdict carries, with its numbers: every count is of requests
actually sent in that mode (and says "captured" where `--capture-mode` counts the capture)."""

from __future__ import annotations

from collections.abc import Callable

from k3diff.sample.gaugeadvice import gauge_advice
from k3diff.sample.names import Mode
from k3diff.triage import stats
from k3diff.triage.model import Category, Settings
from k3diff.triage.observations import Adjusted, ModeEvidence
from k3diff.triage.sampledlevel import alpha_text
from k3diff.triage.sides import SideStats


def _count(side: SideStats) -> str:
    return f"{side.n} ({side.n - 1} sent + 1 captured)" if side.captured else str(side.n)


def _side_text(side: SideStats) -> str:
    failed = f" ({side.errors} failed)" if side.errors else ""
    if side.n == 0:
        return f"no successful request{failed}"
    if side.distinct == 1:
        return f"1 output in {_count(side)}{failed}"
    return f"{side.distinct} distinct outputs in {_count(side)}{failed}"


def _caveat(name: str, side: SideStats, more: int | None, settings: Settings) -> str:
    # Only a side not proven unstable gets a caveat, and `more` then counts for it (an int).
    if side.nonmodal_bound <= settings.bound:
        return (
            f"{_count(side)} agreeing {name} observations bound its non-modal mass by "
            f"{side.nonmodal_bound:.2f} at α = {settings.alpha:g}"
        )
    return (
        f"caveat: {_count(side)} agreeing {name} observations bound its non-modal mass only by "
        f"{side.nonmodal_bound:.2f} at α = {settings.alpha:g}; {more} more per side "
        f"would bound it by {settings.bound:g}"
    )


def _judged(adjusted: Adjusted, settings: Settings) -> str:
    """'α = 0.05', or for a sampled mode 'α / 2 = 0.025 (the novelty test shares α with the
    distribution test; the Fisher test is supporting evidence)'."""
    if not adjusted.sampled:
        return alpha_text(settings.alpha, False)
    return (
        f"{alpha_text(settings.alpha, True)} (the novelty test shares α with the distribution "
        "test; the Fisher test is supporting evidence)"
    )


def _novelty_text(ev: ModeEvidence, adjusted: Adjusted, settings: Settings) -> str:
    if ev.novelty is None:
        return "no novelty test"
    corrected = "" if adjusted.novelty is None else f", {settings.correction.value} "
    corrected += "" if adjusted.novelty is None else f"{adjusted.novelty:.3g}"
    return f"novelty p = {ev.novelty.p:.3g}{corrected}"


def _novel_count(ev: ModeEvidence) -> str:
    """'3 of its 3 samples gave outputs' (the reason goes on: 'the base never gave')."""
    count = ev.novelty.statistic if ev.novelty is not None else 0
    return (
        f"{count} of its {_count(ev.patch)} samples gave {'outputs' if count != 1 else 'an output'}"
    )


def reason(
    category: Category,
    ev: ModeEvidence,
    adjusted: Adjusted,
    more: int | None,
    settings: Settings,
    unexercised: bool = False,
    unknown: bool = False,
) -> str:
    """The mode's one sentence, every number counting requests actually sent, ending with what
    the patch's samples could have seen."""
    if category is Category.INCONCLUSIVE and (ev.base.n < 2 or ev.patch.n < 2):
        text = _too_few(ev)
    elif unexercised or unknown:
        text = _not_exercised(ev, category, adjusted, more, settings)
    else:
        text = _REASONS[category](ev, adjusted, more, settings)
    return f"{text}; {detectable_text(ev.patch, settings.power)}" if ev.patch.n else text


def detectable_text(side: SideStats, power: float) -> str:
    """'with 16 patch samples, an output the patch gives at least 9.6 % of the time would
    have been seen with 80 % power' (empty without patch samples)."""
    theta = stats.detectable_rate(side.n, power)
    if theta is None:
        return ""
    plural = "s" if side.n != 1 else ""
    return (
        f"with {_count(side)} patch sample{plural}, an output the patch gives at least "
        f"{100 * theta:.3g} % of the time would have been seen with {100 * power:.3g} % power"
    )


def _not_exercised(
    ev: ModeEvidence, category: Category, adjusted: Adjusted, more: int | None, settings: Settings
) -> str:
    if ev.mode == Mode.COLD_WARM:
        cold = [
            f"{name} 0 cache hits in {side.warm} warm samples"
            for name, side in (("base", ev.base), ("patch", ev.patch))
            if side.warm and not side.cache_hits
        ]
        hot = [
            f"{name} {side.cold_cached} cold requests already cached"
            for name, side in (("base", ev.base), ("patch", ev.patch))
            if side.cold_cached
        ]
        if cold:
            head = (
                f"not-exercised: no warm request hit the cache ({', '.join(cold)}; cached "
                "prompt tokens from the server's usage), so this mode clears nothing"
            )
        else:
            head = (
                f"not-exercised: the cold request was not cold ({', '.join(hot)}: the server "
                "ignored cache_salt or kept the prompt; use --flush-url), so this mode clears "
                "nothing"
            )
    elif ev.base.one_at_a_time or ev.patch.one_at_a_time:
        by_gauge = all(s.server_one_at_a_time == s.one_at_a_time for s in (ev.base, ev.patch))
        who = "the server handled them" if by_gauge else "they were answered"
        counts = _batch_counts(ev)
        head = f"not-exercised: {who} one at a time ({counts}), so this mode clears nothing"
    elif failed := _all_unproven(ev, lambda side: side.load_failed):
        head = (
            f"unproven: the background load failed ({failed}: every background "
            "request that ended while the target was in flight failed), so these targets were "
            "not sent under the load the run claims and this mode clears nothing"
        )
    elif idle := _all_unproven(ev, lambda side: side.load_idle):
        head = (
            f"unproven: no background request ended while the target was in flight ({idle}: "
            "load_ended 0), so nothing shows the load overlapped them and no running-requests "
            "gauge reading shows the server ran them with other requests; this mode clears "
            f"nothing; {_gauge_step(ev, settings)}"
        )
    else:
        unit = "loaded targets" if ev.mode == Mode.LOADED else "batches"
        unproven = _per_side(ev, lambda side: side.unproven, unit)
        head = (
            f"unproven: no running-requests gauge reading in {unproven}, and "
            "neither whole answers nor streams interleaving at the client show that the server "
            "worked on them together (a serial server behind a front end that paces or buffers "
            "its answers interleaves them too); this mode clears nothing: only the server's "
            "running-requests gauge proves a batch (vllm:num_requests_running, "
            "sglang:num_running_reqs, tgi_batch_current_size or TensorRT-LLM's "
            f"numActiveRequests: docs/evidence-conditions.md); {_gauge_step(ev, settings)}"
        )
    if category is Category.INCONCLUSIVE:
        return f"{head}; the base gave {_side_text(ev.base)} and the patch {_side_text(ev.patch)}"
    return f"{head}; {_REASONS[category](ev, adjusted, more, settings)}"


def _gauge_step(ev: ModeEvidence, settings: Settings) -> str:
    """What would prove the mode's batches: the gauge, where the server has one, or nothing
    where it was asked and has none (`transformers serve`: left67b, the reason said to add
    --metrics-url, which such a server cannot serve)."""
    # triage69, left69: a --metrics-url given that answered 404 or without the gauge is to be
    # checked (it said to add the one the user had given, or that none could help)
    return gauge_advice(
        f"--mode {ev.mode}",
        settings.gaugeless,
        settings.metrics_url_404,
        settings.metrics_url_no_gauge,
    ) or (
        "sample again, adding --metrics-url URL to the sample command, where the server has one "
        "(--mode serial still checks batch-1 parity)"
    )


def _too_few(ev: ModeEvidence) -> str:
    short = [name for name, side in (("base", ev.base), ("patch", ev.patch)) if side.n < 2]
    return (
        f"too few observations: base {_side_text(ev.base)}, patch {_side_text(ev.patch)}; the "
        f"{' and '.join(short)} {'needs' if len(short) == 1 else 'need'} at least 2 successful ones ({ev.more_samples} more per "
        "side to be decisive)"
    )


def _undecided(ev: ModeEvidence, adjusted: Adjusted, more: int | None, settings: Settings) -> str:
    follow_up = (
        f"{more} more per side would decide if both sides went on as observed"
        if more is not None
        else "more samples of this kind would not decide it"
    )
    caveat = "; " + _caveat("patch", ev.patch, ev.more_samples, settings) if ev.patch.stable else ""
    tests = _novelty_text(ev, adjusted, settings)
    if ev.base.stable and ev.p is not None:  # the patch looks less stable: Fisher's test too
        fisher = "" if adjusted.fisher is None else f", {settings.correction.value} "
        fisher += "" if adjusted.fisher is None else f"{adjusted.fisher:.3g}"
        tests = f"Fisher p = {ev.p:.3g}{fisher}; {tests}"
    return (
        f"undecided: the base gave {_side_text(ev.base)} identical requests and the patch "
        f"{_side_text(ev.patch)}; {_novel_count(ev)} the base never gave, but that is not "
        f"significant ({tests} > {_judged(adjusted, settings)}): {follow_up}{caveat}"
    )


def _base_nondeterminism(
    ev: ModeEvidence, adjusted: Adjusted, more: int | None, settings: Settings
) -> str:
    base, patch = _side_text(ev.base), _side_text(ev.patch)
    caveat = _caveat("patch", ev.patch, ev.more_samples, settings)
    if ev.base.stable:
        return (
            f"not a regression: the base gave {base} identical requests in this mode, but the "
            "patch's output is the one the base gave in its other modes, so the difference comes "
            f"from the base's dependence on the conditions; the patch gave {patch}; {caveat}"
        )
    where = " (counting its other modes)" if ev.known & ev.patch.outputs else ""
    return (
        f"not a regression: the base gave {base} identical requests and every output the "
        f"patch gave in this mode is one the base gave{where}, so the mismatch is not "
        "attributable to the patch; "
        f"the patch gave {patch}; {caveat}"
    )


def _outside_base(
    ev: ModeEvidence, adjusted: Adjusted, more: int | None, settings: Settings
) -> str:
    return (
        f"regression candidate: the base gave {_side_text(ev.base)} identical requests and the "
        f"patch {_side_text(ev.patch)}; {_novel_count(ev)} the base never gave "
        f"({_novelty_text(ev, adjusted, settings)} ≤ {_judged(adjusted, settings)})"
    )


def _both(ev: ModeEvidence, adjusted: Adjusted, more: int | None, settings: Settings) -> str:
    outside = (
        f"; {_novel_count(ev)} the base never gave, not significantly "
        f"({_novelty_text(ev, adjusted, settings)})"
        if ev.outside
        else ""
    )
    return (
        f"both sides are nondeterministic: base {_side_text(ev.base)}, patch "
        f"{_side_text(ev.patch)}{outside}"
    )


def _patch_nondeterminism(
    ev: ModeEvidence, adjusted: Adjusted, more: int | None, settings: Settings
) -> str:
    p_text = "" if ev.p is None else f"Fisher p = {ev.p:.3g}"
    if ev.p is not None and adjusted.fisher is not None:
        p_text += f", {settings.correction.value} {adjusted.fisher:.3g}"
    if adjusted.significant(settings.alpha) or adjusted.novel(settings.alpha, ev.outside):
        verdict = "regression candidate: significant"
    else:
        verdict = f"not significant at {_judged(adjusted, settings)}, more samples needed"
    if ev.outside:
        p_text += f"; {_novelty_text(ev, adjusted, settings)}"
    return (
        f"the base gave {_side_text(ev.base)}, the patch {_side_text(ev.patch)} ({p_text}): "
        f"{verdict}"
    )


def _match(ev: ModeEvidence, adjusted: Adjusted, more: int | None, settings: Settings) -> str:
    return (
        f"both sides stable on the same output (base {_side_text(ev.base)}, patch "
        f"{_side_text(ev.patch)})"
    )


def _divergence(ev: ModeEvidence, adjusted: Adjusted, more: int | None, settings: Settings) -> str:
    return (
        "regression candidate: both sides stable and the outputs differ (base "
        f"{_side_text(ev.base)}, patch {_side_text(ev.patch)}); "
        + _caveat("base", ev.base, ev.more_samples, settings)
    )


_REASONS: dict[Category, Callable[[ModeEvidence, Adjusted, int | None, Settings], str]] = {
    Category.DETERMINISTIC_DIVERGENCE: _divergence,
    Category.PATCH_OUTSIDE_BASE: _outside_base,
    Category.PATCH_NONDETERMINISM: _patch_nondeterminism,
    Category.INCONCLUSIVE: _undecided,
    Category.BOTH_NONDETERMINISTIC: _both,
    Category.BASE_NONDETERMINISM: _base_nondeterminism,
    Category.MATCH: _match,
}
"""One sentence per category (an inconclusive mode with too few samples has its own)."""


def _all_unproven(ev: ModeEvidence, count: Callable[[SideStats], int]) -> str:
    """When some side's unproven batches are all loaded targets of one kind (`count`: load
    failed, or no load ended) and so are the other side's, their per-side counts ("base 2 of 2
    targets, ..."); else "" (the general unproven reason applies)."""
    sides = (ev.base, ev.patch)
    if not any(map(count, sides)) or any(side.unproven != count(side) for side in sides):
        return ""
    return _per_side(ev, count, "targets")


def _per_side(ev: ModeEvidence, count: Callable[[SideStats], int], noun: str) -> str:
    """'base 2 of 4 NOUN, patch 1 of 4 NOUN': each side's `count` out of its batches, for the
    sides where it counts any."""
    return ", ".join(
        f"{name} {count(side)} of {side.batches} {noun}"
        for name, side in (("base", ev.base), ("patch", ev.patch))
        if count(side)
    )


def _batch_counts(ev: ModeEvidence) -> str:
    """'base 4 of 4 batches never overlapped (token windows 4), patch ...': per side, the
    batches proven one at a time and what decided them."""
    parts = []
    for name, side in (("base", ev.base), ("patch", ev.patch)):
        if not side.one_at_a_time:
            continue
        how = [
            f"gauge read 1 in {side.server_one_at_a_time}" if side.server_one_at_a_time else "",
            f"decided by token windows in {side.by_token_windows}" if side.by_token_windows else "",
            f"{side.unproven} unproven" if side.unproven else "",
        ]
        shown = ", ".join(part for part in how if part)
        parts.append(
            f"{name} {side.one_at_a_time} of {side.batches} batches never overlapped"
            + (f": {shown}" if shown else "")
        )
    return "; ".join(parts)

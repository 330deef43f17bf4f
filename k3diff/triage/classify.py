"""From observations to categories: per side, per mode, then per record (most severe wins).

A mode's verdict is decided in two steps because the correction of the Fisher p-values needs
every record's p first: `evidence` gathers one mode's numbers, `decide` turns them into a
`ModeVerdict` once the adjusted p is known.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence

from k3diff.sample.names import SIDES, Mode
from k3diff.triage import stats
from k3diff.triage.model import Category, Flag, ModeVerdict, Settings
from k3diff.triage.observations import Adjusted, ModeEvidence, SideObservations
from k3diff.triage.reasons import reason
from k3diff.triage.sides import CacheCounts, SideStats

SERIAL = Mode.SERIAL.value
CONCURRENT_MODES = frozenset(
    mode.value for mode in (Mode.CONCURRENT, Mode.LOADED, Mode.SWEEP, Mode.NEEDLE, Mode.MIXED)
)
COLD_WARM = Mode.COLD_WARM.value


def side_stats(observations: SideObservations, alpha: float) -> SideStats:
    """Counts, bound and interval of one side."""
    outputs = observations.outputs
    counts = Counter(outputs)
    modal_output, modal = counts.most_common(1)[0] if counts else (None, 0)
    deviations = stats.Deviations.of(len(outputs), modal)
    return SideStats(
        n=len(outputs),
        errors=observations.errors,
        modal=modal,
        nonmodal_bound=stats.nonmodal_upper_bound(deviations, alpha),
        deviation_ci=stats.deviation_interval(deviations, alpha),
        outputs=frozenset(counts),
        modal_output=modal_output,
        captured=observations.captured is not None,
        modal_outputs=frozenset(o for o, count in counts.items() if count == modal),
        overlap=observations.overlap,
        cache=observations.cache,
    )


CLEARING = frozenset({Category.MATCH, Category.BASE_NONDETERMINISM})
"""Categories that clear a record: a mode whose axis was not exercised never gives them."""


def not_exercised(ev: ModeEvidence) -> bool:
    """A batch of the mode (either side) had its requests answered one at a time (the gauge
    read 1, or its streams never interleaved), or a cold-warm side's warm samples never hit the
    cache."""
    if ev.mode == COLD_WARM:
        return any(
            (side.warm and not side.cache_hits) or side.cold_cached for side in (ev.base, ev.patch)
        )
    return ev.mode != SERIAL and bool(ev.base.one_at_a_time or ev.patch.one_at_a_time)


def unproven(ev: ModeEvidence) -> bool:
    """A batch of the mode (either side) whose overlap nothing could prove (no gauge reading;
    whole answers, or streams that interleaved at the client): it clears nothing either."""
    return ev.mode not in (SERIAL, COLD_WARM) and bool(ev.base.unproven or ev.patch.unproven)


def cache_dependent(cache: CacheCounts) -> bool:
    """cold-warm, cache hits proven: a cold output is not among the warm ones (each cold
    request's: a resumed run's first repeat of a record is one too, left67)."""
    return cache.hits > 0 and not cache.cold_outputs <= cache.warm_outputs


def first_request_differs(sequence: Sequence[str | None]) -> bool:
    """The first sample succeeded and differs from the rest, which are >= 2 and all agree."""
    if not sequence or sequence[0] is None:
        return False
    rest = {digest for digest in sequence[1:] if digest is not None}
    agreeing = sum(1 for digest in sequence[1:] if digest is not None)
    return agreeing >= 2 and len(rest) == 1 and sequence[0] not in rest


def evidence(
    mode: str,
    base: SideObservations,
    patch: SideObservations,
    settings: Settings,
    base_elsewhere: frozenset[str] = frozenset(),
) -> ModeEvidence:
    """One mode's numbers and flags. `base_elsewhere` holds the base's outputs in its other
    modes: outside serial mode a patch output the base gave under other conditions is the base's
    (serial mode, the batch-1 oracle, is judged on its own samples only)."""
    base_stats = side_stats(base, settings.alpha)
    patch_stats = side_stats(patch, settings.alpha)
    known = frozenset() if mode == SERIAL else base_elsewhere - base_stats.outputs
    flags: list[Flag] = []
    if base_stats.unstable and patch_stats.n:
        inside = patch_stats.outputs <= base_stats.outputs | known
        flags.append(Flag.PATCH_INSIDE_BASE_SET if inside else Flag.PATCH_OUTSIDE_BASE_SET)
    if first_request_differs(base.sequence) or first_request_differs(patch.sequence):
        flags.append(Flag.FIRST_REQUEST_DIFFERS)
    if mode == COLD_WARM and any(cache_dependent(obs.cache) for obs in (base, patch)):
        flags.append(Flag.CACHE_DEPENDENT)
    if base_stats.errors or patch_stats.errors:
        flags.append(Flag.ERRORS_PRESENT)
    needed = stats.samples_for_bound(settings.bound, settings.alpha)
    more = [max(0, needed - side.n) for side in (base_stats, patch_stats) if not side.unstable]
    counts = Counter(base.outputs)
    novelty = stats.novelty_test(patch.outputs, base.outputs, known)
    return ModeEvidence(
        mode=mode,
        base=base_stats,
        patch=patch_stats,
        flags=tuple(flags),
        p=stats.fisher_patch_less_stable(
            stats.Deviations.of(patch_stats.n, patch_stats.modal),
            stats.Deviations.of(base_stats.n, base_stats.modal),
        ),
        good_turing_base=stats.good_turing_missing_mass(list(counts.values())),
        more_samples=max(more) if more else None,
        novelty=novelty,
        novel_untested=(
            None if novelty is not None else stats.novel_count(patch.outputs, base.outputs, known)
        ),
        known=known,
        patch_outputs=tuple(patch.outputs),
        base_outputs=tuple(base.outputs),
    )


def _category(ev: ModeEvidence, novel: bool) -> Category:
    base, patch = ev.base, ev.patch
    if base.n < 2 or patch.n < 2:
        return Category.INCONCLUSIVE
    if base.stable and patch.stable:
        if base.modal_output == patch.modal_output:
            return Category.MATCH
        return Category.BASE_NONDETERMINISM if not ev.outside else Category.DETERMINISTIC_DIVERGENCE
    if base.stable:
        return Category.PATCH_NONDETERMINISM
    if novel:
        return Category.PATCH_OUTSIDE_BASE
    if patch.unstable:
        return Category.BOTH_NONDETERMINISTIC
    return Category.INCONCLUSIVE if ev.outside else Category.BASE_NONDETERMINISM


def decide(ev: ModeEvidence, adjusted: Adjusted, settings: Settings) -> ModeVerdict:
    """The mode's verdict, once its corrected p-values are known."""
    significant = adjusted.significant(settings.alpha)
    novel = adjusted.novel(settings.alpha, ev.outside)
    category = _category(ev, novel)
    if category is Category.PATCH_NONDETERMINISM and not (significant or novel):
        # Less stable on this evidence, but neither test can say so yet: undecided, so the
        # INCONCLUSIVE line counts it and --fail-inconclusive fails it, never a quiet pass.
        category = Category.INCONCLUSIVE
    flags = ev.flags
    unexercised = not_exercised(ev)
    unknown = unproven(ev) and not unexercised
    if unexercised or unknown:
        flags = (*flags, Flag.NOT_EXERCISED if unexercised else Flag.UNPROVEN)
        if category in CLEARING or category is Category.BOTH_NONDETERMINISTIC:
            category = Category.INCONCLUSIVE
    candidate = category in (Category.DETERMINISTIC_DIVERGENCE, Category.PATCH_OUTSIDE_BASE) or (
        category is Category.PATCH_NONDETERMINISM and (significant or novel)
    )
    # A mode not exercised or unproven clears nothing however many samples it takes: only a
    # run the server batches (or whose gauge proves it) would decide it, never "N more".
    more: int | None = None if unexercised or unknown else ev.more_samples
    # Its novelty count neither (newuser67: an unproven mode of new answers asked for "4 more").
    undecided = category is Category.INCONCLUSIVE and ev.outside and not (unexercised or unknown)
    if undecided and min(ev.base.n, ev.patch.n) >= 2:
        level = adjusted.novelty_alpha(settings.alpha) / max(1, adjusted.novelty_tests)
        more = stats.novelty_samples_to_decide(ev.patch_outputs, ev.base_outputs, ev.known, level)
    return ModeVerdict(
        mode=ev.mode,
        category=category,
        flags=flags,
        reason=reason(category, ev, adjusted, more, settings, unexercised, unknown),
        base=ev.base,
        patch=ev.patch,
        p=ev.p,
        p_adjusted=adjusted.fisher,
        novelty=ev.novel,
        novelty_p=None if ev.novelty is None else ev.novelty.p,
        novelty_p_adjusted=adjusted.novelty,
        novelty_exact=None if ev.novelty is None else ev.novelty.exact,
        good_turing_base=ev.good_turing_base,
        more_samples=more,
        regression_candidate=candidate,
        detectable=stats.detectable_rate(ev.patch.n, settings.power),
    )


COMPOSITION_MODES = frozenset({Mode.NEEDLE.value, Mode.MIXED.value})


def composition_dependent(outputs: Mapping[str, Mapping[str, Sequence[str]]]) -> bool:
    """`concurrency_dependent` for the batch-composition modes (needle, mixed) only."""
    return concurrency_dependent(outputs, COMPOSITION_MODES)


def concurrency_dependent(
    outputs: Mapping[str, Mapping[str, Sequence[str]]],
    modes: frozenset[str] = CONCURRENT_MODES,
) -> bool:
    """A side whose serial samples (>= 2) all agree gives another output in a concurrent or
    loaded sample. `outputs`: mode -> side -> successful sample outputs; samples alone, never
    the capture (whatever `--capture-mode` says)."""
    serial = outputs.get(SERIAL, {})
    for name in SIDES:
        alone = set(serial.get(name, ()))
        if len(serial.get(name, ())) < 2 or len(alone) != 1:
            continue
        for mode in modes:
            if set(outputs.get(mode, {}).get(name, ())) - alone:
                return True
    return False

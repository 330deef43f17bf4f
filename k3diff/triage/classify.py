"""From observations to categories: per side, per mode, then per record (most severe wins).

A mode's verdict is decided in two steps because the correction of the Fisher p-values needs
every record's p first: `evidence` gathers one mode's numbers, `decide` turns them into a
`ModeVerdict` once the adjusted p is known.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from k3diff.triage import stats
from k3diff.triage.model import Category, Flag, ModeVerdict, Settings, SideStats

SERIAL = "serial"
CONCURRENT_MODES = frozenset({"concurrent", "loaded"})


@dataclass(frozen=True)
class SideObservations:
    """What one side did for one key in one mode."""

    sequence: tuple[str | None, ...]
    """Sample outputs in request order (None for a failed sample)."""
    captured: str | None = None
    """The comparison's captured output when `--capture-mode` counts it as an observation of
    this mode (None otherwise: the capture is evidence of its own)."""

    @property
    def outputs(self) -> list[str]:
        """Every successful observation."""
        found = [digest for digest in self.sequence if digest is not None]
        return found if self.captured is None else [self.captured, *found]

    @property
    def errors(self) -> int:
        """Failed samples."""
        return sum(1 for digest in self.sequence if digest is None)


@dataclass(frozen=True)
class ModeEvidence:
    """One mode's numbers before the correction across records."""

    mode: str
    base: SideStats
    patch: SideStats
    flags: tuple[Flag, ...]
    p: float | None
    good_turing_base: float | None
    more_samples: int
    novelty: stats.Novelty | None = None
    """The novelty test of this mode's samples (None: nothing to test)."""
    known: frozenset[str] = frozenset()
    """Base outputs of the other modes that count as the base's (not for serial mode)."""
    patch_outputs: tuple[str, ...] = ()
    """The patch's observations, for sizing a follow-up."""
    base_outputs: tuple[str, ...] = ()
    """The base's observations, for sizing a follow-up."""

    @property
    def outside(self) -> bool:
        """The patch gave an output the base never gave (in this mode, or in another one)."""
        return not self.patch.outputs <= self.base.outputs | self.known


def side_stats(observations: SideObservations, alpha: float) -> SideStats:
    """Counts, bound and interval of one side."""
    outputs = observations.outputs
    counts = Counter(outputs)
    modal_output, modal = counts.most_common(1)[0] if counts else (None, 0)
    deviations = stats.Deviations.of(len(outputs), modal)
    return SideStats(
        n=len(outputs),
        errors=observations.errors,
        distinct=len(counts),
        modal=modal,
        modal_share=modal / len(outputs) if outputs else None,
        nonmodal_bound=stats.nonmodal_upper_bound(deviations, alpha),
        deviation_ci=stats.deviation_interval(deviations, alpha),
        outputs=frozenset(counts),
        modal_output=modal_output,
        captured=observations.captured is not None,
        modal_outputs=frozenset(o for o, count in counts.items() if count == modal),
    )


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
    if base_stats.errors or patch_stats.errors:
        flags.append(Flag.ERRORS_PRESENT)
    needed = stats.samples_for_bound(settings.bound, settings.alpha)
    more = [max(0, needed - side.n) for side in (base_stats, patch_stats) if not side.unstable]
    counts = Counter(base.outputs)
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
        more_samples=max(more, default=0),
        novelty=stats.novelty_test(patch.outputs, base.outputs, known),
        known=known,
        patch_outputs=tuple(patch.outputs),
        base_outputs=tuple(base.outputs),
    )


def _count(side: SideStats) -> str:
    return f"{side.n} ({side.n - 1} sent + 1 captured)" if side.captured else str(side.n)


def _side_text(side: SideStats) -> str:
    failed = f" ({side.errors} failed)" if side.errors else ""
    if side.n == 0:
        return f"no successful request{failed}"
    if side.distinct == 1:
        return f"1 output in {_count(side)}{failed}"
    return f"{side.distinct} distinct outputs in {_count(side)}{failed}"


def _caveat(name: str, side: SideStats, more: int, settings: Settings) -> str:
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


@dataclass(frozen=True)
class Adjusted:
    """A mode's p-values after the corrections across records (None: not in the family)."""

    fisher: float | None = None
    """The instability (Fisher) p, corrected."""
    novelty: float | None = None
    """The novelty p, corrected."""
    novelty_tests: int = 1
    """Size of the novelty family (the level a follow-up must reach is α over it)."""


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
    significant = adjusted.fisher is not None and adjusted.fisher <= settings.alpha
    novel = ev.outside and adjusted.novelty is not None and adjusted.novelty <= settings.alpha
    category = _category(ev, novel)
    candidate = category in (Category.DETERMINISTIC_DIVERGENCE, Category.PATCH_OUTSIDE_BASE) or (
        category is Category.PATCH_NONDETERMINISM and (significant or novel)
    )
    more: int | None = ev.more_samples
    undecided = category is Category.INCONCLUSIVE and ev.outside
    if undecided and min(ev.base.n, ev.patch.n) >= 2:
        level = settings.alpha / max(1, adjusted.novelty_tests)
        more = stats.novelty_samples_to_decide(ev.patch_outputs, ev.base_outputs, ev.known, level)
    return ModeVerdict(
        mode=ev.mode,
        category=category,
        flags=ev.flags,
        reason=_reason(category, ev, adjusted, more, settings),
        base=ev.base,
        patch=ev.patch,
        p=ev.p,
        p_adjusted=adjusted.fisher,
        novelty=None if ev.novelty is None else ev.novelty.statistic,
        novelty_p=None if ev.novelty is None else ev.novelty.p,
        novelty_p_adjusted=adjusted.novelty,
        novelty_exact=None if ev.novelty is None else ev.novelty.exact,
        good_turing_base=ev.good_turing_base,
        more_samples=more,
        regression_candidate=candidate,
    )


def _novelty_text(ev: ModeEvidence, adjusted: Adjusted, settings: Settings) -> str:
    if ev.novelty is None:
        return "no novelty test"
    corrected = "" if adjusted.novelty is None else f", {settings.correction.value} "
    corrected += "" if adjusted.novelty is None else f"{adjusted.novelty:.3g}"
    return f"novelty p = {ev.novelty.p:.3g}{corrected}"


def _novel_count(ev: ModeEvidence) -> str:
    count = ev.novelty.statistic if ev.novelty is not None else 0
    return f"{count} of its {_count(ev.patch)} outputs {'are' if count != 1 else 'is'}"


def _reason(
    category: Category,
    ev: ModeEvidence,
    adjusted: Adjusted,
    more: int | None,
    settings: Settings,
) -> str:
    base, patch = _side_text(ev.base), _side_text(ev.patch)
    if category is Category.INCONCLUSIVE and (ev.base.n < 2 or ev.patch.n < 2):
        short = [name for name, side in (("base", ev.base), ("patch", ev.patch)) if side.n < 2]
        return (
            f"too few observations: base {base}, patch {patch}; the {' and '.join(short)} "
            f"needs at least 2 successful ones ({ev.more_samples} more per side to be decisive)"
        )
    if category is Category.INCONCLUSIVE:
        follow_up = (
            f"{more} more per side would decide if both sides went on as observed"
            if more is not None
            else "more samples of this kind would not decide it"
        )
        caveat = (
            "; " + _caveat("patch", ev.patch, ev.more_samples, settings) if ev.patch.stable else ""
        )
        return (
            f"undecided: the base gave {base} identical requests and the patch {patch}; "
            f"{_novel_count(ev)} outputs the base never gave, but that is not significant "
            f"({_novelty_text(ev, adjusted, settings)} > α = {settings.alpha:g}): "
            f"{follow_up}{caveat}"
        )
    if category is Category.BASE_NONDETERMINISM:
        if ev.base.stable:
            return (
                f"not a regression: the base gave {base} identical requests in this mode, but "
                f"the patch's output is the one the base gave in its other modes, so the "
                f"difference comes from the base's dependence on the conditions; the patch gave "
                f"{patch}; " + _caveat("patch", ev.patch, ev.more_samples, settings)
            )
        where = " (counting its other modes)" if ev.known & ev.patch.outputs else ""
        return (
            f"not a regression: the base gave {base} identical requests and every output of "
            f"the patch is one the base gave{where}, so the mismatch is not attributable to the "
            f"patch; the patch gave {patch}; "
            + _caveat("patch", ev.patch, ev.more_samples, settings)
        )
    if category is Category.PATCH_OUTSIDE_BASE:
        return (
            f"regression candidate: the base gave {base} identical requests and the patch "
            f"{patch}; {_novel_count(ev)} outputs the base never gave "
            f"({_novelty_text(ev, adjusted, settings)} <= α = {settings.alpha:g})"
        )
    if category is Category.BOTH_NONDETERMINISTIC:
        outside = (
            f"; {_novel_count(ev)} outputs the base never gave, not significantly "
            f"({_novelty_text(ev, adjusted, settings)})"
            if ev.outside
            else ""
        )
        return f"both sides are nondeterministic: base {base}, patch {patch}{outside}"
    p_text = "" if ev.p is None else f"Fisher p = {ev.p:.3g}"
    if ev.p is not None and adjusted.fisher is not None:
        p_text += f", {settings.correction.value} {adjusted.fisher:.3g}"
    if category is Category.PATCH_NONDETERMINISM:
        significant = adjusted.fisher is not None and adjusted.fisher <= settings.alpha
        novel = adjusted.novelty is not None and adjusted.novelty <= settings.alpha and ev.outside
        if significant or novel:
            verdict = "regression candidate: significant"
        else:
            verdict = f"not significant at α = {settings.alpha:g}, more samples needed"
        if ev.outside:
            p_text += f"; {_novelty_text(ev, adjusted, settings)}"
        return f"the base gave {base}, the patch {patch} ({p_text}): {verdict}"
    if category is Category.MATCH:
        return f"both sides stable on the same output (base {base}, patch {patch})"
    return (
        f"regression candidate: both sides stable and the outputs differ (base {base}, patch "
        f"{patch}); " + _caveat("base", ev.base, ev.more_samples, settings)
    )


def concurrency_dependent(outputs: Mapping[str, Mapping[str, Sequence[str]]]) -> bool:
    """A side whose serial samples (>= 2) all agree gives another output in a concurrent or
    loaded sample. `outputs`: mode -> side -> successful sample outputs; samples alone, never
    the capture (whatever `--capture-mode` says)."""
    serial = outputs.get(SERIAL, {})
    for name in ("base", "patch"):
        alone = set(serial.get(name, ()))
        if len(serial.get(name, ())) < 2 or len(alone) != 1:
            continue
        for mode in CONCURRENT_MODES:
            if set(outputs.get(mode, {}).get(name, ())) - alone:
                return True
    return False

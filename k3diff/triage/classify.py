"""From observations to categories: per side, per mode, then per record (most severe wins).

A mode's verdict is decided in two steps because the correction of the Fisher p-values needs
every record's p first: `evidence` gathers one mode's numbers, `decide` turns them into a
`ModeVerdict` once the adjusted p is known.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from k3diff.triage import stats
from k3diff.triage.model import Category, Flag, ModeVerdict, Settings, SideStats

CONCURRENT_MODES = frozenset({"concurrent", "loaded"})


@dataclass(frozen=True)
class SideObservations:
    """What one side did for one key in one mode."""

    sequence: tuple[str | None, ...]
    """Sample outputs in request order (None for a failed sample)."""
    captured: str | None
    """The comparison's captured output, counted as one more observation."""

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
    )


def first_request_differs(sequence: Sequence[str | None]) -> bool:
    """The first sample succeeded and differs from the rest, which are >= 2 and all agree."""
    if not sequence or sequence[0] is None:
        return False
    rest = {digest for digest in sequence[1:] if digest is not None}
    agreeing = sum(1 for digest in sequence[1:] if digest is not None)
    return agreeing >= 2 and len(rest) == 1 and sequence[0] not in rest


def evidence(
    mode: str, base: SideObservations, patch: SideObservations, settings: Settings
) -> ModeEvidence:
    """One mode's numbers and flags."""
    base_stats = side_stats(base, settings.alpha)
    patch_stats = side_stats(patch, settings.alpha)
    flags: list[Flag] = []
    if base_stats.unstable and patch_stats.n and patch_stats.outputs <= base_stats.outputs:
        flags.append(Flag.PATCH_INSIDE_BASE_SET)
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
    )


def _side_text(side: SideStats) -> str:
    failed = f" ({side.errors} failed)" if side.errors else ""
    if side.n == 0:
        return f"no successful observation{failed}"
    if side.distinct == 1:
        return f"1 output in {side.n}{failed}"
    return f"{side.distinct} distinct outputs in {side.n}{failed}"


def _caveat(name: str, side: SideStats, ev: ModeEvidence, settings: Settings) -> str:
    if side.nonmodal_bound <= settings.bound:
        return (
            f"{side.n} agreeing {name} observations bound its non-modal mass by "
            f"{side.nonmodal_bound:.2f} at α = {settings.alpha:g}"
        )
    return (
        f"caveat: {side.n} agreeing {name} observations bound its non-modal mass only by "
        f"{side.nonmodal_bound:.2f} at α = {settings.alpha:g}; {ev.more_samples} more per side "
        f"would bound it by {settings.bound:g}"
    )


def _category(base: SideStats, patch: SideStats) -> Category:
    if base.n < 2 or patch.n < 2:
        return Category.INCONCLUSIVE
    if base.unstable and patch.unstable:
        return Category.BOTH_NONDETERMINISTIC
    if base.unstable:
        return Category.BASE_NONDETERMINISM
    if patch.unstable:
        return Category.PATCH_NONDETERMINISM
    if base.modal_output == patch.modal_output:
        return Category.MATCH
    return Category.DETERMINISTIC_DIVERGENCE


def decide(ev: ModeEvidence, p_adjusted: float | None, settings: Settings) -> ModeVerdict:
    """The mode's verdict, once its corrected p is known."""
    category = _category(ev.base, ev.patch)
    significant = p_adjusted is not None and p_adjusted <= settings.alpha
    candidate = category is Category.DETERMINISTIC_DIVERGENCE or (
        category is Category.PATCH_NONDETERMINISM and significant
    )
    return ModeVerdict(
        mode=ev.mode,
        category=category,
        flags=ev.flags,
        reason=_reason(category, ev, p_adjusted, settings),
        base=ev.base,
        patch=ev.patch,
        p=ev.p,
        p_adjusted=p_adjusted,
        good_turing_base=ev.good_turing_base,
        more_samples=ev.more_samples,
        regression_candidate=candidate,
    )


def _reason(
    category: Category, ev: ModeEvidence, p_adjusted: float | None, settings: Settings
) -> str:
    base, patch = _side_text(ev.base), _side_text(ev.patch)
    if category is Category.INCONCLUSIVE:
        short = [name for name, side in (("base", ev.base), ("patch", ev.patch)) if side.n < 2]
        return (
            f"too few observations: base {base}, patch {patch}; the {' and '.join(short)} "
            f"needs at least 2 successful ones ({ev.more_samples} more per side to be decisive)"
        )
    if category is Category.BASE_NONDETERMINISM:
        return (
            f"not a regression: the base gave {base} identical requests, so the mismatch is not "
            f"attributable to the patch; the patch gave {patch}; "
            + _caveat("patch", ev.patch, ev, settings)
        )
    if category is Category.BOTH_NONDETERMINISTIC:
        return f"both sides are nondeterministic: base {base}, patch {patch}"
    p_text = (
        ""
        if ev.p is None
        else f"Fisher p = {ev.p:.3g}, {settings.correction.value} {p_adjusted:.3g}"
    )
    if category is Category.PATCH_NONDETERMINISM:
        verdict = (
            "regression candidate: significant"
            if p_adjusted is not None and p_adjusted <= settings.alpha
            else f"not significant at α = {settings.alpha:g}, more samples needed"
        )
        return f"the base gave {base}, the patch {patch} ({p_text}): {verdict}"
    if category is Category.MATCH:
        return f"both sides stable on the same output (base {base}, patch {patch})"
    return (
        f"regression candidate: both sides stable and the outputs differ (base {base}, patch "
        f"{patch}); " + _caveat("base", ev.base, ev, settings)
    )


def concurrency_dependent(modes: Sequence[ModeVerdict]) -> bool:
    """A side stable in serial mode is unstable in a concurrent or loaded mode."""
    serial = [m for m in modes if m.mode == "serial"]
    others = [m for m in modes if m.mode in CONCURRENT_MODES]
    for name in ("base", "patch"):
        if any(getattr(m, name).stable for m in serial) and any(
            getattr(m, name).unstable for m in others
        ):
            return True
    return False

"""Joins a comparison with sample logs by key and mode, corrects the p-values, and rolls the
per-mode verdicts up to one verdict per record."""

from __future__ import annotations

import dataclasses
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from pathlib import Path

from k3diff.correction import holm
from k3diff.errors import UsageError
from k3diff.responses.document import ResponsesRecord
from k3diff.sample.control import control_outcome, vacuous_sides
from k3diff.sample.names import SAMPLING_MODES, Mode
from k3diff.sample.proof import batch_overlap
from k3diff.sample.reader import SamplesLog
from k3diff.sample.runs import run_infos
from k3diff.triage import classify, conditions, shift, stats
from k3diff.triage.classify import CLEARING
from k3diff.triage.inputs import read_comparison
from k3diff.triage.keys import unmatched_keys_hint
from k3diff.triage.model import (
    CaptureEvidence,
    Category,
    Correction,
    Flag,
    ModeVerdict,
    RecordVerdict,
    Reproduced,
    Settings,
    SweepPoint,
    TriageResult,
)
from k3diff.triage.observations import Adjusted, ModeEvidence, SideObservations
from k3diff.triage.pooling import check_identical_requests
from k3diff.triage.samples import Sample, read_samples
from k3diff.triage.splits import split_tree

_Grouped = dict[str, dict[str, dict[str, list[Sample]]]]
"""key -> mode -> side -> samples."""


def triage(
    comparison_path: Path,
    sample_paths: tuple[Path, ...],
    settings: Settings,
    pool_runs: bool = False,
) -> TriageResult:
    """Classify every record of a comparison from the samples of both sides (of one run, or
    of several under `pool_runs`)."""
    comparison = read_comparison(comparison_path)
    everything = read_samples(sample_paths, pool_runs)
    control = control_outcome(everything.samples)
    vacuous = vacuous_sides(everything.samples)
    logs = dataclasses.replace(
        everything, samples=tuple(s for s in everything.samples if s.mode != Mode.CONTROL.value)
    )
    check_identical_requests(logs)
    conditions.check_prompts(comparison, logs)
    checked = conditions.check_conditions(comparison, logs, settings.allow_condition_mismatch)
    grouped = _group(logs.samples)
    known = {record.key for record in comparison.records}
    unknown = tuple(sorted(key for key in grouped if key not in known))
    if grouped and len(unknown) == len(grouped):
        raise UsageError(
            f"{', '.join(map(str, sample_paths))}: no sample key matches a record of "
            f"{comparison_path} (sample keys such as {unknown[0]!r}); "
            + unmatched_keys_hint(comparison, unknown)
        )
    evidences = {
        record.key: _mode_evidence(record, grouped.get(record.key, {}), settings)
        for record in comparison.records
    }
    fisher = _family(evidences, lambda ev: ev.p, settings)
    shifts = shift.distribution_tests(
        grouped,
        [r.key for r in comparison.records],
        shift.sampled(logs),
        settings,
        lambda ps: _correct(ps, settings),
    )
    novelty = _family(evidences, lambda ev: None if ev.novelty is None else ev.novelty.p, settings)
    records = tuple(
        _with_finish_reasons(
            _record_verdict(
                record,
                tuple(
                    _with_sweep(
                        grouped.get(record.key, {}),
                        _with_splits(
                            grouped.get(record.key, {}),
                            shift.apply(
                                classify.decide(
                                    ev,
                                    Adjusted(
                                        fisher.get((record.key, index)),
                                        novelty.get((record.key, index)),
                                        len(novelty),
                                    ),
                                    settings,
                                ),
                                shifts.get((record.key, ev.mode)),
                                settings,
                            ),
                            settings,
                        ),
                    )
                    for index, ev in enumerate(evidences[record.key])
                ),
                grouped.get(record.key, {}),
                settings,
            ),
            grouped.get(record.key, {}),
        )
        for record in comparison.records
    )
    records = tuple(checked.apply(record) for record in records)
    if vacuous:
        records = tuple(_vacuous(record, vacuous, control) for record in records)
    return TriageResult(
        comparison=comparison.name,
        samples=tuple(str(path) for path in sample_paths),
        settings=settings,
        records=records,
        unknown_sample_keys=unknown,
        tests=len(fisher),
        samples_for_bound=stats.samples_for_bound(settings.bound, settings.alpha),
        novelty_tests=len(novelty),
        runs=run_infos(logs.logs),
        pool_runs=pool_runs,
        control=tuple((side, *control[side]) for side in ("base", "patch") if side in control),
        vacuous=vacuous,
        gauges=_gauges(logs.logs),
        distribution_tests=shift.family_size(shifts),
        qualifications=tuple(q for q in (checked.qualification(),) if q is not None),
    )


def _gauges(logs: Iterable[SamplesLog]) -> tuple[tuple[str, str | None, str | None], ...]:
    """Per side, the running-requests gauge the logs' headers say its `/metrics` exposes (the
    first log naming one wins), else why none."""
    found: dict[str, tuple[str | None, str | None]] = {}
    for log in logs:
        metrics = log.header.fields.get("metrics")
        for side in log.header.sides or ():
            entry = metrics.get(side) if isinstance(metrics, dict) else None
            running = entry.get("running") if isinstance(entry, dict) else None
            problem = entry.get("problem") if isinstance(entry, dict) else None
            if isinstance(running, str) or side not in found:
                found[side] = (
                    running if isinstance(running, str) else None,
                    problem if isinstance(problem, str) else None,
                )
    return tuple((side, *found[side]) for side in ("base", "patch") if side in found)


def _vacuous(
    record: RecordVerdict, sides: tuple[str, ...], control: dict[str, tuple[int, int]]
) -> RecordVerdict:
    """A record the evidence would clear, kept inconclusive (and failing) by a vacuous control."""
    if record.category not in CLEARING:
        return record
    found = ", ".join(f"the {side} 1 output in {control[side][0]}" for side in sides)
    reason = (
        f"vacuous: the control (one prompt at temperature 1, distinct seeds) came back "
        f"identical ({found}): sampling parameters ignored, or a cache or proxy answering, so "
        f"this run could not have shown a difference; {record.reason}"
    )
    flags = {*record.flags, Flag.VACUOUS}
    return dataclasses.replace(
        record,
        category=Category.INCONCLUSIVE,
        reason=reason,
        flags=tuple(flag for flag in Flag if flag in flags),
    )


def finish_reason_differs(modes: dict[str, dict[str, list[Sample]]]) -> bool:
    """In some mode, an output both sides gave came with different finish reasons."""
    for sides in modes.values():
        reasons = [_finish_reasons(sides[side]) for side in ("base", "patch")]
        for text in reasons[0].keys() & reasons[1].keys():
            if reasons[0][text] != reasons[1][text]:
                return True
    return False


def _finish_reasons(samples: list[Sample]) -> dict[str, set[str | None]]:
    found: dict[str, set[str | None]] = {}
    for sample in samples:
        if sample.text_xxh3 is not None:
            found.setdefault(sample.text_xxh3, set()).add(sample.finish_reason)
    return found


def _with_finish_reasons(
    verdict: RecordVerdict, modes: dict[str, dict[str, list[Sample]]]
) -> RecordVerdict:
    if not finish_reason_differs(modes):
        return verdict
    flags = {*verdict.flags, Flag.FINISH_REASON_DIFFERS}
    return dataclasses.replace(verdict, flags=tuple(flag for flag in Flag if flag in flags))


def _with_splits(
    samples: dict[str, dict[str, list[Sample]]], verdict: ModeVerdict, settings: Settings
) -> ModeVerdict:
    """The mode's verdict with each unstable side's split tree and the flags the margins give."""
    sides = samples.get(verdict.mode, {})
    trees = tuple(
        tree
        for side in ("base", "patch")
        if (tree := split_tree(side, verdict.mode, sides.get(side, []))) is not None
    )
    if not trees:
        return verdict
    flags = set(verdict.flags)
    base = [tree for tree in trees if tree.side == "base"]
    if base and all(tree.near_ties(settings.near_tie) for tree in base):
        flags.add(Flag.NEAR_TIE_SPLITS)
    if any(tree.wide(settings.near_tie) for tree in trees):
        flags.add(Flag.WIDE_MARGIN_SPLIT)
    ordered = tuple(flag for flag in Flag if flag in flags)
    return dataclasses.replace(verdict, splits=trees, flags=ordered)


def _family(
    evidences: dict[str, list[ModeEvidence]],
    pvalue: Callable[[ModeEvidence], float | None],
    settings: Settings,
) -> dict[tuple[str, int], float]:
    """(key, mode index) -> p corrected across every record and mode that has the test."""
    family = {
        (key, index): p
        for key, evs in evidences.items()
        for index, ev in enumerate(evs)
        if (p := pvalue(ev)) is not None
    }
    return dict(zip(family, _correct(list(family.values()), settings), strict=True))


def _group(samples: tuple[Sample, ...]) -> _Grouped:
    grouped: _Grouped = defaultdict(lambda: defaultdict(lambda: {"base": [], "patch": []}))
    for sample in samples:
        grouped[sample.key][sample.mode][sample.side].append(sample)
    return grouped


def _correct(pvalues: list[float], settings: Settings) -> list[float]:
    if settings.correction is Correction.HOLM:
        return holm(pvalues)
    return stats.benjamini_hochberg(pvalues)


def _captured(record: ResponsesRecord) -> tuple[str | None, str | None]:
    if record.status == "error":
        return None, None
    return record.base_xxh3, record.patch_xxh3


def _mode_evidence(
    record: ResponsesRecord, modes: dict[str, dict[str, list[Sample]]], settings: Settings
) -> list[ModeEvidence]:
    """Per mode, both sides' samples; the captures count only in `--capture-mode`'s mode, and
    the base's outputs in its other modes are handed on (they are the base's outputs too)."""
    base_captured, patch_captured = _captured(record)
    counted = settings.capture_mode
    base_obs = {
        mode: SideObservations(
            _sequence(sides["base"]),
            base_captured if mode == counted else None,
            batch_overlap(sides["base"]),
            _cache(mode, sides["base"]),
        )
        for mode, sides in modes.items()
    }
    found = []
    for mode in _ordered(modes):
        elsewhere = frozenset(
            output for other, obs in base_obs.items() if other != mode for output in obs.outputs
        )
        patch = SideObservations(
            _sequence(modes[mode]["patch"]),
            patch_captured if mode == counted else None,
            batch_overlap(modes[mode]["patch"]),
            _cache(mode, modes[mode]["patch"]),
        )
        found.append(classify.evidence(mode, base_obs[mode], patch, settings, elsewhere))
    return found


MODE_ORDER = SAMPLING_MODES
"""Modes in the order a reviewer reads them: the batch-1 oracle first."""


def _ordered(modes: Iterable[str]) -> list[str]:
    """Known modes in `MODE_ORDER`, then any other by name."""
    last = len(MODE_ORDER)
    return sorted(modes, key=lambda m: (MODE_ORDER.index(m) if m in MODE_ORDER else last, m))


def _cache(mode: str, samples: list[Sample]) -> tuple[int, int, int]:
    """cold-warm: (successful warm samples, those with cached prompt tokens > 0, cold samples
    that already had cached prompt tokens: the cache was not cold, e.g. a server that ignores
    `cache_salt` and has seen the prompt before)."""
    if mode != Mode.COLD_WARM.value:
        return (0, 0, 0)
    warm = [s for s in samples if s.repeat > 0 and s.error is None]
    cold = [s for s in samples if s.repeat == 0 and s.error is None]
    return (
        len(warm),
        sum(1 for s in warm if (s.cached_tokens or 0) > 0),
        sum(1 for s in cold if (s.cached_tokens or 0) > 0),
    )


def _with_sweep(samples: dict[str, dict[str, list[Sample]]], verdict: ModeVerdict) -> ModeVerdict:
    """A sweep mode's verdict with its curve: per side and level, distinct outputs and how many
    differ from the lowest level's modal output; the reason says where they start to differ."""
    if verdict.mode != Mode.SWEEP.value:
        return verdict
    points = tuple(
        point
        for side in ("base", "patch")
        for point in sweep_curve(side, samples.get(verdict.mode, {}).get(side, []))
    )
    if not points:
        return verdict
    return dataclasses.replace(verdict, sweep=points, reason=verdict.reason + sweep_text(points))


def sweep_curve(side: str, samples: list[Sample]) -> list[SweepPoint]:
    """Per level (ascending), the side's distinct outputs and those differing from the lowest
    level's modal output."""
    by_level: dict[int, list[str]] = defaultdict(list)
    for sample in samples:
        if sample.level is not None and sample.text_xxh3 is not None:
            by_level[sample.level].append(sample.text_xxh3)
    if not by_level:
        return []
    levels = sorted(by_level)
    reference = Counter(by_level[levels[0]]).most_common(1)[0][0]
    return [
        SweepPoint(
            side,
            level,
            len(by_level[level]),
            len(set(by_level[level])),
            sum(1 for output in by_level[level] if output != reference),
        )
        for level in levels
    ]


def first_differing_level(points: Iterable[SweepPoint], side: str) -> int | None:
    """The lowest level at which some output of `side` differs from the serial one."""
    return next((p.level for p in points if p.side == side and p.differ), None)


def sweep_text(points: tuple[SweepPoint, ...]) -> str:
    """'; sweep: the base's outputs start to differ at level 4 (level:distinct/differing
    1:1/0, 2:1/0, 4:2/3, 8:3/7)'."""
    parts = []
    for side in ("base", "patch"):
        mine = [p for p in points if p.side == side]
        if not mine:
            continue
        curve = ", ".join(f"{p.level}:{p.distinct}/{p.differ}" for p in mine)
        level = first_differing_level(mine, side)
        where = (
            f"the {side}'s outputs start to differ from level {mine[0].level}'s at level {level}"
            if level is not None
            else f"the {side}'s outputs never differ from level {mine[0].level}'s"
        )
        parts.append(f"{where} (level:distinct/differing {curve})")
    return "; sweep: " + "; ".join(parts)


def _sequence(samples: list[Sample]) -> tuple[str | None, ...]:
    return tuple(sample.text_xxh3 for sample in sorted(samples, key=lambda s: s.order))


def _record_verdict(
    record: ResponsesRecord,
    modes: tuple[ModeVerdict, ...],
    samples: dict[str, dict[str, list[Sample]]],
    settings: Settings,
) -> RecordVerdict:
    flags = {flag for mode in modes for flag in mode.flags}
    sampled = {
        mode: {
            side: [s.text_xxh3 for s in found if s.text_xxh3 is not None]
            for side, found in sides.items()
        }
        for mode, sides in samples.items()
    }
    if classify.concurrency_dependent(sampled):
        flags.add(Flag.CONCURRENCY_DEPENDENT)
    if classify.composition_dependent(sampled):
        flags.add(Flag.COMPOSITION_DEPENDENT)
    if any(gap < settings.near_tie for gap in record.divergence_gaps):
        flags.add(Flag.NEAR_TIE_FLIP)
    captures = _captures(record, samples)
    if any(capture.never_reproduced for capture in captures):
        flags.add(Flag.CAPTURE_NOT_REPRODUCED)
    if any(capture.only_concurrent for capture in captures):
        flags.add(Flag.CAPTURE_ONLY_CONCURRENT)
    # Most severe first; among equals a regression candidate, then serial mode (the oracle).
    ordered = sorted(
        modes,
        key=lambda m: (m.category.severity, not m.regression_candidate, m.mode != Mode.SERIAL),
    )
    category, reason, deciding = _record_category(record, ordered)
    if deciding is not None:
        more: int | None = ordered[0].more_samples
    elif _unusable(record) is None:
        captured = settings.capture_mode is not None
        captured = captured and record.base_xxh3 is not None and record.patch_xxh3 is not None
        more = stats.samples_for_bound(settings.bound, settings.alpha) - captured
    else:
        more = None
    return RecordVerdict(
        key=record.key,
        comparison_status=record.status,
        category=category,
        flags=tuple(flag for flag in Flag if flag in flags),
        reason=reason,
        modes=modes,
        deciding_mode=deciding,
        regression_candidate=any(mode.regression_candidate for mode in modes),
        more_samples=more,
        serial_parity=_serial_parity(modes),
        captures=captures,
        label=record.label,
    )


def _serial_parity(modes: tuple[ModeVerdict, ...]) -> bool | None:
    """Whether the sides' modal serial outputs agree (None: a side has no serial output)."""
    for mode in modes:
        if mode.mode == Mode.SERIAL and mode.base.n and mode.patch.n:
            return bool(mode.base.modal_outputs & mode.patch.modal_outputs)
    return None


def _captures(
    record: ResponsesRecord, samples: dict[str, dict[str, list[Sample]]]
) -> tuple[CaptureEvidence, ...]:
    """Per side with a capture, how often each mode's samples gave it back."""
    found = []
    for side, captured in zip(("base", "patch"), _captured(record), strict=True):
        if captured is None or not samples:
            continue
        reproduced = []
        for mode in _ordered(samples):
            outputs = [s.text_xxh3 for s in samples[mode][side] if s.text_xxh3 is not None]
            reproduced.append(Reproduced(mode, outputs.count(captured), len(outputs)))
        found.append(CaptureEvidence(side, tuple(reproduced)))
    return tuple(found)


def _record_category(
    record: ResponsesRecord, ordered: list[ModeVerdict]
) -> tuple[Category, str, str | None]:
    """Category, reason and deciding mode; a record the comparison could not pair stays at
    least inconclusive."""
    worst = ordered[0] if ordered else None
    blocked = _unusable(record)
    if blocked is not None and (
        worst is None or worst.category.severity > Category.INCONCLUSIVE.severity
    ):
        return Category.INCONCLUSIVE, blocked, None
    if worst is not None:
        return worst.category, f"{worst.mode}: {worst.reason}", worst.mode
    if record.base_xxh3 is not None and record.base_xxh3 == record.patch_xxh3:
        return Category.MATCH, "no samples; the captured outputs are equal", None
    return (
        Category.INCONCLUSIVE,
        "no samples for this key: one captured output per side cannot tell a regression from "
        "nondeterminism",
        None,
    )


def _unusable(record: ResponsesRecord) -> str | None:
    """Why the comparison's record cannot support a verdict, if it cannot."""
    if not record.patch_present:
        return "only in the base capture: the comparison has no patch record for this key"
    if not record.base_present:
        return "only in the patch capture: the comparison has no base record for this key"
    if record.status == "error":
        return "the comparison recorded an error for this key"
    return None

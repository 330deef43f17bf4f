"""Rolls one record's per-mode verdicts up to its verdict: the most severe mode decides, the
record-level flags (concurrency, composition, near tie, captures, finish reasons) are added, and
a vacuous control keeps a record it would clear inconclusive."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable

from k3diff.numbers import all_of
from k3diff.responses.recordview import UNEXPLAINED, ResponsesRecord
from k3diff.sample.names import SAMPLING_MODES, Mode
from k3diff.triage import classify, stats
from k3diff.triage.classify import CLEARING
from k3diff.triage.model import (
    CaptureEvidence,
    Category,
    Flag,
    ModeVerdict,
    RecordVerdict,
    Reproduced,
    Settings,
)
from k3diff.triage.samples import Sample
from k3diff.triage.shiftverdict import unbatched

PASSING = CLEARING | {Category.BOTH_NONDETERMINISTIC}
"""Categories that pass a record: a patch capture the samples do not explain keeps it from them
(unless `--capture-mode` counts the capture in a mode's n, where that mode's tests weigh it)."""

MODE_ORDER = SAMPLING_MODES
"""Modes in the order a reviewer reads them: the batch-1 oracle first."""


def ordered_modes(modes: Iterable[str]) -> list[str]:
    """Known modes in `MODE_ORDER`, then any other by name."""
    last = len(MODE_ORDER)
    return sorted(modes, key=lambda m: (MODE_ORDER.index(m) if m in MODE_ORDER else last, m))


def captured_outputs(record: ResponsesRecord) -> tuple[str | None, str | None]:
    """The base's and the patch's captured outputs (None for a record the comparison recorded
    as an error)."""
    if record.status == "error":
        return None, None
    return record.base_xxh3, record.patch_xxh3


def record_verdict(
    record: ResponsesRecord,
    modes: tuple[ModeVerdict, ...],
    samples: dict[str, dict[str, list[Sample]]],
    settings: Settings,
) -> RecordVerdict:
    """The record's verdict: its most severe mode decides, with every mode's flags and the
    record's own."""
    captures = _captures(record, samples)
    # Most severe first; among equals a regression candidate, then serial mode (the oracle).
    ordered = sorted(
        modes,
        key=lambda m: (m.category.severity, not m.regression_candidate, m.mode != Mode.SERIAL),
    )
    category, reason, deciding = _record_category(record, ordered)
    flags = _record_flags(record, modes, samples, captures, settings)
    return RecordVerdict(
        key=record.key,
        comparison_status=record.status,
        category=category,
        flags=tuple(flag for flag in Flag if flag in flags),
        reason=reason,
        modes=modes,
        deciding_mode=deciding,
        regression_candidate=any(mode.regression_candidate for mode in modes),
        more_samples=_more_samples(record, ordered, deciding, settings),
        serial_parity=_serial_parity(modes),
        captures=captures,
        label=record.label,
    )


def _record_flags(
    record: ResponsesRecord,
    modes: tuple[ModeVerdict, ...],
    samples: dict[str, dict[str, list[Sample]]],
    captures: tuple[CaptureEvidence, ...],
    settings: Settings,
) -> set[Flag]:
    """Every mode's flags, and those of the record's samples across modes, its divergence and
    its captures."""
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
    if any(capture.never_reproduced for capture in captures):
        flags.add(Flag.CAPTURE_NOT_REPRODUCED)
    if any(capture.only_concurrent for capture in captures):
        flags.add(Flag.CAPTURE_ONLY_CONCURRENT)
    return flags


def hold_unexplained(
    verdict: RecordVerdict,
    record: ResponsesRecord,
    samples: dict[str, dict[str, list[Sample]]],
    settings: Settings,
    sampled: bool,
) -> RecordVerdict:
    """`verdict`, made inconclusive (flag capture-unexplained) when it would pass although the
    patch's captured output is one neither side's samples nor the base's capture ever gave
    (`_unexplained_capture`). Applied after the condition check: samples of another condition
    already clear nothing, and say so first. Not where `--capture-mode` counts the capture in a
    mode's n (that mode's tests weigh it), nor for sampled decoding (`sampled`: temperature > 0,
    where every output is new on both sides and the capture is one draw the distribution test
    is about), other than a sampled match: it clears without a test only as degenerate outputs
    (each side on one output), which a patch whose capture gave another output is not."""
    if settings.capture_mode is not None or verdict.category not in PASSING:
        return verdict
    if sampled and verdict.category is not Category.MATCH:
        return verdict
    unexplained = _unexplained_capture(record, samples)
    if unexplained is None:
        return verdict
    return held(verdict, Flag.CAPTURE_UNEXPLAINED, unexplained)


def hold_unsampled(
    verdict: RecordVerdict, record: ResponsesRecord, samples: dict[str, dict[str, list[Sample]]]
) -> RecordVerdict:
    """`verdict`, made inconclusive (flag unsampled) when the comparison found the captures
    differing (`UNEXPLAINED`: texts, an error, a side without the record) and no mode holds
    successful samples of both sides (a side never sampled, or each side only in a mode the
    other lacks): nothing explains the difference, so the record fails the run (never a pass,
    whatever `--fail-inconclusive` says). A regression candidate stays one; a record whose
    captures match has nothing to explain."""
    differs = UNEXPLAINED.get(record.status)
    if differs is None or verdict.regression_candidate:
        return verdict
    who = _unsampled(samples)
    if who is None:
        return verdict
    said = (
        f"{differs} and {who}, so nothing explains its absence"  # newuser68: "but"
        if record.status in ("only-base", "only-patch")
        else f"{differs} but {who}, so the difference is unexplained"
    )
    return held(
        verdict,
        Flag.UNSAMPLED,
        f"unsampled: {said} (sample this record on both sides to decide it)",
    )


def held(
    verdict: RecordVerdict,
    flag: Flag,
    why: str,
    *,
    samples_decide: bool = True,
    also: tuple[Flag, ...] = (),
) -> RecordVerdict:
    """`verdict` made inconclusive with `flag` (and the flags `also` that refine it) added (in
    `Flag` order) and `why` said first; where no sample can clear the hold (`samples_decide`
    false: prompts or fields that differ in the comparison), it asks for none (`more_samples`
    None, so triage names no `sample --resume` step for it: newuser60b saw `next: ...
    --repeats 60` for a fields-unjudged record)."""
    flags = {*verdict.flags, flag, *also}
    return dataclasses.replace(
        verdict,
        category=Category.INCONCLUSIVE,
        reason=f"{why}; {verdict.reason}",
        flags=tuple(f for f in Flag if f in flags),
        more_samples=verdict.more_samples if samples_decide else None,
    )


def _unsampled(samples: dict[str, dict[str, list[Sample]]]) -> str | None:
    """How the record's samples leave its sides uncompared ('the patch was never sampled (all
    4 requests to it failed)'; 'no mode sampled both sides (...)'), None where a mode holds
    successful samples of both."""
    never = []
    for side in ("base", "patch"):
        found = [s for sides in samples.values() for s in sides.get(side, ())]
        if any(s.text_xxh3 is not None for s in found):
            continue
        failed = len(found)
        said = f"{all_of(failed)} requests" if failed > 1 else "its 1 request"
        never.append((side, f" ({said} to it failed)" if failed else ""))
    if len(never) == 2 and not never[0][1] and not never[1][1]:
        return "neither side was ever sampled"
    if never:
        return " and ".join(f"the {side} was never sampled{failed}" for side, failed in never)
    modes = {
        side: [
            mode
            for mode in ordered_modes(samples)
            if any(s.text_xxh3 is not None for s in samples[mode].get(side, ()))
        ]
        for side in ("base", "patch")
    }
    if set(modes["base"]) & set(modes["patch"]):
        return None
    return (
        f"no mode sampled both sides (the base only in {', '.join(modes['base'])}, the patch "
        f"only in {', '.join(modes['patch'])})"
    )


def _unexplained_capture(
    record: ResponsesRecord, samples: dict[str, dict[str, list[Sample]]]
) -> str | None:
    """Why the samples do not explain the mismatch, when the patch's captured output differs
    from the base's and is one the base never gave (captured or sampled) and no patch sample
    reproduced: the samples speak of other outputs than the one the user asked about, so they
    clear nothing (None: the capture is explained, or there is none)."""
    base_captured, patch_captured = captured_outputs(record)
    if patch_captured is None or patch_captured == base_captured or not samples:
        return None
    sampled = {
        side: [
            s.text_xxh3 for sides in samples.values() for s in sides.get(side, ()) if s.text_xxh3
        ]
        for side in ("base", "patch")
    }
    if patch_captured in sampled["base"] or patch_captured in sampled["patch"]:
        return None
    return (
        "capture-unexplained: the patch's captured output is one the base never gave (not its "
        f"capture, none of its {len(sampled['base'])} samples) and none of the patch's "
        f"{len(sampled['patch'])} samples reproduced it, so the samples do not explain the "
        "mismatch the comparison found; they speak only of the outputs sampled"
    )


def _more_samples(
    record: ResponsesRecord,
    ordered: list[ModeVerdict],
    deciding: str | None,
    settings: Settings,
) -> int | None:
    """Further observations per side that would make the record decisive: the deciding mode's
    count, else (no samples) a stable side's, less the capture where it counts; None when
    samples cannot help: among them a mode held inconclusive that only a run the server batches
    decides (review79e: a serial mode held no-power beside an unproven concurrent one asked for
    the serial mode's 53 more, and `next:` said to grow the run, which left the record held)."""
    if deciding is not None:
        if any(m.category is Category.INCONCLUSIVE and unbatched(m) for m in ordered):
            return None
        return ordered[0].more_samples
    if _unusable(record) is not None:
        return None
    captured = settings.capture_mode is not None
    captured = captured and record.base_xxh3 is not None and record.patch_xxh3 is not None
    return stats.samples_for_bound(settings.bound, settings.alpha) - captured


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
    for side, captured in zip(("base", "patch"), captured_outputs(record), strict=True):
        if captured is None or not samples:
            continue
        reproduced = []
        for mode in ordered_modes(samples):
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


def with_finish_reasons(
    verdict: RecordVerdict, modes: dict[str, dict[str, list[Sample]]]
) -> RecordVerdict:
    if not finish_reason_differs(modes):
        return verdict
    flags = {*verdict.flags, Flag.FINISH_REASON_DIFFERS}
    return dataclasses.replace(verdict, flags=tuple(flag for flag in Flag if flag in flags))


def held_by_vacuous_control(
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

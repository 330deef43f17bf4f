"""Joins a comparison with sample logs by key and mode, corrects the p-values, and rolls the
per-mode verdicts up to one verdict per record."""

from __future__ import annotations

import dataclasses
from collections import defaultdict
from pathlib import Path

from k3diff.documents.runs import run_infos
from k3diff.errors import UsageError
from k3diff.triage import classify, stats
from k3diff.triage.classify import ModeEvidence, SideObservations
from k3diff.triage.inputs import ComparedRecord, Sample, read_comparison, read_samples
from k3diff.triage.keys import unmatched_keys_hint
from k3diff.triage.model import (
    Category,
    Correction,
    Flag,
    ModeVerdict,
    RecordVerdict,
    Settings,
    TriageResult,
)
from k3diff.triage.pooling import check_identical_requests

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
    logs = read_samples(sample_paths, pool_runs)
    check_identical_requests(logs)
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
    family = [
        (key, index)
        for key, evs in evidences.items()
        for index, ev in enumerate(evs)
        if ev.p is not None
    ]
    adjusted = _correct([evidences[key][index].p or 0.0 for key, index in family], settings)
    p_adjusted = dict(zip(family, adjusted, strict=True))
    records = tuple(
        _with_finish_reasons(
            _record_verdict(
                record,
                tuple(
                    classify.decide(ev, p_adjusted.get((record.key, index)), settings)
                    for index, ev in enumerate(evidences[record.key])
                ),
                settings,
            ),
            grouped.get(record.key, {}),
        )
        for record in comparison.records
    )
    return TriageResult(
        comparison=comparison.path,
        samples=tuple(str(path) for path in sample_paths),
        settings=settings,
        records=records,
        unknown_sample_keys=unknown,
        tests=len(family),
        runs=run_infos(logs.logs),
        pool_runs=pool_runs,
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


def _group(samples: tuple[Sample, ...]) -> _Grouped:
    grouped: _Grouped = defaultdict(lambda: defaultdict(lambda: {"base": [], "patch": []}))
    for sample in samples:
        grouped[sample.key][sample.mode][sample.side].append(sample)
    return grouped


def _correct(pvalues: list[float], settings: Settings) -> list[float]:
    if settings.correction is Correction.HOLM:
        return stats.holm(pvalues)
    return stats.benjamini_hochberg(pvalues)


def _captured(record: ComparedRecord) -> tuple[str | None, str | None]:
    if record.status == "error":
        return None, None
    return record.base_xxh3, record.patch_xxh3


def _mode_evidence(
    record: ComparedRecord, modes: dict[str, dict[str, list[Sample]]], settings: Settings
) -> list[ModeEvidence]:
    base_captured, patch_captured = _captured(record)
    found = []
    for mode in sorted(modes):
        sides = modes[mode]
        base = SideObservations(_sequence(sides["base"]), base_captured)
        patch = SideObservations(_sequence(sides["patch"]), patch_captured)
        found.append(classify.evidence(mode, base, patch, settings))
    return found


def _sequence(samples: list[Sample]) -> tuple[str | None, ...]:
    return tuple(sample.text_xxh3 for sample in sorted(samples, key=lambda s: s.order))


def _record_verdict(
    record: ComparedRecord, modes: tuple[ModeVerdict, ...], settings: Settings
) -> RecordVerdict:
    flags = {flag for mode in modes for flag in mode.flags}
    if classify.concurrency_dependent(modes):
        flags.add(Flag.CONCURRENCY_DEPENDENT)
    if any(gap < settings.near_tie for gap in record.divergence_gaps):
        flags.add(Flag.NEAR_TIE_FLIP)
    ordered = sorted(modes, key=lambda m: (m.category.severity, not m.regression_candidate))
    category, reason, deciding = _record_category(record, ordered)
    if deciding is not None:
        more: int | None = ordered[0].more_samples
    elif _unusable(record) is None:
        captured = record.base_xxh3 is not None and record.patch_xxh3 is not None
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
    )


def _record_category(
    record: ComparedRecord, ordered: list[ModeVerdict]
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


def _unusable(record: ComparedRecord) -> str | None:
    """Why the comparison's record cannot support a verdict, if it cannot."""
    if not record.patch_present:
        return "only in the base capture: the comparison has no patch record for this key"
    if not record.base_present:
        return "only in the patch capture: the comparison has no base record for this key"
    if record.status == "error":
        return "the comparison recorded an error for this key"
    return None

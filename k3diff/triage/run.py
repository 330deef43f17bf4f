"""Joins a comparison with sample logs by key and mode, corrects the p-values, and rolls the
per-mode verdicts up to one verdict per record (`rollup`): each record in named steps, each
mode's verdict decided, then its distribution test, split trees and sweep curve added."""

from __future__ import annotations

import dataclasses
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from k3diff.errors import UsageError
from k3diff.responses.beams import beams_qualification
from k3diff.responses.document import ResponsesDocument
from k3diff.responses.ignore import ignored_qualification
from k3diff.responses.recordview import ResponsesRecord
from k3diff.sample.control import control_outcome, vacuous_sides
from k3diff.sample.names import SIDES, Mode
from k3diff.sample.runs import run_infos
from k3diff.triage import classify, conditions, shift, shiftverdict, stats
from k3diff.triage.asked import asked_slots
from k3diff.triage.besidetext import hold_besides_text
from k3diff.triage.distribution import DistributionTest
from k3diff.triage.errorholds import hold_patch_errors
from k3diff.triage.fieldholds import hold_fields_differ
from k3diff.triage.gauges import gaugeless, gauges, given_404, given_no_gauge
from k3diff.triage.inputs import read_comparison
from k3diff.triage.keys import unmatched_keys_hint
from k3diff.triage.modeevidence import mode_evidence
from k3diff.triage.model import (
    Correction,
    Flag,
    ModeVerdict,
    RecordVerdict,
    Settings,
    TriageResult,
)
from k3diff.triage.nextstep import asked_more, more_samples
from k3diff.triage.notcomparable import hold_not_comparable
from k3diff.triage.observations import Adjusted, ModeEvidence
from k3diff.triage.oneserver import described, hold_same_server, same_server_logs
from k3diff.triage.pooling import check_identical_requests
from k3diff.triage.rightcondition import ask_none, resample
from k3diff.triage.rollup import (
    held_by_vacuous_control,
    hold_unexplained,
    hold_unsampled,
    record_verdict,
    with_finish_reasons,
)
from k3diff.triage.samples import Sample, SampleLogs, not_counted, read_samples
from k3diff.triage.servedmodel import ModelCheck, check_models
from k3diff.triage.sidefields import hold_sides_differ, side_differences, side_field_names
from k3diff.triage.splits import split_tree
from k3diff.triage.sweep import with_sweep
from k3diff.triage.unanswered import hold_unanswered
from k3diff.triage.unlogged import hold_unlogged

_Modes = dict[str, dict[str, list[Sample]]]
"""One key's samples: mode -> side -> samples."""
_Grouped = dict[str, _Modes]
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
    settings = dataclasses.replace(
        settings,
        gaugeless=gaugeless(logs.logs),
        metrics_url_404=given_404(logs.logs),
        metrics_url_no_gauge=given_no_gauge(logs.logs),
    )
    conditions.check_prompts(comparison, logs)
    checked = conditions.check_conditions(comparison, logs, settings.allow_condition_mismatch)
    served = ModelCheck({})
    if settings.check_models:
        served = check_models(comparison, logs, settings.allow_condition_mismatch)
    grouped = _group(logs.samples)
    unknown = _unknown_keys(comparison, grouped, comparison_path, sample_paths)
    for key, mode in asked_slots(logs.logs, {record.key for record in comparison.records}):
        grouped[key].setdefault(mode, {"base": [], "patch": []})  # asked, lines or none
    evidences = {
        record.key: mode_evidence(record, grouped.get(record.key, {}), settings)
        for record in comparison.records
    }
    corrected = _correct_families(comparison, logs, grouped, evidences, settings)
    records = tuple(
        _record(record, grouped.get(record.key, {}), evidences[record.key], corrected, settings)
        for record in comparison.records
    )
    records = tuple(served.apply(checked.apply(record)) for record in records)
    differing = side_differences(
        logs, settings.check_models and "model" not in comparison.ignore_fields
    )
    records = tuple(hold_sides_differ(record, differing) for record in records)
    sampled = {key for key, _ in shift.sampled(logs)}
    records = tuple(
        hold_unexplained(
            verdict, record, grouped.get(record.key, {}), settings, record.key in sampled
        )
        for verdict, record in zip(records, comparison.records, strict=True)
    )
    records = tuple(
        hold_fields_differ(
            hold_not_comparable(
                hold_unsampled(verdict, record, grouped.get(record.key, {})), record
            ),
            record,
        )
        for verdict, record in zip(records, comparison.records, strict=True)
    )
    sides = {  # the sides each log sampled: as its header says, else as its lines show
        side for log in logs.logs for side in log.header.sides or {s.side for s in log.samples}
    }
    records = tuple(hold_unanswered(r, grouped.get(r.key, {}), sides) for r in records)
    records = hold_besides_text(records, comparison.records, grouped, corrected.sampled, settings)
    records = hold_patch_errors(records, grouped, settings)
    records = hold_unlogged(records, grouped, logs.logs)
    if vacuous:
        records = tuple(held_by_vacuous_control(record, vacuous, control) for record in records)
    one_server = () if settings.allow_same_server else same_server_logs(logs.logs)
    records = tuple(hold_same_server(record, one_server) for record in records)
    # Samples of another condition: more of them decide nothing, samples of the right one do.
    records = tuple(ask_none(record) for record in records)
    mismatched = {
        key: (*checked.mismatched.get(key, ()), *served.mismatched.get(key, ()))
        for key in {*checked.mismatched, *served.mismatched}
    }
    names = side_field_names(logs)
    sides_said = {key: (text, names.get(key, ())) for key, text in differing.items()}
    resampled = resample(records, mismatched, sides_said, logs.logs)
    notes = (log.header.same_server_note(log.path, settings.allow_same_server) for log in logs.logs)
    one_server_notes = tuple(note for note in notes if note is not None)
    unchecked_servers = (log.header.identity_note(log.path) for log in logs.logs)
    return TriageResult(
        comparison=comparison.name,
        samples=tuple(str(path) for path in sample_paths),
        settings=settings,
        records=records,
        unknown_sample_keys=unknown,
        tests=len(corrected.fisher),
        samples_for_bound=stats.samples_for_bound(settings.bound, settings.alpha),
        novelty_tests=len(corrected.novelty),
        runs=run_infos(logs.logs),
        pool_runs=pool_runs,
        control=tuple((side, *control[side]) for side in ("base", "patch") if side in control),
        vacuous=vacuous,
        same_server=described(one_server) or None,
        one_server_notes=one_server_notes,
        gauges=gauges(logs.logs),
        distribution_tests=shift.family_size(corrected.shifts),
        qualifications=tuple(
            q
            for q in (
                checked.qualification(),
                served.qualification(),
                ignored_qualification(comparison.ignore_fields),
                beams_qualification(comparison.beams),
                *one_server_notes,
                *unchecked_servers,
                not_counted(everything),
            )
            if q is not None
        ),
        more_samples_run=more_samples(asked_more(records), logs.logs, settings.allow_same_server),
        resample_run=resampled,
    )


@dataclass(frozen=True)
class _Corrected:
    """Every test's p-value after its correction across all records and modes."""

    fisher: dict[tuple[str, int], float]
    """(key, mode index) -> the instability (Fisher) p, corrected."""
    novelty: dict[tuple[str, int], float]
    """(key, mode index) -> the novelty p, corrected."""
    shifts: dict[tuple[str, str], DistributionTest]
    """(key, mode) -> the distribution test, corrected."""
    sampled: frozenset[tuple[str, str]] = frozenset()
    """(key, mode) pairs whose requests sampled (`shift.sampled`)."""
    seeded: frozenset[tuple[str, str]] = frozenset()
    """(key, mode) pairs sampled with a fixed seed, each side one draw (`shift.seeded_draws`)."""
    requests: shift.Requests = dataclasses.field(default_factory=dict)
    """(key, mode) -> side -> the sampling fields its requests sent (`shift.requests`)."""

    def adjusted(self, key: str, index: int, mode: str) -> Adjusted:
        """One mode's corrected p-values (its index among the record's modes), `sampled`."""
        fisher, novelty = self.fisher.get((key, index)), self.novelty.get((key, index))
        return Adjusted(fisher, novelty, len(self.novelty), (key, mode) in self.sampled)


def _unknown_keys(
    comparison: ResponsesDocument,
    grouped: _Grouped,
    comparison_path: Path,
    sample_paths: tuple[Path, ...],
) -> tuple[str, ...]:
    """Sample keys with no record in the comparison (ignored); UsageError when no key matches."""
    known = {record.key for record in comparison.records}
    unknown = tuple(sorted(key for key in grouped if key not in known))
    if grouped and len(unknown) == len(grouped):
        raise UsageError(
            f"{', '.join(map(str, sample_paths))}: no sample key matches a record of "
            f"{comparison_path} (sample keys such as {unknown[0]!r}); "
            + unmatched_keys_hint(comparison, unknown)
        )
    return unknown


def _correct_families(
    comparison: ResponsesDocument,
    logs: SampleLogs,
    grouped: _Grouped,
    evidences: dict[str, list[ModeEvidence]],
    settings: Settings,
) -> _Corrected:
    """The Fisher, distribution and novelty tests of every record and mode, each family
    corrected as a whole."""
    fisher = _family(evidences, lambda ev: ev.p, settings)
    sampled, seeded = shift.sampled(logs), shift.seeded_draws(logs)
    shifts = shift.distribution_tests(
        grouped,
        [r.key for r in comparison.records],
        sampled,
        settings,
        lambda ps: _correct(ps, settings),
        one_draw=seeded,
    )
    novelty = _family(evidences, lambda ev: None if ev.novelty is None else ev.novelty.p, settings)
    return _Corrected(fisher, novelty, shifts, sampled, seeded, shift.requests(logs))


def _record(
    record: ResponsesRecord,
    samples: _Modes,
    evidences: list[ModeEvidence],
    corrected: _Corrected,
    settings: Settings,
) -> RecordVerdict:
    """One record's verdict: each mode's verdict, rolled up, with the finish-reason flag."""
    serial = next((ev.base for ev in evidences if ev.mode == Mode.SERIAL.value), None)
    oracle = serial.modal_output if serial is not None and serial.stable else None
    modes = tuple(
        _mode_verdict(
            record.key,
            index,
            evidence,
            samples,
            corrected,
            settings,
            None if evidence.mode == Mode.SERIAL.value else oracle,
        )
        for index, evidence in enumerate(evidences)
    )
    return with_finish_reasons(record_verdict(record, modes, samples, settings), samples)


def _mode_verdict(
    key: str,
    index: int,
    evidence: ModeEvidence,
    samples: _Modes,
    corrected: _Corrected,
    settings: Settings,
    oracle: str | None = None,
) -> ModeVerdict:
    """One mode's verdict: decided on its corrected p-values, then its distribution test (with
    the base's stable serial output, `shiftverdict.apply`'s `oracle`), each unstable side's split tree
    and (sweep mode) its curve added."""
    decided = classify.decide(evidence, corrected.adjusted(key, index, evidence.mode), settings)
    test = corrected.shifts.get((key, evidence.mode))
    tested = shiftverdict.apply(decided, test, settings, oracle)
    # A mode a log's header asked the record in holds no request where its lines are missing.
    sent = corrected.requests.get((key, evidence.mode), {side: () for side in SIDES})
    tested = dataclasses.replace(tested, requests=sent)
    if (key, evidence.mode) in corrected.sampled:
        tested = dataclasses.replace(tested, sampled=True)
        if test is None:
            tested = shiftverdict.untested(tested, settings)
    else:
        if (key, evidence.mode) in corrected.seeded:
            tested = dataclasses.replace(tested, reason=f"{tested.reason}; {SEEDED_NOTE}")
        tested = shiftverdict.novel_undecided(tested, settings)
    return with_sweep(samples, _with_splits(samples, tested, settings))


SEEDED_NOTE = (
    "the requests sampled with a fixed seed and each side repeated one output: one draw, not "
    "independent draws, so judged by its exact outputs as a greedy mode (no distribution test)"
)


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
    return stats.corrected(pvalues, settings.correction == Correction.HOLM)

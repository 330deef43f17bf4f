"""What triage ever writes of a record, checked against a `k3diff.triage/1` document
(`triagecheck`): a record's and each mode's `regression_candidate` recounted from the modes'
categories and corrected p-values, a record without modes only as triage leaves one (no
samples for its key: no deciding mode, a match only where the captured texts agree, no
captures sampled), and a side's `captured` only where `--capture-mode` counts it. What the
document does not carry (which keys were sampled at all, the outputs behind the digests)
only running triage again checks, which `report` does when given the comparison and logs."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence

from k3diff.documents.triage import TriageRecord
from k3diff.documents.triagemodes import TriageMode
from k3diff.triage.sampledlevel import judged_at

CANDIDATE_CATEGORIES = frozenset({"deterministic-divergence", "patch-outside-base"}) | {
    "distribution-shift"
}
"""Mode categories triage writes only as regression candidates (`classify.decide`,
`shiftverdict.apply`)."""
TEXTS_EQUAL = frozenset({"match", "tokens-differ", "logprobs-differ"})
"""Comparison statuses whose captured texts are equal: a record without samples is a match
only with one of them (`rollup._record_category`; a `fields-differ` one is held)."""
SIDES = ("base", "patch")


def mode_candidate(mode: TriageMode, alpha: float) -> bool:
    """Whether triage makes the mode a regression candidate, from its category and corrected
    p-values: a divergence, a patch outside the base's outputs, a distribution shift, or a
    patch-nondeterminism whose Fisher or novelty test rejects after correction (a sampled
    mode's novelty test at α / 2, its Fisher test never: `sampledlevel`), whatever the category
    where the numbers make it one (`numbers_candidate`)."""
    if mode.category in CANDIDATE_CATEGORIES or numbers_candidate(mode, alpha):
        return True
    if mode.category != "patch-nondeterminism":
        return False
    if mode.sampled:
        novelty = mode.novelty_p_adjusted
        return novelty is not None and novelty <= judged_at(alpha, True)
    return any(p is not None and p <= alpha for p in (mode.p_adjusted, mode.novelty_p_adjusted))


def numbers_candidate(mode: TriageMode, alpha: float) -> bool:
    """A mode triage makes a regression candidate whatever its category says (review77d: a
    sampled shift relabelled `both-nondeterministic`, its distribution p_adjusted 0.0005, passed
    report with exit 0): a novelty test that rejects on patch outputs the base never gave
    (`classify.decide`), or a distribution test that rejects (`shiftverdict.apply`), other than
    a greedy batched patch settled on one output (`settled_greedy`) or a mode not exercised or
    unproven (held whatever it is). Both at the level triage judges them at (`sampledlevel`)."""
    novelty = mode.novelty_p_adjusted
    if mode.novelty and novelty is not None and novelty <= judged_at(alpha, bool(mode.sampled)):
        return True
    test = mode.distribution
    if test is None or settled_greedy(mode) or unproven(mode):
        return False
    return dataclasses.replace(test, alpha=alpha).rejects


def settled_greedy(mode: TriageMode) -> bool:
    """A greedy patch settled on one output in a batched mode: it may be the base's batch-1
    answer (`shiftverdict._settled_on_oracle`: never a regression); the document cannot say."""
    test = mode.distribution
    sampled = mode.sampled if mode.sampled is not None else test is not None and test.sampled
    return not sampled and mode.patch.distinct == 1 and mode.mode != "serial"


def unproven(mode: TriageMode) -> bool:
    """A mode flagged not exercised or unproven."""
    return any(flag in ("not-exercised", "unproven") for flag in mode.flags)


def written_problems(
    records: Sequence[TriageRecord], alpha: float, capture_mode: str | None
) -> list[str]:
    """Every way the records differ from what triage writes (empty: none found)."""
    problems = []
    for index, record in enumerate(records):
        where = f"records[{index}]"
        problems += _candidate_problems(record, alpha, where)
        problems += _modeless_problems(record, where)
        problems += _capture_problems(record, capture_mode, where)
    return problems


def _candidate_problems(record: TriageRecord, alpha: float, where: str) -> list[str]:
    problems = []
    expected = [mode_candidate(mode, alpha) for mode in record.modes]
    for number, (mode, candidate) in enumerate(zip(record.modes, expected, strict=True)):
        if mode.regression_candidate is not None and mode.regression_candidate != candidate:
            problems.append(
                f"{where}.modes[{number}].regression_candidate is "
                f"{_word(mode.regression_candidate)} but its category {mode.category} "
                f"(p_adjusted {mode.p_adjusted}, novelty_p_adjusted {mode.novelty_p_adjusted}, "
                f"α = {alpha:g}) makes it {_word(candidate)}"
            )
    if record.regression_candidate != any(expected):
        which = ", ".join(
            f"{mode.mode} {mode.category}"
            for mode, candidate in zip(record.modes, expected, strict=True)
            if candidate
        )
        problems.append(
            f"{where}.regression_candidate is {_word(record.regression_candidate)} but "
            + (f"its modes make it one ({which})" if which else "none of its modes is one")
        )
    elif not record.regression_candidate and record.category in CANDIDATE_CATEGORIES:
        problems.append(
            f"{where} is {record.category} but no regression candidate: triage writes that "
            "category only for one"
        )
    return problems


def _modeless_problems(record: TriageRecord, where: str) -> list[str]:
    """Triage writes a record without modes only where its key has no samples."""
    names = [mode.mode for mode in record.modes]
    if record.deciding_mode is not None and record.deciding_mode not in names:
        return [f"{where}.deciding_mode is {record.deciding_mode!r} but it has no such mode"]
    if names:
        return []
    problems = []
    if record.category not in ("match", "inconclusive"):
        problems.append(
            f"{where} has no modes but is {record.category}: a record without samples is a "
            "match or inconclusive"
        )
    elif record.category == "match" and record.comparison_status not in TEXTS_EQUAL:
        problems.append(
            f"{where} has no modes and is a match, but its captures are "
            f"{record.comparison_status}: without samples only equal captures match"
        )
    sampled = sorted({mode for modes in (record.captures or {}).values() for mode in modes})
    if sampled:
        problems.append(
            f"{where} has no modes but its captures were sampled in {', '.join(sampled)}"
        )
    return problems


def _capture_problems(record: TriageRecord, capture_mode: str | None, where: str) -> list[str]:
    """A side's `captured` only in `--capture-mode`'s mode and only where it had a capture
    (`records[].captures` lists it); `captures` per side naming every mode with its samples."""
    problems = []
    for number, mode in enumerate(record.modes):
        for name in SIDES:
            side = getattr(mode, name)
            had = record.captures is None or name in record.captures
            counted = capture_mode is not None and mode.mode == capture_mode and had
            if side.captured != counted and (side.captured or record.captures is not None):
                why = (
                    "the document counts no capture (capture_mode null)"
                    if capture_mode is None
                    else f"its capture counts in {capture_mode} only, where it had one"
                )
                problems.append(
                    f"{where}.modes[{number}].{name}.captured is {_word(side.captured)} but {why}"
                )
    if record.captures is None or not record.modes:
        return problems
    modes = {mode.mode: mode for mode in record.modes}
    for name, reproduced in record.captures.items():
        if name not in SIDES:
            problems.append(f"{where}.captures names {name!r}, no side")
        elif set(reproduced) != set(modes):
            problems.append(
                f"{where}.captures.{name} names the modes {', '.join(sorted(reproduced))} "
                f"but the record's modes are {', '.join(sorted(modes))}"
            )
        else:
            problems += _reproduced_problems(name, reproduced, modes, where)
    return problems


def _reproduced_problems(
    name: str,
    reproduced: Mapping[str, tuple[int, int]],
    modes: Mapping[str, TriageMode],
    where: str,
) -> list[str]:
    problems = []
    for mode, (_, n) in reproduced.items():
        side = getattr(modes[mode], name)
        if side.sampled != n:
            problems.append(
                f"{where}.captures.{name}.{mode}.n is {n:,} but that mode's {name} has "
                f"{side.sampled:,} successful samples"
            )
    return problems


def _word(value: bool) -> str:
    return "true" if value else "false"

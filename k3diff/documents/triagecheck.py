"""The triage document's check against itself (`k3diff.documents.checks`): its counts per
category, regression candidates and verdict recounted from its records, and the records that
triage's rule fails whatever their flags say recounted from their numbers (never sampled,
sampled without power, a greedy patch output the base never gave left undecided, fields other
than the text differing)."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from k3diff.documents.distribution import TriageDistribution
from k3diff.documents.triage import TriageDocument, TriageRecord
from k3diff.documents.triagefamilies import family_problems
from k3diff.documents.triagemodes import TriageMode
from k3diff.documents.triagerules import fields_unjudged, unanswered_records, unsampled_records
from k3diff.documents.triagesampled import sampled_problems
from k3diff.documents.triagewritten import written_problems
from k3diff.documents.verdicts import status_problems
from k3diff.errors import InputError
from k3diff.exitcodes import verdict_problems
from k3diff.responses.doccheck import refuse_disagreement
from k3diff.triage.model import HELD_FLAGS, Category
from k3diff.triage.sampledlevel import judged_at
from k3diff.triage.shiftverdict import beyond_shift, greedy_unpowered


def compare_summary(
    problems: list[str], summary: Mapping[str, Any], field: str, counted: int, where: str = ""
) -> None:
    """Note a disagreement when the summary states `field` and it is not `counted`."""
    if field not in summary:
        return
    stated = summary[field]
    if stated != counted:
        problems.append(f"{where}summary.{field} is {stated!r} but its records give {counted:,}")


def check_triage(view: TriageDocument, name: str) -> None:
    """`k3diff.triage/1`: records per category, regression candidates and the verdict."""
    records, summary = view.records, view.summary
    shift = _shift(view, name)
    categories = Counter(r.category for r in records)
    candidates = sum(1 for r in records if r.regression_candidate)
    problems = status_problems(records) + _sampled_problems(records)
    problems += _match_problems(records) + _power_problems(records) + _novelty_problems(records)
    problems += written_problems(records, view.alpha, view.capture_mode)
    problems += _shift_problems(records, shift) + sampled_problems(view)
    problems += family_problems(view)
    compare_summary(problems, summary, "records", len(records))
    compare_summary(problems, summary, "regression_candidates", candidates)
    for category in Category:
        compare_summary(problems, summary, category.value, categories.get(category.value, 0))
    inconclusive = categories.get("inconclusive", 0)
    gated = inconclusive if view.fail_inconclusive else 0
    vacuous = sum(1 for r in records if "vacuous" in r.flags)
    compare_summary(problems, summary, "vacuous", vacuous)
    held = [r for r in records if r.category == "inconclusive" and HELD_FLAGS & set(r.flags)]
    if "held" in summary:
        compare_summary(problems, summary, "held", len(held))
    # Counted from the records' numbers, not their flags: a document that does not flag one
    # (written before the rule, or edited) does not pass it.
    never = {r.key for r in unsampled_records(records)}
    # The same for no-power: a record a sampled test that could not detect the document's
    # shift left standing fails, whatever its flags and category say
    # (`shiftverdict._underpowered`).
    held_keys = {r.key for r in held}
    powerless = [r for r in records if _powerless(r, shift) and r.key not in held_keys | never]
    # And for fields-unjudged: texts equal, other fields differing, no candidate.
    unjudged = [r for r in fields_unjudged(records) if r.key not in held_keys | never]
    # And for novel-undecided: a greedy mode that left a patch output the base never gave
    # undecided fails, whatever its flags say (`shiftverdict.novel_undecided`).
    novel = [
        r
        for r in records
        if _novel_undecided(r, shift)
        and r.key not in held_keys | never | {p.key for p in powerless}
    ]
    # And for unanswered: a side whose every request for the record failed (triage69).
    silent = [
        r
        for r in unanswered_records(records)
        if r.key not in held_keys | {p.key for p in powerless + unjudged + novel}
    ]
    compare_summary(problems, summary, "unsampled", len(never))
    unanswered = sum(1 for r in records if "unanswered" in r.flags)
    compare_summary(problems, summary, "unanswered", unanswered)
    # `TriageResult.exit_code`'s rule: each of these fails the run.
    reasons = {
        "regression candidates": candidates,
        "inconclusive under fail_inconclusive": gated,
        "on a vacuous control": vacuous,
        "held (a mode not exercised or unproven, samples of another condition, a capture "
        "the samples do not explain, a test without power, a patch output left undecided, "
        "fields other than the text that differ, a patch ending its answers otherwise or "
        "giving other token ids, or base and patch on one server)": sum(
            1 for r in held if r.key not in never
        ),
        "never sampled on a side although their captures differ": len(never),
        "sampled without power (no-power) but not held": len(powerless),
        "with fields other than the text differing (fields-unjudged) but not held": len(unjudged),
        "left undecided on a greedy patch output the base never gave (novel-undecided) but "
        "not held": len(novel),
        "with a side that answered none of their requests (unanswered) but not held": len(silent),
    }
    failing = [f"{count:,} {what}" for what, count in reasons.items() if count]
    problems += verdict_problems(view.ok, view.exit_code, failing, "its records")
    refuse_disagreement(name, problems)


def _shift(view: TriageDocument, name: str) -> float:
    """The document's `shift` (its reader refuses one outside (0, 1]), refused (one line) where
    it is missing and a sampled mode's non-rejection needs it (a document written before the field; one without
    such a mode is read at triage's default, which decides nothing there)."""
    shift = view.shift
    if shift is None:
        judged = sum(1 for r in view.records for m in r.modes if _judged_by_shift(m))
        if judged:
            raise InputError(
                f"{name}: field 'shift' is missing, and {judged:,} sampled mode"
                f"{'s' if judged != 1 else ''} whose distribution test did not reject "
                f"{'are' if judged != 1 else 'is'} held no-power or cleared by it (k3diff triage "
                "--shift): regenerate the document with k3diff triage"
            )
        return DEFAULT_SHIFT
    return shift


DEFAULT_SHIFT = 0.35
"""`k3diff triage --shift`'s default."""


def _judged_by_shift(mode: TriageMode) -> bool:
    """A sampled mode whose distribution test did not reject: `shift` holds or clears it."""
    test = mode.distribution
    return test is not None and test.sampled and not test.rejects


def _held_by_shift(mode: TriageMode, shift: float) -> bool:
    """`_judged_by_shift`, where the test could not have detected `shift` (`beyond_shift`)."""
    test = mode.distribution
    return (
        test is not None and _judged_by_shift(mode) and beyond_shift(test.detectable_shift, shift)
    )


def _powerless(record: TriageRecord, shift: float) -> bool:
    """A record no test made a regression candidate with a sampled mode whose non-rejection
    clears nothing, other than a match (both sides on one output, 2 or more a side): its
    distribution test did not reject and could not have detected `shift` (no power at all,
    or only against a larger shift: `shiftverdict._underpowered`), or no test ran
    (`shiftverdict.untested`)."""
    if record.regression_candidate:
        return False
    for mode in record.modes:
        if mode.distribution is None:
            unseen = _untested_sampled(mode)
        else:
            unseen = _held_by_shift(mode, shift)
        if unseen and not _match(mode):
            return True
    return False


def _shift_problems(records: Sequence[TriageRecord], shift: float) -> list[str]:
    """Holds that disagree with the document's `shift`: a mode flagged no-power whose sampled
    test did not reject and could detect the shift (a shift raised above what its tests
    could detect, or a hold without its numbers), and a mode of a record no test made a
    candidate whose numbers hold it but that does not say so (the flag dropped)."""
    problems = []
    for index, record in enumerate(records):
        for number, mode in enumerate(record.modes):
            test = mode.distribution
            if test is None or not _judged_by_shift(mode):
                continue
            held = _held_by_shift(mode, shift)
            where = f"records[{index}].modes[{number}]"
            if "no-power" in mode.flags and not held:
                problems.append(
                    f"{where} is held no-power but its sampled test could detect "
                    f"{test.detectable_shift:g} of the answers moved, at or below the "
                    f"document's shift {shift:g}"
                )
                continue
            holdable = not record.regression_candidate and not _match(mode)
            if held and holdable and "no-power" not in mode.flags:
                could = (
                    "no shift"
                    if test.detectable_shift is None
                    else f"only {test.detectable_shift:g} of the answers moved"
                )
                problems.append(
                    f"{where}'s sampled test did not reject and could detect {could}, above "
                    f"the document's shift {shift:g}, but it is not held no-power"
                )
    return problems


def _novel_undecided(record: TriageRecord, shift: float) -> bool:
    """A record no test made a regression candidate with a greedy mode (`_greedy`) whose
    novelty counts a patch sample the base never gave, other than `both-nondeterministic`
    (both sides 2 or more distinct outputs: the base's own variation, which passes where its
    distribution test could tell, `shiftverdict.greedy_unpowered` at `shift`): from the
    mode's numbers, not its category's word inconclusive nor the flag, so relabelling the
    mode (a match or `base-nondeterminism` has no novelty; a stable base is no
    both-nondeterministic) or dropping the flag clears nothing."""
    if record.regression_candidate:
        return False
    for mode in record.modes:
        if not _greedy(mode) or not mode.novelty:
            continue
        varied = min(mode.base.distinct, mode.patch.distinct) >= 2
        test = mode.distribution
        told = test is not None and not greedy_unpowered(test.test, test.detectable_shift, shift)
        if not (mode.category == "both-nondeterministic" and varied and told):
            return True
    return False


def _greedy(mode: TriageMode) -> bool:
    """A mode whose requests did not sample (its `sampled`, else its distribution test's): a
    document without either is taken as greedy here, since a sampled mode with a novelty
    (each side 2 or more samples) always has a distribution test."""
    if mode.sampled is not None:
        return not mode.sampled
    return mode.distribution is None or not mode.distribution.sampled


def _untested_sampled(mode: TriageMode) -> bool:
    """A mode no distribution test ran on whose requests sampled (`TriageMode.sampled`). A
    document without the field (written before it, or with it dropped) is taken at its
    numbers: sampled wherever they allow no test (a side with fewer than 2 successful samples
    sent), so omitting the field never clears a mode; a greedy one of an older document with
    such a side is judged as sampled."""
    if mode.sampled is not None:
        return mode.sampled
    return min(mode.base.sampled, mode.patch.sampled) < 2


def _match(mode: TriageMode) -> bool:
    """Both sides stable on one output, each on 2 or more (the capture counted where it is one
    of them), and the same one: no patch sample gave an output the base never gave (a
    novelty of 1 or more is two outputs, a divergence called a match). What `classify` calls
    a match."""
    sides = (mode.base, mode.patch)
    return (
        mode.category == "match"
        and not mode.novelty
        and all(s.distinct == 1 and s.n >= 2 for s in sides)
    )


def _sampled_problems(records: Sequence[TriageRecord]) -> list[str]:
    """A mode whose `sampled` contradicts its distribution test's: both come from one rule
    (`shift.sampled`), so one was edited."""
    problems = []
    for index, record in enumerate(records):
        for number, mode in enumerate(record.modes):
            test = mode.distribution
            if mode.sampled is not None and test is not None and test.sampled != mode.sampled:
                problems.append(
                    f"records[{index}].modes[{number}].sampled is {str(mode.sampled).lower()} "
                    f"but its distribution test's is {str(test.sampled).lower()}"
                )
    return problems


def _power_problems(records: Sequence[TriageRecord]) -> list[str]:
    """A distribution test said to detect a shift at sample sizes where no test of the side
    labels can reject: its p is never below 1/C(m + n, n) (the observed labelling is one of
    them; `power.smallest_permutation_p`, without the MMD's tie), so above the level the test
    is judged at nothing is detectable and `detectable_shift` is None (`power.detectable_shift`).
    A document that claims power there was edited to clear a no-power hold. The level: the
    test's `level` (α over its family, `_family_problems` checks it), else the α it is judged
    at (a sampled mode's α / 2, `sampledlevel`: review77d, 3 a side reach 1/20 = α but not α / 2)."""
    problems = []
    for index, record in enumerate(records):
        for number, mode in enumerate(record.modes):
            test = mode.distribution
            if test is None or test.detectable_shift is None or not 0 < test.alpha < 1:
                continue
            level = _power_level(test)
            labellings = _labellings(mode.base.n, mode.patch.n, math.ceil(1 / level))
            if 1 / labellings > level:
                problems.append(
                    f"records[{index}].modes[{number}].distribution.detectable_shift is "
                    f"{test.detectable_shift:g} but no test of {mode.base.n:,} and "
                    f"{mode.patch.n:,} samples reaches p ≤ {level:g} (its smallest p is "
                    f"1/{labellings:,})"
                )
    return problems


def _power_level(test: TriageDistribution) -> float:
    """The level a test's stated power was computed at: its `level` where the document gives
    one in (0, the α it is judged at], else that α (`sampledlevel.judged_at`)."""
    judged = judged_at(test.alpha, test.sampled)
    if test.level is not None and 0 < test.level <= judged:
        return test.level
    return judged


def _labellings(m: int, n: int, cap: int) -> int:
    """C(m + n, n), or `cap` once it reaches it (a forged n of millions costs no big number):
    C(m + n - k + i, i) for i up to k = min(m, n) grows with i and is an integer each step."""
    k, count = min(m, n), 1
    for i in range(1, k + 1):
        count = count * (m + n - k + i) // i
        if count >= cap:
            return cap
    return count


def _match_problems(records: Sequence[TriageRecord]) -> list[str]:
    """A mode called a match whose novelty counts patch samples the base never gave: `classify`
    calls a mode a match only where both sides are stable on one and the same output, where no
    novelty test runs (the pooled samples hold one output), so a divergence was relabelled."""
    return [
        f"records[{index}].modes[{number}] is a match but its novelty counts "
        f"{mode.novelty:,} patch samples whose output the base never gave"
        for index, record in enumerate(records)
        for number, mode in enumerate(record.modes)
        if mode.category == "match" and mode.novelty
    ]


def _novelty_problems(records: Sequence[TriageRecord]) -> list[str]:
    """A greedy mode whose `novelty` counts fewer patch samples the base never gave than
    its numbers force: serial mode judges its own samples only, so a patch with more
    distinct outputs than an observed base gives at least that many the base never gave, each
    once, and against a base without an observation there (every request failed, or none
    sent; outside serial mode, in none of the record's modes) every patch observation is one
    (`novelty` is written even where no test ran, a side under 2 samples). A document
    that nulls it was edited to clear a novel-undecided hold."""
    problems = []
    for index, record in enumerate(records):
        unobserved = all(not mode.base.distinct for mode in record.modes)
        for number, mode in enumerate(record.modes):
            if not _greedy(mode):
                continue
            serial = mode.mode == "serial"
            if mode.base.distinct and serial:
                forced = mode.patch.distinct - mode.base.distinct
                why = (
                    f"its patch gave {mode.patch.distinct:,} distinct serial outputs to the "
                    f"base's {mode.base.distinct:,}: at least {forced:,} are ones the base "
                    "never gave"
                )
            elif not mode.base.distinct and (serial or unobserved):
                forced = mode.patch.n
                why = (
                    f"its base gave no successful {mode.mode} answer"
                    + ("" if serial else " in any mode")
                    + f" and its patch {forced:,}: each is one the base never gave"
                )
            else:
                continue
            if forced > (mode.novelty or 0):
                problems.append(
                    f"records[{index}].modes[{number}].novelty is {mode.novelty!r} but {why} "
                    "(novel-undecided)"
                )
    return problems

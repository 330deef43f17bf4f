"""A triage document judged again at the house α (alpha61): `report` names a document made at
another α (`alphanotes`), but a run with `triage --alpha 0.001` turned a patch's novel outputs
into `both-nondeterministic` and `report` exited 0.

Each test the document carries what it needs for is read again at the house α (triage's
default, 0.05), and the exit code follows the stricter reading *in the passing direction of
the test's own claim*:

- a "differs" claim (Fisher's instability test, the novelty test, the distribution test) fails
  a record when it rejects; a larger α rejects more, so a mode fails when it rejects at
  max(the document's α, the house α). The document's own reading is the one at its α (already
  checked against itself by `triagecheck`); here a mode it did not make a candidate is one when
  its corrected p is at most the house α and the mode's numbers make it one (`classify.decide`:
  a novelty test counts only where the patch gave outputs outside the base's; Fisher's only
  where the base is stable and the patch not);
- a "could have detected" claim (a non-rejection's power, the non-modal bound of a stable side)
  gets stricter with a *smaller* α; triage states it as a qualification and never passes a
  record on it alone, so it changes no exit code here.

Corrected p-values (Holm, Benjamini-Hochberg, Bonferroni) do not depend on α, so comparing the
document's `p_adjusted` with the house α is the test triage would have made. A document made at
a larger α than the house's is already the stricter reading of every "differs" claim, but not of
a "could have detected" one (a first-token test's premise, a test's power): read alone, a test
its premise voided where the house α runs it is not cleared (review62); given with its
comparison and logs, triage runs again on them at the house α (`rederive.triaged_at_house`) and
a record fails where that run fails it (rerun62)."""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from typing import Any

from k3diff.documents.triage import TriageDocument
from k3diff.documents.triagemodes import TriageMode
from k3diff.documents.triagewritten import mode_candidate, settled_greedy, unproven
from k3diff.responses.document import ResponsesDocument
from k3diff.responses.scores import DEFAULT_ALPHA as SCORES_HOUSE
from k3diff.responses.scores import ScoreKind, ScoreTest
from k3diff.triage.sampledlevel import alpha_text, judged_at
from k3diff.triage.settings import DEFAULT_ALPHA as HOUSE_ALPHA

__all__ = [
    "HOUSE_ALPHA",
    "SCORES_HOUSE",
    "Rejudged",
    "house_cleared",
    "rejudge",
    "rejudged_sentence",
    "score_rejudged",
    "score_sentence",
]


@dataclass(frozen=True)
class Rejudged:
    """One mode of one record that the house α makes a regression candidate."""

    record: str
    """The record as the user names it."""
    mode: str
    """serial, concurrent, ..."""
    was: str
    """The mode's category as the document wrote it."""
    test: str
    """The test that rejects at the house α, with its corrected p (or the p the document
    lacks)."""
    candidate: bool = True
    """A regression candidate at the house α (False: left undecided there by triage run again
    at the house α, which fails that run; rerun62)."""

    def sentence(self) -> str:
        return f"{self.record} ({self.mode}, written {self.was}): {self.test}"


MISSING = "no {} in the document, which triage writes here: not cleared"
"""A test the house α needs whose corrected p the document lacks (review61b)."""


def _house_test(mode: TriageMode) -> str | None:
    """The test that makes the mode a regression candidate at the house α (None: none)."""
    if min(mode.base.n, mode.patch.n) < 2:
        return None
    outside = mode.novelty is not None and mode.novelty > 0
    p = mode.novelty_p_adjusted
    judged = judged_at(HOUSE_ALPHA, bool(mode.sampled))  # a sampled mode's: α / 2
    if outside and p is None:
        # Triage tests novelty wherever a patch output lies outside the base's (two samples a
        # side): a document without its p (the field deleted, which the run again does not
        # compare) cannot be cleared at the house α (review61b).
        return f"patch outputs the base never gave ({MISSING.format('novelty_p_adjusted')})"
    if outside and p is not None and p <= judged:
        return (
            f"patch outputs the base never gave (novelty p_adjusted {p:.3g}) ≤ "
            f"{alpha_text(HOUSE_ALPHA, bool(mode.sampled))}"
        )
    if mode.sampled:  # the Fisher test is supporting evidence in a sampled mode
        return _distribution_test(mode)
    p = mode.p_adjusted
    if mode.base.distinct == 1 and mode.patch.distinct > 1 and p is None:
        return f"patch less stable than the base ({MISSING.format('p_adjusted')})"
    if mode.base.distinct == 1 and mode.patch.distinct > 1 and p is not None and p <= HOUSE_ALPHA:
        return f"patch less stable than the base (Fisher p_adjusted {p:.3g}) ≤ α = {HOUSE_ALPHA:g}"
    return _distribution_test(mode)


def _distribution_test(mode: TriageMode) -> str | None:
    """The distribution test that rejects at the house α (its own judged level), if any."""
    test = mode.distribution
    if test is None or not dataclasses.replace(test, alpha=HOUSE_ALPHA).rejects:
        return None
    if settled_greedy(mode) or unproven(mode):
        return None
    return (
        f"the output distribution moved ({test.test} p_adjusted {test.p_adjusted:.3g}) "
        f"≤ {alpha_text(HOUSE_ALPHA, test.sampled)}"
    )


def _premise_held(mode: TriageMode, alpha: float) -> str | None:
    """A first-token test the document's α voided by its premise that the house α would have
    run (None: none). Its result is not in the document: not cleared."""
    test = mode.distribution
    if test is None or test.premise_p is None or test.premise_p <= HOUSE_ALPHA or unproven(mode):
        return None
    return (
        f"the first-token test, voided at α = {alpha:g} by its premise (the base's own first "
        f"tokens, p_adjusted {test.premise_p:.3g} > α = {HOUSE_ALPHA:g}), runs at the house α: "
        "its result is not in the document, so not cleared (re-run triage at --alpha "
        f"{HOUSE_ALPHA:g})"
    )


def _candidate(mode: TriageMode, alpha: float) -> bool:
    return mode_candidate(mode, alpha) or bool(mode.regression_candidate)


HOUSE_DECIDES = "the house α's reading decides"
"""Said where triage run again at the house α fails what the document's own reading passed."""


def _house_failed(triage: TriageDocument, house: TriageDocument) -> list[Rejudged]:
    """The records triage run again at the house α on the comparison and logs given fails
    (a regression candidate, or left inconclusive where that run fails) and the document does
    not: the "could have detected" claims (a premise, a test's power) are stricter there."""
    written = {record.key: record for record in triage.records}
    found = []
    for again in house.records:
        record = written.get(again.key)
        if record is None or record.regression_candidate:
            continue
        if again.regression_candidate:
            mode = next((m for m in again.modes if _candidate(m, HOUSE_ALPHA)), None)
            why = None if mode is None else _house_test(mode)
            verdict = f"makes it a regression candidate ({why or again.category})"
        elif again.category == "inconclusive" != record.category and house.exit_code:
            mode = next((m for m in again.modes if m.category == "inconclusive"), None)
            flags = ", ".join(again.flags) or "undecided"
            verdict = f"leaves it inconclusive ({flags}), which fails that run"
        else:
            continue
        name = again.modes[0].mode if mode is None else mode.mode
        written_mode = next((m for m in record.modes if m.mode == name), None)
        voided = None if written_mode is None else _premise_held(written_mode, triage.alpha)
        head = "" if voided is None else voided.split(": its result", 1)[0] + "; "
        test = (
            f"{head}triage run again at α = {HOUSE_ALPHA:g} on the logs given {verdict}: "
            f"{HOUSE_DECIDES}"
        )
        found.append(Rejudged(record.name, name, record.category, test, again.regression_candidate))
    return found


def rejudge(
    name: str, triage: TriageDocument, house: TriageDocument | None = None
) -> tuple[Rejudged, ...]:
    """The modes a document made at an α below the house's would have made regression
    candidates at the house α, and, at an α above it, those whose first-token test the
    document's α voided by its premise where the house α runs it (review62: the premise, a
    "could have detected" claim the test rests on, is stricter at a larger α). Empty: none, or
    a document at the house α. `house`: triage run again at the house α on the comparison and
    logs given (rerun62, for a document above it): a record then fails where that run fails it
    and the document does not (the stricter of the two readings), and it says so."""
    if triage.alpha == HOUSE_ALPHA:
        return ()
    if house is not None and triage.alpha > HOUSE_ALPHA:
        return tuple(_house_failed(triage, house))
    found = []
    for record in triage.records:
        for mode in record.modes:
            if _candidate(mode, triage.alpha):
                continue
            if triage.alpha < HOUSE_ALPHA:
                test = _house_test(mode)
            else:
                test = _premise_held(mode, triage.alpha)
            if test is not None:
                found.append(Rejudged(record.name, mode.mode, mode.category, test))
    return tuple(found)


def house_cleared(name: str, triage: TriageDocument, house: TriageDocument | None) -> str | None:
    """'t.json: triage run again at the house α = 0.05 on the logs given ran the first-token
    tests its α = 0.2 voided by their premise (p3 serial) and fails none of them: the
    document's reading decides' (None: no such test, or not run again)."""
    if house is None:
        return None
    failed = {r.record for r in _house_failed(triage, house)}
    cleared = [
        f"{record.name} {mode.mode}"
        for record in triage.records
        for mode in record.modes
        if record.name not in failed
        and not _candidate(mode, triage.alpha)
        and _premise_held(mode, triage.alpha) is not None
    ]
    if not cleared:
        return None
    return (
        f"{name}: triage run again at the house α = {HOUSE_ALPHA:g} on the logs given ran the "
        f"first-token tests its α = {triage.alpha:g} voided by their premise "
        f"({', '.join(cleared)}) and fails none of them: the document's reading decides"
    )


def rejudged_sentence(
    name: str, triage: TriageDocument, house: TriageDocument | None = None
) -> str | None:
    """'at the house α = 0.05 triage.json fails: k0 (serial, written both-nondeterministic):
    ...' (None: the house α changes nothing)."""
    found = rejudge(name, triage, house)
    if not found:
        return None
    these = "this was not a regression candidate" if len(found) == 1 else "these were none"
    return (
        f"at the house α = {HOUSE_ALPHA:g} {name} fails (judged at α = {triage.alpha:g}, where "
        f"{these}): {'; '.join(r.sentence() for r in found)}"
    )


def _at_house(test: ScoreTest, alpha: float, power: float) -> ScoreTest:
    """The score test as `responses --score-alpha 0.05` states it: significance from the same
    Holm-adjusted p, a continuous MDE rescaled to the house level (a binary one the gate
    recomputes from its counts)."""
    from k3diff.responses.gatepower import gate_mde

    continuous = test.kind is ScoreKind.CONTINUOUS
    mde = gate_mde(test, alpha, SCORES_HOUSE, power) if continuous else test.mde
    return dataclasses.replace(test, significant=test.p_adjusted <= SCORES_HOUSE, mde=mde)


def score_rejudged(responses: ResponsesDocument) -> tuple[str, ...]:
    """What the house α (`responses --score-alpha`'s default, 0.05) fails that the document's
    own α passed: a score drop significant at 0.05 (a "differs" claim: a document at a smaller
    α missed it), and, under `--fail-on score-drop`, a metric the gate at 0.05 holds or fails
    (its pass is a "could have detected" claim, an MDE within the tolerance, stricter at a
    smaller α: a document at a larger α passed it too easily). Empty: nothing changes."""
    scores = responses.scores
    if scores is None or scores.alpha == SCORES_HOUSE:
        return ()
    house = tuple(_at_house(test, scores.alpha, scores.power) for test in scores.tests)
    found = [
        f"{test.label} dropped (p_adjusted {test.p_adjusted:.3g})"
        for test, again in zip(scores.tests, house, strict=True)
        if again.fails and not test.fails
    ]
    gate = responses.score_gate
    if gate is not None and gate.passes:
        from k3diff.responses.scoregate import decide

        derived = decide(house, SCORES_HOUSE, scores.power, scores.one_sided, gate.options)
        found += [
            f"score gate {finding.name} on {finding.label}"
            for finding in derived.findings
            if finding.label is not None
        ]
    return tuple(dict.fromkeys(found))


def score_sentence(name: str, responses: ResponsesDocument) -> str | None:
    """'at the house α = 0.05 cmp.json fails: acc dropped (p_adjusted 0.02)' (None: nothing
    changes)."""
    found = score_rejudged(responses)
    if not found:
        return None
    assert responses.scores is not None
    # What passed at the document's own α (it may have exited 1 there on something else).
    these = " in these" if any(test.fails for test in responses.scores.tests) else ""
    return (
        f"at the house α = {SCORES_HOUSE:g} {name} fails (its score tests at α = "
        f"{responses.scores.alpha:g} found no significant drop{these}): {'; '.join(found)}"
    )


_HOUSE_USE = re.compile(r"the house α = ([0-9.e-]+)")


def define_house_alpha(summary: dict[str, Any]) -> dict[str, Any]:
    """`summary` with its first "the house α = 0.05", in the order REPORT.md reads it (bottom
    line, matrix, qualifications, ...), saying what the house α is (polish61c)."""
    done = False

    def walk(value: Any) -> Any:
        nonlocal done
        if done:
            return value
        if isinstance(value, str):
            found = _HOUSE_USE.search(value)
            if found is None:
                return value
            done = True
            defined = (
                f"the house α (the α every k3diff command defaults to, {found.group(1)}; "
                "report holds each document to it)"
            )
            return value[: found.start()] + defined + value[found.end() :]
        if isinstance(value, list):
            return [walk(v) for v in value]
        if isinstance(value, dict):  # not the title: the user's own words
            return {k: v if k == "title" else walk(v) for k, v in value.items()}
        return value

    out: dict[str, Any] = walk(summary)
    return out

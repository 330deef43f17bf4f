"""A record the comparison could not compare (`not-comparable`) held, in the words of what
differs: the captured prompts, or the lm-eval document, gold target or request arguments
(resp67, lmeval67: every one read "captures whose prompts differ")."""

from __future__ import annotations

from k3diff.responses.lmevalinputs import INPUT_WORDS
from k3diff.responses.recordview import ResponsesRecord
from k3diff.responses.results import Status
from k3diff.triage.flags import Flag
from k3diff.triage.model import RecordVerdict
from k3diff.triage.rollup import held

NOT_COMPARABLE_WHY = (
    "not-comparable: the captured prompts differ (the base's and the patch's captures answer "
    "different requests), so the comparison compared nothing for this record and samples of "
    "one prompt cannot clear it; capture both sides with the same prompts (the same task, "
    "few-shot examples and chat template) and compare again"
)
CHANGED_INPUTS = (
    (
        "doc",
        Flag.DOC_CHANGED,
        "not-comparable: the document changed (the base's and the patch's logs hold another "
        "dataset row under this doc id{also}), so the two runs did not score the same question, "
        "the comparison compared nothing for this record and samples cannot clear it; run both "
        "sides on the same dataset revision and split and compare again",
    ),
    (
        "target",
        Flag.TARGET_CHANGED,
        "not-comparable: the gold target changed (the same document, another target in the "
        "patch's log{also}), so the two runs did not score the same answer as right, the "
        "comparison compared nothing for this record and samples cannot clear it; run both "
        "sides on the same task version (its doc_to_target) and compare again",
    ),
    (
        "arguments",
        Flag.ARGUMENTS_CHANGED,
        "not-comparable: the request arguments changed (the same prompt, another continuation "
        "or generation setting such as until, max_gen_toks or temperature in the patch's "
        "log{also}), so the two runs did not ask the same of the model, the comparison "
        "compared nothing for this record and samples cannot clear it; run both sides with the "
        "same task config and --gen_kwargs and compare again",
    ),
    (
        "prompt-unknown",
        Flag.PROMPT_UNKNOWN,
        "not-comparable: the prompt is in one log only (the other holds neither the request "
        "arguments nor lm-eval's prompt_hash{also}), so the prompts cannot be compared, the "
        "comparison compared nothing for this record and samples cannot clear it; compare logs "
        "lm-eval wrote whole (both with their arguments) and compare again",
    ),
    (
        "arguments-unknown",
        Flag.ARGUMENTS_UNKNOWN,
        "not-comparable: the request arguments are missing from one log or both (lm-eval "
        "writes them on every line{also}), so the continuations and generation settings such "
        "as until, max_gen_toks or temperature cannot be compared, the comparison compared "
        "nothing for this record and samples cannot clear it; compare logs lm-eval wrote whole "
        "(both with their arguments) and compare again",
    ),
)
"""lm-eval inputs whose change holds a record in its own words, the most basic first (a doc
that changed changes its prompt and target with it): (input, flag, reason)."""


def hold_not_comparable(verdict: RecordVerdict, record: ResponsesRecord) -> RecordVerdict:
    """`verdict`, made inconclusive (flag not-comparable) when the comparison could not compare
    the record because its captured prompts differ, or the eval's document, gold target or
    request arguments (a flag beside it says which, resp67: they read "captures whose prompts
    differ"): `k3diff responses` fails such a record, and samples repeat one request, so whatever they show
    leaves the other side's captured prompt unjudged (a patch whose harness changed the prompt
    would pass unseen). It fails the run whatever `--fail-inconclusive` says; a regression
    candidate stays one."""
    if record.status != Status.NOT_COMPARABLE.value or verdict.regression_candidate:
        return verdict
    differing = record.not_comparable_inputs
    for name, flag, why in CHANGED_INPUTS:
        if name in differing:
            others = [INPUT_WORDS[n] for n in INPUT_WORDS if n in differing and n != name]
            plural = len(others) > 1 or others[-1:] in (
                [INPUT_WORDS["arguments"]],
                [INPUT_WORDS["arguments-unknown"]],
            )
            also = f"; its {' and '.join(others)} differ{'' if plural else 's'} too"
            why = why.format(also=also if others else "")
            return held(verdict, Flag.NOT_COMPARABLE, why, samples_decide=False, also=(flag,))
    return held(verdict, Flag.NOT_COMPARABLE, NOT_COMPARABLE_WHY, samples_decide=False)

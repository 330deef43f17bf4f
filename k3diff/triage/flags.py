"""The sub-findings a triage verdict carries (`Flag`), and those that keep an inconclusive
record from passing (`HELD_FLAGS`); `k3diff.triage.model` re-exports both."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from enum import StrEnum


class Flag(StrEnum):
    """Sub-findings attached to a verdict where the data allow."""

    PATCH_INSIDE_BASE_SET = "patch-output-inside-base-set"
    """The base gave several outputs and every output of the patch is among them."""
    PATCH_OUTSIDE_BASE_SET = "patch-output-outside-base-set"
    """The base gave several outputs and the patch gave one the base never gave."""
    CONCURRENCY_DEPENDENT = "concurrency-dependent"
    """A side stable serially gives other outputs under concurrency or load (from samples)."""
    FIRST_REQUEST_DIFFERS = "first-request-differs"
    """A side's first sample differs and the rest agree (a cache warm-up pattern)."""
    NEAR_TIE_FLIP = "near-tie-flip"
    """The top-1/top-2 logprob gap at the divergence is under the --near-tie tolerance."""
    ERRORS_PRESENT = "errors-present"
    """Failed samples reduced n."""
    FINISH_REASON_DIFFERS = "finish-reason-differs"
    """The sides gave the same text with different finish reasons (stop vs length, ...)."""
    FINISH_REASON_SHIFT = "finish-reason-shift"
    """The patch ended its answers otherwise than the base: a greedy mode's text the base also
    gave, with a finish reason the base never gave it with, or finish reasons the count test
    finds moved off the base's (`k3diff.triage.finishholds`). The finish reason is output that
    the texts the other tests compare do not hold. Never a pass: inconclusive, and it fails the
    run."""
    TOKEN_IDS_DIFFER = "token-ids-differ"
    """A greedy mode's patch gave a text the base also gave as token ids the base never gave it
    as, or the comparison found the captured texts equal and their token ids differing
    (`tokens-differ`) and no mode's samples log token ids on both sides to judge them
    (`k3diff.triage.besidetext`). Never a pass: inconclusive, and it fails the run."""
    PATCH_ERRORS = "patch-errors"
    """The patch failed requests (HTTP errors, transport failures, answers cut off as null,
    `error` or `abort`) more often than the base: Fisher's exact test, one-sided, per record
    and mode and pooled over a mode's records, rejects in its own family
    (`k3diff.triage.errorholds`). Never a pass: inconclusive, and it fails the run."""
    NEAR_TIE_SPLITS = "near-tie-splits"
    """Every split of the base's outputs happened where its top two tokens were nearly tied
    (margin under --near-tie): the signature of floating-point reduction order."""
    WIDE_MARGIN_SPLIT = "wide-margin-split"
    """A side's outputs split where the modal token was far ahead (margin >= --near-tie): worth
    a reviewer's eye on the patch side even when the category excuses it."""
    CAPTURE_NOT_REPRODUCED = "capture-not-reproduced"
    """A side's captured output is among none of that side's samples."""
    CAPTURE_UNEXPLAINED = "capture-unexplained"
    """The patch's captured output (the one the comparison found differing) is none the base
    gave (captured or sampled) and none of the patch's samples: the samples do not explain the
    mismatch. A record they would clear is inconclusive and fails the run."""
    UNSAMPLED = "unsampled"
    """The captures differ (texts, an error, a side without the record) and a side (or both)
    has no successful sample in any mode: the difference is unexplained. Never a pass:
    inconclusive, and it fails the run."""
    UNANSWERED = "unanswered"
    """A side answered none of the record's requests in a mode: every one sent to it there
    failed (an HTTP error, a connection closed), or the logs hold none of its lines there, so
    that side proved nothing in it. Never a pass: inconclusive, and it fails the run (where the
    captures differ, `unsampled` says it)."""
    UNLOGGED = "unlogged"
    """A log holds fewer of the record's lines (of a side, in a mode) than its header says its
    run owed (its repeats; a line removed, or a run killed before it), or a log states no
    format (written before samples71) and so cannot show every line its run owed is there:
    its verdict would be read from the lines left. Never a pass: inconclusive, and it fails
    the run (`k3diff.triage.unlogged`)."""
    NOT_COMPARABLE = "not-comparable"
    """The captured prompts differ (the comparison's status `not-comparable`): the base's and
    the patch's captures answer different requests, so the comparison compared nothing and no
    sample of one prompt clears the record. Never a pass: inconclusive, and it fails the run.
    Where what differs is the eval's document, gold target or request arguments, a flag beside
    it says which."""
    DOC_CHANGED = "doc-changed"
    """Beside `not-comparable`: the lm-eval document itself differs between the two logs (the
    dataset row of the doc id), whatever else differs with it (its prompt, its target)."""
    TARGET_CHANGED = "target-changed"
    """Beside `not-comparable`: the lm-eval gold target differs with the document the same (the
    task's `doc_to_target` changed): the two runs did not score the same answer as right."""
    ARGUMENTS_CHANGED = "arguments-changed"
    """Beside `not-comparable`: the lm-eval requests' arguments differ with the prompt, the
    document and the target the same (a multiple-choice continuation, a generation setting such
    as `until`, `max_gen_toks`, `temperature`): the two runs did not ask the same of the model."""
    PROMPT_UNKNOWN = "prompt-unknown"
    """Beside `not-comparable`: one lm-eval log says the prompt (its requests' arguments or
    `prompt_hash`) and the other neither, so the prompts cannot be compared: not known to
    differ, nor to be the same (left68: read as "the captured prompts differ")."""
    ARGUMENTS_UNKNOWN = "arguments-unknown"
    """Beside `not-comparable`: one lm-eval log or both lack the requests' arguments (the prompt
    alike), so the continuations and generation settings cannot be compared: what the two runs
    asked of the model is not known to be the same (lmrep68; both logs without them, triage69)."""
    CAPTURE_ONLY_CONCURRENT = "capture-reproduced-only-concurrently"
    """A side's captured output came back only in concurrent or loaded samples, never serially."""
    VACUOUS = "vacuous"
    """The run's control (one prompt at temperature 1, distinct seeds) came back identical on a
    side: sampling parameters ignored, or a cache or proxy answering. A record it would have
    cleared is inconclusive and fails the run."""
    COMPOSITION_DEPENDENT = "composition-dependent"
    """A side stable serially gives other outputs when co-batched with other prompts (needle,
    mixed): the batch's composition, not just its size, changes the output."""
    CACHE_DEPENDENT = "cache-dependent"
    """cold-warm: with cache hits proven by the server's cached-token counts, a side's cold
    output is not among its warm outputs (a cache hit changes the output)."""
    NOT_EXERCISED = "not-exercised"
    """A concurrent or loaded batch whose requests were answered one at a time (the server's
    gauge read 1, or their streams never interleaved at the client): the mode's axis was not
    exercised, so it clears nothing."""
    UNPROVEN = "unproven"
    """A batch from a server whose running-requests gauge was not read, of whole answers or of
    streams that interleaved at the client: neither tells overlap from queueing (a serial
    server behind a front end that paces its answers interleaves streams too), so the mode
    clears nothing (sample again with `k3diff sample --metrics-url`)."""
    CONDITION_UNCHECKED = "condition-unchecked"
    """The capture does not record its request (or not all of it), or names no model that
    answered it (or the samples log none): the samples' prompt condition (temperature, seed,
    stream, ...) or model could not be checked against it."""
    NO_POWER = "no-power"
    """The requests sampled (temperature > 0) and, at the samples' n, the distribution test did
    not reject and had `--power` only against a shift of the answers above `--shift` (or
    against none, however large), or no test ran: its non-rejection is no evidence down to
    the shift asked for, so it clears nothing (a patch that moves that much of its answers
    would pass the same way). Inconclusive, and it fails the run; more samples decide it
    (`more_samples`: the plan's exact Fisher figure for `--shift`, less the n a side)."""
    NOVEL_UNDECIDED = "novel-undecided"
    """A greedy mode (not sampled) left undecided where the patch gave an output the base never
    gave in that mode (novelty > 0) and no test made it a regression candidate: an output the
    run cannot explain is no evidence of safety, so it clears nothing. Inconclusive, and it
    fails the run; more samples a side decide it (`more_samples`). Also a greedy
    both-nondeterministic mode with such outputs whose distribution test could not tell
    (`shiftverdict.greedy_unpowered`: an MMD test that could not have detected `--shift`, a
    count test with power against no shift)."""
    OTHER_CONDITION = "samples-of-another-condition"
    """The samples' request differs from the captured one in a field (temperature, seed,
    stream, route, ...), or the server answered them as another model than the capture's or
    than one another, allowed by --allow-condition-mismatch; or the base's and the patch's
    samples were sent with other fields or answered as other models: they clear nothing."""
    SAME_SERVER = "same-server"
    """Base and patch were sampled from one server (however its URL was spelled: the log's
    header records where each side connects, `k3diff.sample.oneserver`) with the same request
    parameters: the patch samples are the base server's, so they clear nothing. Never a pass:
    inconclusive, and it fails the run, unless `--allow-same-server` says the run measures one
    server against itself on purpose (an A/A calibration run)."""
    FIELDS_UNJUDGED = "fields-unjudged"
    """The comparison found the captured texts equal and other fields differing (its status
    `fields-differ`: tool calls, a refusal, reasoning, the model's name, ...). Triage judges
    texts, so no sample clears them. Never a pass: inconclusive, and it fails the run (compare
    again with `k3diff responses --ignore-field` for the fields that do not matter)."""


HELD_FLAGS = frozenset(
    {Flag.NOT_EXERCISED, Flag.UNPROVEN, Flag.OTHER_CONDITION, Flag.CAPTURE_UNEXPLAINED}
    | {Flag.UNSAMPLED, Flag.NOT_COMPARABLE, Flag.NO_POWER, Flag.NOVEL_UNDECIDED}
    | {Flag.FIELDS_UNJUDGED, Flag.UNANSWERED, Flag.UNLOGGED, Flag.SAME_SERVER}
    | {Flag.FINISH_REASON_SHIFT, Flag.TOKEN_IDS_DIFFER, Flag.PATCH_ERRORS}
)
"""Flags of an inconclusive record that fails the run: its evidence could not clear it (a mode
not exercised or unproven, samples of another condition, a patch capture the samples do not
explain, a differing record never sampled, a side that answered none of a record's requests,
lines of a record a log lacks against what its run owed, captures of different prompts, a
sampled test without power, a greedy patch output the base never gave left undecided, fields
other than the text that differ, base and patch sampled from one server, a patch that ends its
answers otherwise or gives a text as other token ids, a patch that fails requests more often)
— never a pass."""

REFINED = {
    Flag.NOT_COMPARABLE: frozenset(
        {Flag.DOC_CHANGED, Flag.TARGET_CHANGED, Flag.ARGUMENTS_CHANGED}
        | {Flag.PROMPT_UNKNOWN, Flag.ARGUMENTS_UNKNOWN}
    )
}
"""A flag that another beside it says more precisely: the record's cause is that one."""


def cause_flags(flags: Iterable[Flag]) -> set[Flag]:
    """A record's flags without those a flag beside them refines (a `not-comparable` record
    whose document changed is held because its document changed, not its prompt)."""
    found = set(flags)
    return {flag for flag in found if not REFINED.get(flag, frozenset()) & found}


def flag_label(flag: str, captures: Mapping[str, Iterable[tuple[int, int]]]) -> str:
    """A record's flag as the reports write it: `capture-not-reproduced` with each sampled
    side's count, `captures` (reproduced, n) per mode summed, so the side it is about is named
    (newuser63b): `capture-not-reproduced (base 0 of 60, patch 60 of 60 samples)`."""
    summed = {side: [sum(x) for x in zip(*found, strict=True)] for side, found in captures.items()}
    counts = [f"{side} {c[0]:,} of {c[1]:,}" for side, c in sorted(summed.items()) if c and c[1]]
    if flag != Flag.CAPTURE_NOT_REPRODUCED or not counts:
        return flag
    return f"{flag} ({', '.join(counts)} samples)"

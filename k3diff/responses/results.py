"""Result values of a responses comparison: per-record diffs and their parts."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from k3diff.responses.lmeval import LmEvalDiff


class Status(StrEnum):
    """What one key's comparison found; the order is worst first."""

    NOT_COMPARABLE = "not-comparable"
    """Both sides have the record but their prompts differ (an lm-eval doc whose prompt was
    edited), or an lm-eval doc's target or doc does: the answers are to different questions, or
    scored against another answer, so neither a match nor a regression."""
    ERROR = "error"
    """Both sides have the record and at least one holds a failed request (no output to
    compare: lost evidence, counted as a difference)."""
    TEXT_DIFFERS = "text-differs"
    """Both sides have the record and the (normalised) texts differ."""
    TOKENS_DIFFER = "tokens-differ"
    """Same text, different token ids."""
    LOGPROBS_DIFFER = "logprobs-differ"
    """Same text and token ids; the per-token logprobs moved by more than `--logprob-tol` (the
    earliest warning a patch gives: the distribution shifts before the greedy text does)."""
    FIELDS_DIFFER = "fields-differ"
    """Same text and token ids; another field (finish_reason, usage, ...) differs."""
    ONLY_BASE = "only-base"
    """The key is missing from the patch file."""
    ONLY_PATCH = "only-patch"
    """The key is missing from the base file."""
    MATCH = "match"
    """Nothing compared differs."""

    @property
    def rank(self) -> int:
        """Position in the worst-first order."""
        return _RANKS[self]


_RANKS = {status: rank for rank, status in enumerate(Status)}


@dataclass(frozen=True)
class SideSummary:
    """One side's record as the report shows it."""

    location: str
    """`file:line` as the user named the file."""
    text_xxh3: str
    """xxh3-128 of the exact text (before any normalisation)."""
    token_ids_xxh3: str | None
    """xxh3-128 of the token ids (little-endian int64), when present."""
    chars: int
    """Length of the exact text in characters."""
    tokens: int | None
    """Number of token ids, when present."""
    finish_reason: str | None
    """Why generation stopped."""
    fingerprint: str | None
    """The backend fingerprint, when reported."""
    error: str | None = None
    """The server's error message when this side's request failed."""
    prompt_xxh3: str | None = None
    """xxh3-128 of the captured prompt (a string, or canonical JSON of chat messages); None when
    the record holds no prompt."""
    condition: str | None = None
    """The captured request's condition as canonical JSON (`ResponseRecord.condition`): what
    triage checks samples against; None when the record shows none of it."""
    model: str | None = None
    """The model the server said it answered as (the response's `model`), None when the record
    names none."""


@dataclass(frozen=True)
class LogprobPoint:
    """One side's log-probabilities at the divergence token."""

    token: str
    """The token this side sampled."""
    logprob: float | None
    """Its log-probability."""
    top1: tuple[str | None, float | None]
    """The most likely alternative and its log-probability."""
    top2: tuple[str | None, float | None]
    """The second most likely alternative and its log-probability."""
    gap: float | None
    """top-1 minus top-2 log-probability of the alternatives offered (never negative)."""
    sampled_gap: float | None = None
    """The gap: the sampled token's logprob minus the best other token's. Negative when the
    sampled token was not the most likely one (a penalty or sampling applied after the
    logprobs); None when either is unknown."""


@dataclass(frozen=True)
class LogprobGap:
    """The top-1/top-2 gap on each side at the first diverging token."""

    token_index: int
    """Index of the diverging token in each side's logprob list."""
    base: LogprobPoint | None
    """The base's logprobs there (None when the base has none at that index)."""
    patch: LogprobPoint | None
    """The patch's logprobs there."""
    swapped_top2: bool
    """The two sides' tokens are the top two on both sides, in swapped order."""
    gap: float | None = None
    """The side's `sampled_gap` of largest magnitude, sign kept (None when no side has one)."""
    label: str | None = None
    """`near-tie` (every side's |gap| within `--near-tie`), `decisive` (some side's beyond it),
    or None when the logprobs cannot tell."""
    in_top_n: bool = False
    """Each side's token is among the other side's top-N alternatives (vLLM's test rule)."""
    top_n: int = 0
    """N: the fewest alternatives either side offered at the divergence."""


@dataclass(frozen=True)
class LogprobDelta:
    """The per-token logprobs of both sides compared over their common token prefix."""

    compared: int
    """Positions compared: the tokens both sides share from the start (NaN values skipped)."""
    max_abs_delta: float
    """The largest |base − patch| logprob of the sampled token over those positions."""
    token_index: int | None
    """Where that largest difference is (None when nothing was compared)."""
    tolerance: float
    """`--logprob-tol`: differences up to it are accepted."""

    @property
    def within_tolerance(self) -> bool:
        """The logprobs agree within `--logprob-tol`."""
        return self.max_abs_delta <= self.tolerance


@dataclass(frozen=True)
class Divergence:
    """Where the two outputs first part ways."""

    char_offset: int | None
    """First differing character of the compared texts (None when the texts are equal)."""
    token_index: int | None
    """First differing token id (None when token ids are equal or absent on a side)."""
    context_start: int | None
    """Character offset where both contexts start."""
    base_context: str | None
    """Up to 40 characters either side of the divergence, base text."""
    patch_context: str | None
    """The same window of the patch text."""
    logprobs: LogprobGap | None
    """The top-1/top-2 gap at the diverging token, when logprobs exist."""
    codepoints: tuple[tuple[str, ...], tuple[str, ...]] | None = None
    """Code points (`U+00E9`) of the character at the divergence on each side, with its
    combining marks, when either is not ASCII (look-alikes: composed vs decomposed, NBSP)."""
    equal_after_normalize: tuple[str, ...] = ()
    """`--normalize` values not asked for under which the texts would be equal."""


@dataclass(frozen=True)
class FieldChange:
    """One difference deepdiff found outside the text."""

    path: str
    """Dotted path, e.g. `usage.completion_tokens` or `choice.message.tool_calls[0]`."""
    change: str
    """changed, added (only in the patch) or removed (only in the base)."""
    base: Any
    """The base value (None when added)."""
    patch: Any
    """The patch value (None when removed)."""


@dataclass(frozen=True)
class RecordDiff:
    """How one key compares between base and patch."""

    key: str
    """The pairing key."""
    status: Status
    """The worst thing found for this key."""
    prompt_preview: str | None
    """The start of the prompt, when known."""
    base: SideSummary | None
    """The base record, None when only the patch has the key."""
    patch: SideSummary | None
    """The patch record, None when only the base has the key."""
    text_match: bool | None
    """Texts byte-equal, exactly as captured (None when one-sided or a request failed)."""
    normalized_match: bool
    """Texts differ as captured but are equal after `--normalize` (the status is then match)."""
    token_match: bool | None
    """Token ids equal (None unless both sides have them)."""
    similarity: float | None
    """rapidfuzz.fuzz.ratio/100 of the compared texts: 1.0 only when they are equal (a
    difference too small to show in six digits reads 0.999999)."""
    divergence: Divergence | None
    """The first divergence, when text or token ids differ."""
    field_changes: tuple[FieldChange, ...]
    """Other fields that differ, sorted by path."""
    logprobs: LogprobDelta | None = None
    """The logprobs compared over the common token prefix, when both sides have them."""
    notes: tuple[str, ...] = ()
    """Evidence one side has and the other lacks (`evidence-missing: ...`): information, never
    a failure, but never silent."""
    run_state_changes: tuple[FieldChange, ...] = ()
    """Run-state fields (cache hits, latency) that differ: reported, never a failure."""
    lm_eval: LmEvalDiff | None = None
    """The lm-eval comparison of this doc and filter."""
    scores: tuple[tuple[str, str | None, float, float], ...] = ()
    """(metric, filter group, base, patch) for each score this record gave the paired tests
    (`ScoreCollector.add`), so that `report` recounts every test (scores61)."""
    label: str | None = None
    """How reports name the record: the user's own identifier (`--key`'s value, `key`,
    `custom_id`, `request_id`, lm-eval's doc id, or a record's own `id`), else the prompt's first
    characters; None when neither is known (the key names it). The key, not the label, pairs."""

    @property
    def name(self) -> str:
        """The label, or the key when there is none."""
        return self.key if self.label is None else self.label

    @property
    def differs(self) -> bool:
        """A paired record with any difference."""
        return self.status in DIFFERING


DIFFERING = frozenset(
    {
        Status.ERROR,
        Status.TEXT_DIFFERS,
        Status.TOKENS_DIFFER,
        Status.LOGPROBS_DIFFER,
        Status.FIELDS_DIFFER,
    }
)
"""Statuses of a paired record that fail the comparison."""


def worst_first_key(record: RecordDiff) -> tuple[int, float, str]:
    """Sort key of the worst-first order: status, then lowest similarity, then key. A record
    whose similarity was not computed (the run's budget spent) may be the least similar, so it
    comes first within its status (review78c: it sorted as 1.0, last)."""
    return (
        record.status.rank,
        -1.0 if record.similarity is None else record.similarity,
        record.key,
    )

"""Compares one base record with one patch record.

Text is compared after the requested normalisations (reported with the result); hashes are of
the exact captured text, and `text_match` means byte-equal. Similarity is
`rapidfuzz.fuzz.ratio / 100` (normalised Indel similarity) of the compared texts: 1.0 only when
they are equal — a difference too small to show in six digits is clamped to 0.999999, so a
2 MB text with one changed character never reads as identical. Per-token logprobs are compared
over the common token prefix (`k3diff.responses.logprob_compare`). Other fields are compared
with deepdiff, volatile fields having been left out at load time unless asked for.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from k3diff.responses.divergence import (
    codepoints_at,
    divergence_of,
    equal_after,
    normalize_text,
    sampled_tokens_differ,
)
from k3diff.responses.fielddiff import field_changes
from k3diff.responses.jsonsame import same
from k3diff.responses.lmeval import LmEvalDiff
from k3diff.responses.lmeval import compare as compare_lm_eval
from k3diff.responses.logprob_compare import compare_logprobs
from k3diff.responses.model import (
    Normalization,
    ResponseRecord,
    record_label,
    text_digest,
    token_ids_digest,
)
from k3diff.responses.results import (
    FieldChange,
    RecordDiff,
    SideSummary,
    Status,
)
from k3diff.responses.similarity import SimilarityBudget

SIMILARITY_METHOD = "rapidfuzz.fuzz.ratio/100"


@dataclass(frozen=True)
class DiffOptions:
    """How pairs are compared."""

    normalize: tuple[Normalization, ...] = ()
    """Text normalisations applied before comparing, in canonical order."""
    include_volatile: bool = False
    """Compare ids, timestamps and fingerprints too."""
    logprob_tol: float = 0.0
    """`--logprob-tol`: the largest |Δ logprob| over the common token prefix that still agrees."""
    near_tie: float = 0.1
    """`--near-tie`: the largest gap (nats) at a divergence that is called a near tie."""
    budget: SimilarityBudget = field(default_factory=SimilarityBudget, compare=False)
    """What the run has left to spend on similarities (`k3diff.responses.similarity`)."""


def summarize(record: ResponseRecord, display: str) -> SideSummary:
    """The report's view of one record of the file the user named `display`."""
    ids = record.token_ids
    return SideSummary(
        location=record.location(display),
        text_xxh3=text_digest(record.text),
        token_ids_xxh3=None if ids is None else token_ids_digest(ids),
        chars=len(record.text),
        tokens=None if ids is None else len(ids),
        finish_reason=record.finish_reason,
        fingerprint=record.fingerprint,
        error=record.error,
        prompt_xxh3=record.prompt_digest,
        condition=record.condition,
        model=record.model,
    )


def one_sided(key: str, record: ResponseRecord, display: str, is_base: bool) -> RecordDiff:
    """A key present on one side only (in the file the user named `display`)."""
    summary = summarize(record, display)
    if is_base:
        return _uncompared(key, Status.ONLY_BASE, record, summary, None)
    return _uncompared(key, Status.ONLY_PATCH, record, None, summary)


def _uncompared(
    key: str,
    status: Status,
    record: ResponseRecord | tuple[ResponseRecord, ResponseRecord],
    base: SideSummary | None,
    patch: SideSummary | None,
) -> RecordDiff:
    """A record whose outputs were not compared (one side only, or a failed request)."""
    records = record if isinstance(record, tuple) else (record,)
    return RecordDiff(
        key=key,
        status=status,
        prompt_preview=next((r.prompt_preview for r in records if r.prompt_preview), None),
        label=record_label(*records),
        base=base,
        patch=patch,
        text_match=None,
        normalized_match=False,
        token_match=None,
        similarity=None,
        divergence=None,
        field_changes=(),
    )


def evidence_missing(base: ResponseRecord, patch: ResponseRecord) -> tuple[str, ...]:
    """A note for each kind of evidence one side carries and the other lacks."""
    notes = []
    for name, base_has, patch_has in (
        ("token ids", base.token_ids is not None, patch.token_ids is not None),
        ("logprobs", base.logprobs is not None, patch.logprobs is not None),
    ):
        if base_has != patch_has:
            side = "base" if base_has else "patch"
            notes.append(f"evidence-missing: {name} only in {side}, not compared")
    return tuple(notes)


def diff_pair(
    key: str,
    base: ResponseRecord,
    patch: ResponseRecord,
    displays: tuple[str, str],
    options: DiffOptions,
) -> RecordDiff:
    """Compare two records that share a key (`displays`: the base and patch paths as named).

    An lm-eval doc and filter is compared prompt first, then the first differing generation or
    choice as the output, then its metrics."""
    if base.error is not None or patch.error is not None:
        return _failed_request(key, base, patch, displays)
    lm = None
    if base.lm_eval is not None and patch.lm_eval is not None:
        lm = compare_lm_eval(base.lm_eval, patch.lm_eval, options.logprob_tol)
        index = lm.differing_generations[0] if lm.differing_generations else 0
        if lm.not_comparable:
            failed = _failed_request(key, base, patch, displays)
            # Where its output differs too, where (newuser68: a doc whose answer went from
            # " 4" to "" said so in JSON only); the status stays not-comparable.
            shown = _output_pair(
                key, _generation(base, index), _generation(patch, index), displays, options
            )
            return replace(
                failed, status=Status.NOT_COMPARABLE, lm_eval=lm, divergence=shown.divergence
            )
        base, patch = _generation(base, index), _generation(patch, index)
    result = _output_pair(key, base, patch, displays, options)
    if lm is not None:
        result = replace(result, status=_lm_eval_status(result.status, lm), lm_eval=lm)
    changes = run_state_changes(base, patch)
    return replace(result, run_state_changes=changes) if changes else result


def _generation(record: ResponseRecord, index: int) -> ResponseRecord:
    """An lm-eval record as a plain one whose output is its generation (or choice) INDEX."""
    assert record.lm_eval is not None
    generations = record.lm_eval.generations
    text = generations[index] if index < len(generations) else ""
    return replace(record, text=text, lm_eval=None)


def _lm_eval_status(status: Status, lm: LmEvalDiff) -> Status:
    """Equal outputs still differ in their loglikelihoods, greedy flags or metrics."""
    if status is Status.MATCH and (lm.loglikelihood_deltas or lm.greedy_flips):
        return Status.LOGPROBS_DIFFER
    if status is Status.MATCH and (lm.metric_changes or lm.regrouped):
        return Status.FIELDS_DIFFER
    return status


def run_state_changes(base: ResponseRecord, patch: ResponseRecord) -> tuple[FieldChange, ...]:
    """Run-state fields that differ as JSON values (`jsonsame.same`: 1, 1.0 and true differ),
    by dotted path (reported, never a failure)."""
    first, second = base.run_state or {}, patch.run_state or {}
    if same(first, second):
        return ()
    changes = []
    for path in sorted(first.keys() | second.keys()):
        if path not in second:
            changes.append(FieldChange(path, "removed", first[path], None))
        elif path not in first:
            changes.append(FieldChange(path, "added", None, second[path]))
        elif not same(first[path], second[path]):
            changes.append(FieldChange(path, "changed", first[path], second[path]))
    return tuple(changes)


def _output_pair(
    key: str,
    base: ResponseRecord,
    patch: ResponseRecord,
    displays: tuple[str, str],
    options: DiffOptions,
) -> RecordDiff:
    normalizations = options.normalize
    base_text = normalize_text(base.text, normalizations)
    patch_text = normalize_text(patch.text, normalizations)
    compared_equal = base_text == patch_text
    token_match = None
    if base.token_ids is not None and patch.token_ids is not None:
        token_match = base.token_ids == patch.token_ids
    sampled = token_match is None and compared_equal and sampled_tokens_differ(base, patch)
    changes, fields_note = field_changes(base, patch, options.include_volatile)
    divergence = None
    if not compared_equal or token_match is False or sampled:
        divergence = divergence_of(
            base, patch, base_text, patch_text, token_match, options.near_tie
        )
        if not compared_equal:
            divergence = replace(
                divergence,
                codepoints=codepoints_at(base_text, patch_text, divergence.char_offset),
                equal_after_normalize=equal_after(base.text, patch.text, normalizations),
            )
    limit = None
    if divergence is not None and divergence.logprobs is not None:
        limit = divergence.logprobs.token_index
    elif divergence is not None:
        limit = divergence.token_index
    logprobs = compare_logprobs(base.logprobs, patch.logprobs, options.logprob_tol, limit)
    status = Status.MATCH
    if not compared_equal:
        status = Status.TEXT_DIFFERS
    elif token_match is False or sampled:
        status = Status.TOKENS_DIFFER
    elif logprobs is not None and not logprobs.within_tolerance:
        status = Status.LOGPROBS_DIFFER
    elif changes:
        status = Status.FIELDS_DIFFER
    text_match = base.text == patch.text
    similarity, skipped = options.budget.similarity(base_text, patch_text)
    notes = evidence_missing(base, patch) + ((fields_note,) if fields_note else ())
    return RecordDiff(
        key=key,
        status=status,
        prompt_preview=base.prompt_preview or patch.prompt_preview,
        label=record_label(base, patch),
        base=summarize(base, displays[0]),
        patch=summarize(patch, displays[1]),
        text_match=text_match,
        normalized_match=compared_equal and not text_match,
        token_match=token_match,
        similarity=similarity,
        divergence=divergence,
        field_changes=changes,
        logprobs=logprobs,
        notes=notes + ((skipped,) if skipped else ()),
    )


def _failed_request(
    key: str, base: ResponseRecord, patch: ResponseRecord, displays: tuple[str, str]
) -> RecordDiff:
    """A pair where a request failed: nothing to compare, and a difference whatever the other
    side holds (even the same error: no output is no evidence)."""
    return _uncompared(
        key,
        Status.ERROR,
        (base, patch),
        summarize(base, displays[0]),
        summarize(patch, displays[1]),
    )

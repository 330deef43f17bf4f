"""The `k3diff.responses/1` document: its writer (one named function per form of the
`k3diff responses` results; records streamed back from a spool). Its typed reader is
`k3diff.responses.document` (below `triage`, which reads comparisons too)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any, TypeVar

from k3diff.documents.jsondoc import encoded_member, json_members
from k3diff.documents.scores import gate_json, noise_json, scores_json
from k3diff.exitcodes import ExitCode
from k3diff.ids import RESPONSES as SCHEMA
from k3diff.responses.compare import (
    LmEvalSummary,
    ResponsesOverview,
    SideInfo,
    Summary,
)
from k3diff.responses.diff import SIMILARITY_METHOD
from k3diff.responses.lmeval import LmEvalDiff
from k3diff.responses.results import (
    Divergence,
    FieldChange,
    LogprobDelta,
    LogprobGap,
    LogprobPoint,
    RecordDiff,
    SideSummary,
    Status,
)
from k3diff.responses.similarity import DIGITS

__all__ = ["chunks", "overview_json", "record_line"]

_Item = TypeVar("_Item")


def _side_summary_json(value: SideSummary) -> dict[str, Any]:
    return {
        "location": value.location,
        "text_xxh3": value.text_xxh3,
        "token_ids_xxh3": value.token_ids_xxh3,
        "chars": value.chars,
        "tokens": value.tokens,
        "finish_reason": value.finish_reason,
        "fingerprint": value.fingerprint,
        "model": value.model,
        "error": value.error,
        "prompt_xxh3": value.prompt_xxh3,
        "request": None if value.condition is None else json.loads(value.condition),
    }


def _logprob_point_json(value: LogprobPoint) -> dict[str, Any]:
    return {
        "token": value.token,
        "logprob": value.logprob,
        "top1": {"token": value.top1[0], "logprob": value.top1[1]},
        "top2": {"token": value.top2[0], "logprob": value.top2[1]},
        "gap": value.gap,
        "sampled_gap": value.sampled_gap,
    }


def _logprob_gap_json(value: LogprobGap) -> dict[str, Any]:
    return {
        "token_index": value.token_index,
        "base": None if value.base is None else _logprob_point_json(value.base),
        "patch": None if value.patch is None else _logprob_point_json(value.patch),
        "swapped_top2": value.swapped_top2,
        "gap": value.gap,
        "label": value.label,
        "in_top_n": value.in_top_n,
        "top_n": value.top_n,
    }


def _divergence_json(value: Divergence) -> dict[str, Any]:
    return {
        "char_offset": value.char_offset,
        "token_index": value.token_index,
        "context_start": value.context_start,
        "base_context": value.base_context,
        "patch_context": value.patch_context,
        "logprobs": None if value.logprobs is None else _logprob_gap_json(value.logprobs),
        "codepoints": None
        if value.codepoints is None
        else {"base": list(value.codepoints[0]), "patch": list(value.codepoints[1])},
        "equal_after_normalize": list(value.equal_after_normalize),
    }


def _field_change_json(value: FieldChange) -> dict[str, Any]:
    return {"path": value.path, "change": value.change, "base": value.base, "patch": value.patch}


def _record_diff_json(value: RecordDiff) -> dict[str, Any]:
    record: dict[str, Any] = {
        "key": value.key,
        "status": value.status.value,
        "prompt_preview": value.prompt_preview,
        "label": value.label,
        "base": None if value.base is None else _side_summary_json(value.base),
        "patch": None if value.patch is None else _side_summary_json(value.patch),
        "text_match": value.text_match,
        "normalized_match": value.normalized_match,
        "token_match": value.token_match,
        "similarity": value.similarity,
        "divergence": None if value.divergence is None else _divergence_json(value.divergence),
        "field_changes": [_field_change_json(change) for change in value.field_changes],
        "logprobs": None if value.logprobs is None else _logprob_delta_json(value.logprobs),
        "notes": list(value.notes),
        "run_state": [_field_change_json(change) for change in value.run_state_changes],
        "lm_eval": None if value.lm_eval is None else _lm_eval_diff_json(value.lm_eval),
    }
    if value.scores:
        # Only a scored record carries it: a document without scores reads as before.
        record["scores"] = [list(item) for item in value.scores]
    return record


def _lm_eval_diff_json(value: LmEvalDiff) -> dict[str, Any]:
    return {
        "doc_id": value.doc_id,
        "filter": value.filter,
        "field": value.field,
        "prompt_differs": value.prompt_differs,
        "generations": list(value.generations),
        "differing_generations": list(value.differing_generations),
        "loglikelihood_deltas": [
            {"choice": c, "base": b, "patch": p} for c, b, p in value.loglikelihood_deltas
        ],
        "greedy_flips": [{"choice": c, "base": b, "patch": p} for c, b, p in value.greedy_flips],
        "metric_changes": [
            {"metric": m, "base": b, "patch": p} for m, b, p in value.metric_changes
        ],
        "inputs_differ": list(value.inputs_differ),
        "resps_grouping": None
        if value.regrouped is None
        else {"base": list(value.regrouped[0]), "patch": list(value.regrouped[1])},
    }


def _logprob_delta_json(value: LogprobDelta) -> dict[str, Any]:
    return {
        "compared": value.compared,
        "max_abs_delta": round(value.max_abs_delta, DIGITS),
        "token_index": value.token_index,
        "tolerance": value.tolerance,
        "within_tolerance": value.within_tolerance,
    }


def _side_info_json(value: SideInfo) -> dict[str, Any]:
    side: dict[str, Any] = {"path": value.path, "format": value.format, "records": value.records}
    if value.sha256 is not None:  # what `report` ties the inputs given with it by (forge61b)
        side.update(sha256=value.sha256, size=value.size)
    return side


def _summary_json(value: Summary) -> dict[str, Any]:
    return {
        "records": value.records,
        "paired": value.paired,
        "exact_match": value.exact_match,
        "token_match": value.token_match,
        "token_compared": value.token_compared,
        "only_base": value.only_base,
        "only_patch": value.only_patch,
        "differing": value.differing,
        "normalized_match": value.normalized_match,
        "by_status": {status.value: value.by_status.get(status.value, 0) for status in Status},
        "errors": value.errors,
        "nothing_paired": value.nothing_paired,
        "unpaired_allowed": value.unpaired_allowed,
        "logprobs_compared": value.logprobs_compared,
        "logprobs_differ": value.logprobs_differ,
        "evidence_missing": value.evidence_missing,
        "not_comparable": value.not_comparable,
        "run_state_differs": value.run_state_differs,
        "lm_eval": None if value.lm_eval is None else _lm_eval_summary_json(value.lm_eval),
        "scores": scores_json(value.scores),
    }


def _lm_eval_summary_json(value: LmEvalSummary) -> dict[str, Any]:
    return {
        "field": value.field,
        "docs": value.docs,
        "docs_differing": value.docs_differing,
        "docs_not_comparable": value.docs_not_comparable,
        "metric_flips": [
            {"metric": f.metric, "filter": f.filter, "gained": f.gained, "lost": f.lost}
            for f in value.metric_flips
        ],
    }


def overview_json(value: ResponsesOverview) -> dict[str, Any]:
    """The `k3diff.responses/1` document without its `records`."""
    return {
        "schema": SCHEMA,
        "base": _side_info_json(value.base),
        "patch": _side_info_json(value.patch),
        "pairing": {
            "key": value.key_mode.value,
            "field": value.key_field,
            "explicit": value.key_explicit,
            "label": value.pairing_label,
            "unshared_field": value.unshared_field,
        },
        "logprob_tol": value.logprob_tol,
        "near_tie": value.near_tie,
        "normalize": [n.value for n in value.normalize],
        "include_volatile": value.include_volatile,
        "ignore_fields": list(value.ignore_fields),
        # Only where a record held beams --beam did not read: other documents stay as before.
        **({} if value.beams is None else {"beams": value.beams.to_json()}),
        **({} if value.sampled is None else {"sampled": value.sampled.to_json()}),
        "similarity": SIMILARITY_METHOD,
        "summary": _summary_json(value.summary),
        "run_state": {
            "records_differing": value.summary.run_state_differs,
            "fails": False,
            "what": "cache hits, latency and server timing: evidence about the run, not output",
        },
        "noise": noise_json(value.noise),
        **_gate_fields(value),
        **({} if value.rerun is None else {"rerun": dict(value.rerun)}),
        "verdict": {
            "ok": value.exit_code == ExitCode.OK,
            "exit_code": int(value.exit_code),
            "reasons": list(value.failures),
        },
    }


def _gate_fields(value: ResponsesOverview) -> dict[str, Any]:
    """`fail_on` and `score_gate`, written only under `--fail-on score-drop` (so a document
    without the gate stays byte-identical to one written before it)."""
    if value.score_gate is None:
        return {}
    return {"fail_on": list(value.fail_on), "score_gate": gate_json(value.score_gate)}


def record_line(record: RecordDiff) -> dict[str, Any]:
    """One item of the document's `records` (what the renderer spools as records arrive)."""
    return _record_diff_json(record)


def chunks(overview: ResponsesOverview, records: Iterable[_Item]) -> Iterator[str | _Item]:
    """The document as JSON text, piece by piece; `records` are the items already encoded as
    compact JSON, in report order (text, or a piece the report writer copies as it is:
    `output.Prewritten`), the document's last member."""
    yield from json_members(overview_json(overview), per_line=())
    yield from encoded_member("records", records)
    yield "\n}\n"

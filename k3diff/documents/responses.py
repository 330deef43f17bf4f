"""The `k3diff.responses/1` document: its writer (one named function per form of the
`k3diff responses` results; records streamed back from a spool), and its typed reader (`read`:
what the bundle reads of it)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from k3diff.documents.fields import Fields
from k3diff.documents.jsondoc import json_chunks
from k3diff.documents.scores import ScoresView, noise_json, read_scores, scores_json
from k3diff.exitcodes import ExitCode
from k3diff.ids import RESPONSES as SCHEMA
from k3diff.responses.compare import (
    LmEvalSummary,
    ResponsesOverview,
    SideInfo,
    Summary,
)
from k3diff.responses.diff import DIGITS, SIMILARITY_METHOD
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

__all__ = ["ResponsesDocument", "chunks", "overview_json", "read", "record_line"]


def _side_summary_json(value: SideSummary) -> dict[str, Any]:
    return {
        "location": value.location,
        "text_xxh3": value.text_xxh3,
        "token_ids_xxh3": value.token_ids_xxh3,
        "chars": value.chars,
        "tokens": value.tokens,
        "finish_reason": value.finish_reason,
        "fingerprint": value.fingerprint,
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
    return {
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
    return {"path": value.path, "format": value.format, "records": value.records}


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
        },
        "logprob_tol": value.logprob_tol,
        "near_tie": value.near_tie,
        "normalize": [n.value for n in value.normalize],
        "include_volatile": value.include_volatile,
        "similarity": SIMILARITY_METHOD,
        "summary": _summary_json(value.summary),
        "run_state": {
            "records_differing": value.summary.run_state_differs,
            "fails": False,
            "what": "cache hits, latency and server timing: evidence about the run, not output",
        },
        "noise": noise_json(value.noise),
        "verdict": {
            "ok": value.exit_code == ExitCode.OK,
            "exit_code": int(value.exit_code),
            "reasons": list(value.failures),
        },
    }


def record_line(record: RecordDiff) -> dict[str, Any]:
    """One item of the document's `records` (what the renderer spools as records arrive)."""
    return _record_diff_json(record)


def chunks(overview: ResponsesOverview, records: Iterable[str]) -> Iterator[str]:
    """The document as JSON text, piece by piece; `records` are the items already encoded as
    compact JSON, in report order."""
    document = overview_json(overview)
    document["records"] = records
    return json_chunks(document, per_line=(), encoded=("records",))


# The typed reader ---------------------------------------------------------------------------


@dataclass(frozen=True)
class ResponsesRecord:
    """One record's comparison (what the bundle shows of it)."""

    key: str
    """The record's key."""
    status: str
    """match, text-differs, only-base, ..."""
    text_match: bool | None
    """The texts are equal (None when a side is missing or failed)."""
    similarity: float | None
    """The texts' similarity (None when not compared)."""
    char_offset: int | None
    """The first differing character (None: no divergence)."""
    token_index: int | None
    """The first differing token (None: no divergence or no tokens)."""
    normalized_match: bool | None = None
    """The texts are equal only after `--normalize`."""
    text_digests: tuple[str | None, str | None] = (None, None)
    """Base's and patch's `text_xxh3` (None where a side is missing or gave no text)."""
    label: str | None = None
    """How the user names the record (`label`; None in documents written before it existed)."""

    @property
    def name(self) -> str:
        """The label, or the key when there is none."""
        return self.key if self.label is None else self.label


@dataclass(frozen=True)
class ResponsesDocument:
    """A `k3diff.responses/1` document, typed: what the bundle reads of it."""

    records: tuple[ResponsesRecord, ...]
    """Every record, in report order."""
    paired: int
    """Records present on both sides (`summary.paired`)."""
    differing: int
    """Paired records whose outputs differ (`summary.differing`)."""
    exact_match: int
    """Paired records whose texts are equal (`summary.exact_match`)."""
    only_base: int
    """Records only the base has (`summary.only_base`)."""
    only_patch: int
    """Records only the patch has (`summary.only_patch`)."""
    errors: int
    """Error records (`summary.errors`)."""
    summary: Mapping[str, Any]
    """The summary as written (the bundle records it beside the row)."""
    ok: bool
    """The document's verdict."""
    exit_code: int
    """The exit code `responses` returned."""
    scores: ScoresView | None = None
    """The paired eval-score tests (`summary.scores`), when the items carry scores."""
    noise: ScoresView | None = None
    """The same tests between the base and its rerun (`noise.scores`, `--base-rerun`)."""
    noise_path: str | None = None
    """The base rerun's path as given (`noise.path`)."""

    @property
    def keys(self) -> frozenset[str]:
        """Every record's key."""
        return frozenset(record.key for record in self.records)


def _record(fields: Fields) -> ResponsesRecord:
    divergence = fields.optional_object("divergence")
    return ResponsesRecord(
        key=fields.string("key"),
        status=fields.string("status"),
        text_match=fields.optional_boolean("text_match"),
        similarity=fields.optional_number("similarity"),
        char_offset=None if divergence is None else divergence.optional_integer("char_offset"),
        token_index=None if divergence is None else divergence.optional_integer("token_index"),
        normalized_match=fields.optional_boolean("normalized_match"),
        text_digests=(_digest(fields, "base"), _digest(fields, "patch")),
        label=fields.optional_string("label"),
    )


def _digest(fields: Fields, side: str) -> str | None:
    summary = fields.optional_object(side)
    return None if summary is None else summary.optional_string("text_xxh3")


def read(body: object, name: str) -> ResponsesDocument:
    """The typed view of a `k3diff.responses/1` document; InputError naming the file and the
    field when one is missing or of another type."""
    fields = Fields(body, name)
    summary = fields.object("summary")
    verdict = fields.object("verdict")
    noise = fields.optional_object("noise")
    return ResponsesDocument(
        records=fields.each("records", _record),
        paired=summary.integer("paired"),
        differing=summary.integer("differing"),
        exact_match=summary.integer("exact_match"),
        only_base=summary.integer("only_base"),
        only_patch=summary.integer("only_patch"),
        errors=summary.integer("errors"),
        summary=fields.as_written("summary"),
        ok=verdict.boolean("ok"),
        exit_code=verdict.integer("exit_code"),
        scores=read_scores(summary.optional_object("scores")),
        noise=None if noise is None else read_scores(noise.optional_object("scores")),
        noise_path=None if noise is None else noise.string("path"),
    )

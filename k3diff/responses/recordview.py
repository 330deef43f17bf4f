"""One record of a `k3diff.responses/1` comparison as read back: its typed view (each side's
captured answer and request condition, the divergence, field and lm-eval changes, scores) and its
reader, which `document.read` calls for each of the document's `records`."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from k3diff.fields import NON_FINITE_WRITTEN, Fields
from k3diff.responses.matchclaim import differs_in
from k3diff.responses.recordscores import read_record_scores

SIDES = ("base", "patch")
ONE_SIDED = ("only-base", "only-patch")
UNEXPLAINED = {
    "text-differs": "the captured texts differ",
    "error": "the comparison recorded an error for this key",
    "only-base": "the patch capture has no record for this key",
    "only-patch": "the base capture has no record for this key",
}
"""Statuses whose captures differ in a way only samples of both sides can explain (a text that
differs, a failed request, a side without the record), with the words triage says it in: such a
record never sampled on a side fails triage (`unsampled`)."""


@dataclass(frozen=True, slots=True)
class CapturedCondition:
    """A captured request's condition, as far as the record shows it (`base.request`)."""

    route: str | None
    """chat or completions (None: the record does not say)."""
    stream: bool | None
    """Whether the request asked for a stream (None: the record does not say)."""
    params: Mapping[str, Any] | None
    """The request's fields but prompt, model and stream (None: not recorded)."""
    complete: bool
    """The whole request body was recorded: a field absent from `params` was not sent."""


@dataclass(frozen=True, slots=True)
class RecordSide:
    """One side of a record: what the comparison kept of its captured answer."""

    text_xxh3: str | None
    """xxh3-128 of the captured text (None when the side failed or gave no text)."""
    prompt_xxh3: str | None = None
    """xxh3-128 of the captured prompt (None when not recorded)."""
    condition: CapturedCondition | None = None
    """The captured request's condition (None when not recorded)."""
    model: str | None = None
    """The model the server said it answered as (None: the capture names none, or a document
    written before `model`)."""
    token_ids_xxh3: str | None = None
    """xxh3-128 of the captured token ids (None: the capture has none)."""


@dataclass(frozen=True, slots=True)
class ResponsesRecord:
    """One record's comparison."""

    key: str
    """The record's key (the pairing key; the samples' `key`)."""
    status: str
    """match, text-differs, only-base, error, ..."""
    text_match: bool | None = None
    """The texts are equal (None when a side is missing or failed)."""
    similarity: float | None = None
    """The texts' similarity (None when not compared)."""
    char_offset: int | None = None
    """The first differing character (None: no divergence)."""
    token_index: int | None = None
    """The first differing token (None: no divergence or no tokens)."""
    normalized_match: bool | None = None
    """The texts are equal only after `--normalize`."""
    base: RecordSide | None = None
    """The base's answer (None: the base has no record of this key)."""
    patch: RecordSide | None = None
    """The patch's answer (None: the patch has no record of this key)."""
    label: str | None = None
    """How the user names the record (None in documents written before labels, or none)."""
    prompt_preview: str | None = None
    """The prompt's first characters, as the comparison shows them."""
    divergence_gaps: tuple[float, ...] = ()
    """|gap| at the first divergence (the sampled token's logprob minus the best other token's,
    the larger side); in documents without it, each side's top-1 minus top-2 gap."""
    field_paths: tuple[str, ...] = ()
    """The paths of the record's field changes (`field_changes[].path`)."""
    changed_values: tuple[tuple[str, object, object], ...] = ()
    """(path, base, patch) of each field change whose value changed on both sides (`change`
    changed)."""
    metric_changes: tuple[tuple[str, str | None, object, object], ...] | None = None
    """lm-eval: (metric, filter group, base value, patch value) per metric that changed (the
    group None for no filter or `none`); None: the record holds no `lm_eval` comparison."""
    lm_eval_group: str | None = None
    """lm-eval: the record's filter as a score group (None for no filter or `none`)."""
    not_comparable_inputs: tuple[str, ...] = ()
    """lm-eval: what differs between the two logs' doc (`prompt`, `target`, `doc`:
    `lm_eval.prompt_differs` and `inputs_differ`); empty where nothing does."""
    scores: tuple[tuple[str, str | None, float, float], ...] | None = None
    """(metric, filter, base, patch) per score the record gave the paired tests; None: not
    written (a record without scores, or a document written before stop 61)."""
    differs_in: tuple[str, ...] = ()
    """What the record's own evidence shows differs, whatever its status says (`matchclaim`)."""

    @property
    def name(self) -> str:
        """The label, or the key when there is none."""
        return self.key if self.label is None else self.label

    @property
    def base_present(self) -> bool:
        """The base file has the record."""
        return self.base is not None

    @property
    def patch_present(self) -> bool:
        """The patch file has the record."""
        return self.patch is not None

    @property
    def base_xxh3(self) -> str | None:
        """The base's text digest (None: no base record, or no text)."""
        return None if self.base is None else self.base.text_xxh3

    @property
    def patch_xxh3(self) -> str | None:
        """The patch's text digest (None: no patch record, or no text)."""
        return None if self.patch is None else self.patch.text_xxh3

    @property
    def prompts(self) -> Mapping[str, str]:
        """Per side, the digest of its captured prompt (sides that recorded one)."""
        sides = zip(SIDES, (self.base, self.patch), strict=True)
        return {name: s.prompt_xxh3 for name, s in sides if s and s.prompt_xxh3 is not None}

    @property
    def models(self) -> Mapping[str, str]:
        """Per side, the model its captured answer named (sides that recorded one)."""
        sides = zip(SIDES, (self.base, self.patch), strict=True)
        return {name: s.model for name, s in sides if s and s.model is not None}

    @property
    def conditions(self) -> Mapping[str, CapturedCondition]:
        """Per side, its captured request's condition (sides that recorded one)."""
        sides = zip(SIDES, (self.base, self.patch), strict=True)
        return {name: s.condition for name, s in sides if s and s.condition is not None}


def _condition(fields: Fields | None) -> CapturedCondition | None:
    if fields is None:
        return None
    route = fields.optional_string("route")
    if route not in ("chat", "completions", None):
        raise fields.fail("route", "must be chat, completions or null")
    params = fields.optional_object("params")
    return CapturedCondition(
        route=route,
        stream=fields.optional_boolean("stream"),
        params=None if params is None else fields.as_written("params"),
        complete=fields.optional_boolean("complete") is True,
    )


def _side(fields: Fields | None) -> RecordSide | None:
    if fields is None:
        return None
    return RecordSide(
        text_xxh3=fields.optional_string("text_xxh3"),
        prompt_xxh3=fields.optional_string("prompt_xxh3"),
        condition=_condition(fields.optional_object("request")),
        model=fields.optional_string("model"),
        token_ids_xxh3=fields.optional_string("token_ids_xxh3"),
    )


def _gaps(logprobs: Fields | None) -> tuple[float, ...]:
    """The labelled gap at the divergence, else each side's top-1 minus top-2 gap."""
    if logprobs is None:
        return ()
    labelled = logprobs.optional_number("gap", NON_FINITE_WRITTEN)  # a NaN or -inf logprob
    if logprobs.optional_string("label") is not None and labelled is not None:
        return (abs(labelled),)
    points = (logprobs.optional_object(side) for side in SIDES)
    gaps = (
        point.optional_number("gap", NON_FINITE_WRITTEN) for point in points if point is not None
    )
    return tuple(gap for gap in gaps if gap is not None)


def read_record(fields: Fields) -> ResponsesRecord:
    """One record's typed view; InputError naming the file and the field when one is missing or
    of another type."""
    divergence = fields.optional_object("divergence")
    lm_eval = fields.optional_object("lm_eval")
    return ResponsesRecord(
        key=fields.string("key"),
        status=fields.string("status"),
        text_match=fields.optional_boolean("text_match"),
        similarity=fields.optional_share("similarity"),
        char_offset=None if divergence is None else divergence.optional_integer("char_offset"),
        token_index=None if divergence is None else divergence.optional_integer("token_index"),
        normalized_match=fields.optional_boolean("normalized_match"),
        base=_side(fields.optional_object("base")),
        patch=_side(fields.optional_object("patch")),
        label=fields.optional_string("label"),
        prompt_preview=fields.optional_string("prompt_preview"),
        divergence_gaps=() if divergence is None else _gaps(divergence.optional_object("logprobs")),
        field_paths=_field_paths(fields),
        changed_values=_changed_values(fields),
        metric_changes=_metric_changes(lm_eval),
        lm_eval_group=None if lm_eval is None else _group(lm_eval),
        not_comparable_inputs=_differing_inputs(lm_eval),
        scores=read_record_scores(fields),
        differs_in=differs_in(fields),
    )


def _metric_changes(
    lm_eval: Fields | None,
) -> tuple[tuple[str, str | None, object, object], ...] | None:
    if lm_eval is None:
        return None
    group = _group(lm_eval)
    return lm_eval.each(
        "metric_changes",
        lambda change: (change.string("metric"), group, change.raw("base"), change.raw("patch")),
    )


def _differing_inputs(lm_eval: Fields | None) -> tuple[str, ...]:
    if lm_eval is None:
        return ()
    prompt = ("prompt",) if lm_eval.optional_boolean("prompt_differs") else ()
    # `inputs_differ`: written since stream66; a document before it names the prompt only.
    return prompt + (lm_eval.strings("inputs_differ") if lm_eval.has("inputs_differ") else ())


def _group(lm_eval: Fields) -> str | None:
    group = lm_eval.optional_string("filter")
    return None if group in (None, "none") else group


def _field_paths(fields: Fields) -> tuple[str, ...]:
    if not fields.has("field_changes"):
        return ()
    return tuple(fields.each("field_changes", lambda change: change.string("path")))


def _changed_values(fields: Fields) -> tuple[tuple[str, object, object], ...]:
    if not fields.has("field_changes"):
        return ()
    found = fields.each(
        "field_changes",
        lambda c: (c.string("path"), c.raw("change"), c.raw("base"), c.raw("patch")),
    )
    return tuple((path, base, patch) for path, change, base, patch in found if change == "changed")

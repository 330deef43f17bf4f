"""The `k3diff.responses/1` comparison as read back: its typed view and its one reader (its
self-check and the checking reader `parse_comparison` are in `k3diff.responses.doccheck`), used
by every command that reads a comparison (`report` through
`k3diff.documents.read`, `triage` through `parse_comparison`), so that one edited document is
refused with the same line by each. Its writer is `k3diff.documents.responses`.

The reader lives here, beside the comparison's model, because `triage` reads comparisons and
sits below `documents/` (whose triage document imports the triage model); reading through
`k3diff.fields` and `k3diff.docbody`, it imports nothing above `responses/`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from k3diff.fields import NON_FINITE_WRITTEN, NONNEGATIVE, Fields, is_number
from k3diff.responses.beams import BeamNote, read_beams
from k3diff.responses.gateview import GateView, read_gate
from k3diff.responses.matchclaim import differs_in
from k3diff.responses.recordscores import check_total, read_record_scores
from k3diff.responses.sampled import SampledNote, read_sampled
from k3diff.responses.scoresview import ScoresView, read_scores

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


@dataclass(frozen=True)
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


@dataclass(frozen=True)
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


@dataclass(frozen=True)
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


@dataclass(frozen=True)
class ResponsesDocument:
    """A `k3diff.responses/1` document, typed."""

    name: str
    """The file as the user named it."""
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
    fail_on: tuple[str, ...] = ()
    """The `--fail-on` gates (`fail_on`; none in documents before it)."""
    score_gate: GateView | None = None
    """`--fail-on score-drop`'s decisions (`score_gate`), when asked."""
    noise: ScoresView | None = None
    """The same tests between the base and its rerun (`noise.scores`, `--base-rerun`)."""
    noise_path: str | None = None
    """The base rerun's path as given (`noise.path`)."""
    pairing: str | None = None
    """How the records were paired (field, id, prompt-hash, order; None: not recorded)."""
    pairing_field: str | None = None
    """The `--key` field, when paired by one."""
    unshared_field: str | None = None
    """A key field every record of both sides carries whose values never meet, passed over by
    the default rule (`pairing.unshared_field`; None: none, or a document from before it)."""
    normalize: tuple[str, ...] = ()
    """The `--normalize` rules the run applied (`normalize`; none: texts compared as captured)."""
    ignore_fields: tuple[str, ...] = ()
    """The `--ignore-field` paths the run left out (`ignore_fields`; none in documents before
    it)."""
    formats: tuple[str, ...] = ()
    """The loaders that read the two captures (`base.format`, `patch.format`; those recorded)."""
    beams: BeamNote | None = None
    """Records that held beams `--beam` did not read (`beams`; None: none did, or a document
    from before resp66)."""
    sampled: SampledNote | None = None
    """Paired records whose requests sampled (`sampled`; None: none, or before hunt75)."""

    @property
    def keys(self) -> frozenset[str]:
        """Every record's key."""
        return frozenset(record.key for record in self.records)


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


def _record(fields: Fields) -> ResponsesRecord:
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


def read(body: object, name: str) -> ResponsesDocument:
    """The typed view of a `k3diff.responses/1` document; InputError naming the file and the
    field when one is missing or of another type."""
    fields = Fields(body, name)
    summary = fields.object("summary")
    verdict = fields.object("verdict")
    noise = fields.optional_object("noise")
    pairing = fields.optional_object("pairing")
    records = fields.each("records", _record)
    check_total(fields, sum(len(r.scores or ()) for r in records))
    _held(fields)
    return ResponsesDocument(
        name=name,
        records=records,
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
        fail_on=fields.strings("fail_on") if fields.has("fail_on") else (),
        score_gate=read_gate(fields.optional_object("score_gate")),
        noise_path=None if noise is None else noise.string("path"),
        pairing=None if pairing is None else pairing.optional_string("key"),
        pairing_field=None if pairing is None else pairing.optional_string("field"),
        unshared_field=None if pairing is None else pairing.optional_string("unshared_field"),
        normalize=fields.strings("normalize") if fields.has("normalize") else (),
        ignore_fields=fields.strings("ignore_fields") if fields.has("ignore_fields") else (),
        formats=_formats(fields),
        beams=read_beams(fields.optional_object("beams")),
        sampled=read_sampled(fields, records),
    )


def _held(fields: Fields) -> None:
    """What no view keeps, held to the ranges the schema states (readers72: a size of -1 or a
    `rerun.beam` of -1 was read, which the schema refuses): each input's size, the settings
    `rerun` records (where written: documents before forge61b have none)."""
    for side in ("base", "patch"):
        info = fields.optional_object(side)
        if info is not None:
            info.optional_integer("size")
            info.optional_sha256("sha256")
    rerun = fields.optional_object("rerun")
    if rerun is None:
        return
    for key in ("logprob_tol", "near_tie", "score_alpha"):
        rerun.optional_number(key, NONNEGATIVE)
    for key in ("beam", "max_record_bytes", "max_document_bytes"):
        rerun.optional_integer(key)
    gate = rerun.optional_object("score_gate")
    if gate is not None:
        gate.optional_number("tolerance_points", NONNEGATIVE)
        tolerances = gate.raw("tolerances")
        for index, pair in enumerate(tolerances if isinstance(tolerances, list) else ()):
            points = pair[1] if isinstance(pair, list) and len(pair) == 2 else 0
            if not is_number(points) or not NONNEGATIVE.holds(float(points)):
                raise gate.fail(f"tolerances[{index}][1]", "must be a number of at least 0")


def _formats(fields: Fields) -> tuple[str, ...]:
    sides = (fields.optional_object(side) for side in ("base", "patch"))
    found = (side.optional_string("format") for side in sides if side is not None)
    return tuple(name for name in found if name is not None)

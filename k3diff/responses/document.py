"""The `k3diff.responses/1` comparison as read back: its typed view, its one reader and its
self-check, used by every command that reads a comparison (`report` through
`k3diff.documents.read`, `triage` through `parse_comparison`), so that one edited document is
refused with the same line by each. Its writer is `k3diff.documents.responses`.

The reader lives here, beside the comparison's model, because `triage` reads comparisons and
sits below `documents/` (whose triage document imports the triage model); reading through
`k3diff.fields` and `k3diff.docbody`, it imports nothing above `responses/`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from k3diff.docbody import Kind, parse_body
from k3diff.errors import InputError
from k3diff.exitcodes import verdict_problems
from k3diff.fields import Fields
from k3diff.responses.results import DIFFERING, Status
from k3diff.responses.scoresview import ScoresView, read_scores, score_problems

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
    )


def _gaps(logprobs: Fields | None) -> tuple[float, ...]:
    """The labelled gap at the divergence, else each side's top-1 minus top-2 gap."""
    if logprobs is None:
        return ()
    labelled = logprobs.optional_number("gap")
    if logprobs.optional_string("label") is not None and labelled is not None:
        return (abs(labelled),)
    points = (logprobs.optional_object(side) for side in SIDES)
    gaps = (point.optional_number("gap") for point in points if point is not None)
    return tuple(gap for gap in gaps if gap is not None)


def _record(fields: Fields) -> ResponsesRecord:
    divergence = fields.optional_object("divergence")
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
    )


def read(body: object, name: str) -> ResponsesDocument:
    """The typed view of a `k3diff.responses/1` document; InputError naming the file and the
    field when one is missing or of another type."""
    fields = Fields(body, name)
    summary = fields.object("summary")
    verdict = fields.object("verdict")
    noise = fields.optional_object("noise")
    pairing = fields.optional_object("pairing")
    return ResponsesDocument(
        name=name,
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
        pairing=None if pairing is None else pairing.optional_string("key"),
        pairing_field=None if pairing is None else pairing.optional_string("field"),
        unshared_field=None if pairing is None else pairing.optional_string("unshared_field"),
        normalize=fields.strings("normalize") if fields.has("normalize") else (),
    )


def parse_comparison(data: bytes, path: Path) -> ResponsesDocument:
    """A comparison's bytes, parsed (`k3diff.docbody`), read and checked against itself, as
    `k3diff.documents.read.read_document` reads one; another kind of document is refused."""
    kind, body = parse_body(data, path)
    if kind is not Kind.RESPONSES:
        raise InputError(
            f"{path}: a {kind.value} document, not a {Kind.RESPONSES.value} comparison (give "
            "the output of 'k3diff responses BASE PATCH --format json')"
        )
    view = read(body, str(path))
    check_responses(view, str(path))
    return view


# The self-check -----------------------------------------------------------------------------


def _compare(problems: list[str], summary: Mapping[str, Any], field: str, counted: int) -> None:
    """Note a disagreement when the summary states `field` and it is not `counted`."""
    if field in summary and summary[field] != counted:
        problems.append(f"summary.{field} is {summary[field]!r} but its records give {counted:,}")


def refuse_disagreement(name: str, problems: Sequence[str]) -> None:
    """InputError naming every way a document disagrees with itself (none: nothing)."""
    if problems:
        raise InputError(
            f"{name}: the document disagrees with itself ({'; '.join(problems)}): it was edited "
            "or is corrupt; regenerate it with the command that wrote it"
        )


def check_responses(view: ResponsesDocument, name: str) -> None:
    """`k3diff.responses/1` against itself: each key once, the record counts, statuses and
    exact matches, the score tests and the verdict."""
    records, summary = view.records, view.summary
    statuses = Counter(r.status for r in records)
    paired = [r for r in records if r.status not in ONE_SIDED]
    differing = sum(1 for r in paired if r.status in DIFFERING)
    problems = [
        f"record {key!r} appears {count} times"
        for key, count in Counter(r.key for r in records).items()
        if count > 1
    ]
    _compare(problems, summary, "records", len(records))
    _compare(problems, summary, "paired", len(paired))
    for field, status in (("only_base", "only-base"), ("only_patch", "only-patch")):
        _compare(problems, summary, field, statuses.get(status, 0))
    _compare(problems, summary, "exact_match", sum(1 for r in paired if r.text_match is True))
    _compare(problems, summary, "differing", differing)
    _compare(problems, summary, "errors", statuses.get("error", 0))
    normalized = sum(1 for r in paired if r.normalized_match)
    _compare(problems, summary, "normalized_match", normalized)
    by_status = summary.get("by_status")
    if isinstance(by_status, Mapping):
        for status in sorted(set(by_status) | set(statuses)):
            stated, counted = by_status.get(status, 0), statuses.get(status, 0)
            if stated != counted:
                problems.append(
                    f"summary.by_status.{status} is {stated!r} but its records give {counted:,}"
                )
    problems += _status_problems(records)
    problems += _record_problems(paired, bool(view.normalize))
    if view.scores is not None:
        problems += score_problems(view.scores)
    problems += verdict_problems(view.ok, view.exit_code, _failing(view, paired), "its records")
    refuse_disagreement(name, problems)


def _failing(view: ResponsesDocument, paired: Sequence[ResponsesRecord]) -> list[str]:
    """Why the records fail the comparison: `ComparisonOverview.failures`' rule (nothing
    paired; unpaired records unless allowed; pairs not comparable; a score significantly worse;
    paired records that differ)."""
    one_sided = len(view.records) - len(paired)
    statuses = Counter(r.status for r in paired)
    differing = sum(statuses[status.value] for status in DIFFERING)
    failing = []
    if not paired:
        failing.append("nothing paired")
    elif one_sided and not view.summary.get("unpaired_allowed"):
        failing.append(f"{one_sided:,} on one side only")
    if statuses[Status.NOT_COMPARABLE.value]:
        failing.append(f"{statuses[Status.NOT_COMPARABLE.value]:,} not comparable")
    if view.scores is not None:
        failing += [f"{test.label!r} significantly worse" for test in view.scores.failing]
    if differing:
        failing.append(f"{differing:,} of {len(paired):,} paired records differ")
    return failing


_STATUSES = frozenset(status.value for status in Status)


def _status_problems(records: Sequence[ResponsesRecord], shown: int = 3) -> list[str]:
    """Statuses no run of `responses` writes, and one-sided records that hold the other side's
    answer (a difference relabelled out of the verdict); the first `shown`, and how many more."""
    problems = []
    for record in records:
        key, status = record.key, record.status
        if status not in _STATUSES:
            problems.append(
                f"record {key!r} has the status {status!r}, which no run of responses writes"
            )
        elif status == "only-base" and record.patch is not None:
            problems.append(f"record {key!r} is only-base but holds the patch's answer")
        elif status == "only-patch" and record.base is not None:
            problems.append(f"record {key!r} is only-patch but holds the base's answer")
    if len(problems) > shown:
        problems[shown:] = [f"{len(problems) - shown:,} more such records"]
    return problems


def _record_problems(paired: Sequence[ResponsesRecord], normalized: bool) -> list[str]:
    """Each record's texts against its status: `responses` compares the texts of every
    record it calls a match, and a match after `--normalize` needs a run that normalised."""
    problems = []
    for record in paired:
        if record.status == "match" and record.text_match is None:
            problems.append(
                f"record {record.key!r} is a match that compares no texts (text_match null)"
            )
        if record.normalized_match and not normalized:
            problems.append(
                f"record {record.key!r} matches only after --normalize, but the run normalised "
                "nothing"
            )
        base, patch = record.base_xxh3, record.patch_xxh3
        if record.text_match is True and base is not None and patch is not None and base != patch:
            problems.append(
                f"record {record.key!r} says its texts are equal but their digests differ"
            )
        if record.status == "match" and record.text_match is False and not record.normalized_match:
            problems.append(f"record {record.key!r} is a match whose texts differ")
    return problems

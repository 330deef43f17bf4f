"""The records row of the bundle: what `k3diff.responses/1` says, recounted from its records."""

from __future__ import annotations

from k3diff.bundle.housealpha import SCORES_HOUSE, score_rejudged
from k3diff.bundle.model import Evidence, Stage, Status
from k3diff.bundle.policyfacts import normalized_matches
from k3diff.bundle.recordkinds import (
    FAILED,
    NOT_COMPARABLE,
    ONE_LOG_ONLY,
    OUTSIDE_TEXT,
    TEXT_DIFFERS,
)
from k3diff.documents.read import Document
from k3diff.numbers import named
from k3diff.responses.beams import beams_qualification
from k3diff.responses.document import ResponsesDocument
from k3diff.responses.gateview import gate_headline
from k3diff.responses.ignore import ignored_qualification
from k3diff.responses.lmevalinputs import INPUT_WORDS
from k3diff.responses.recordview import ResponsesRecord


def responses_stage(doc: Document) -> Stage:
    """Record-level comparison from `k3diff.responses/1`."""
    responses = doc.typed(ResponsesDocument)
    headline = _records_sentence(responses)
    gated = responses.score_gate is not None  # the scores decide the texts
    text_differs = [r.name for r in responses.records if r.status in TEXT_DIFFERS and not gated]
    failed = [r.name for r in responses.records if r.status == FAILED]
    not_comparable = [r for r in responses.records if r.status == NOT_COMPARABLE]
    not_known = [r.name for r in not_comparable if set(r.not_comparable_inputs) <= ONE_LOG_ONLY]
    quals = normalized_matches(responses)
    for said in (
        ignored_qualification(responses.ignore_fields),
        beams_qualification(responses.beams),  # left66
        None if responses.sampled is None else responses.sampled.sentence(),  # hunt75
    ):
        if said is not None:
            quals.append(said[0].upper() + said[1:])
    one_sided = responses.only_base + responses.only_patch
    if one_sided:
        headline += (
            f"; {responses.only_base:,} only in base, {responses.only_patch:,} only in patch"
        )
        quals.append(f"{one_sided:,} records are on one side only and were not compared")
    if responses.scores is not None:
        headline += "; " + "; ".join(responses.scores.sentences())
    if responses.score_gate is not None:
        headline += "; " + gate_headline(responses.score_gate, responses.scores)
    if responses.noise is not None:
        quals.append(
            f"base rerun {responses.noise_path} (the engine's own noise band): "
            + "; ".join(responses.noise.sentences())
        )
    status = Status.of_verdict(responses.ok, responses.exit_code)
    house = score_rejudged(responses)
    if house:
        # alpha61: the house α's reading fails where the document's own passes.
        headline += f"; at the house α = {SCORES_HOUSE:g}: {'; '.join(house)}"
        status = Status.FAIL
    return Stage(
        Evidence.RECORDS,
        doc.name,
        status,
        headline,
        tuple(quals),
        dict(responses.summary),
        records=tuple(text_differs),
        not_comparable=tuple(r.name for r in not_comparable),
        not_known=tuple(not_known),
        failed=tuple(failed),
    )


def _records_sentence(responses: ResponsesDocument) -> str:
    """'4 of 10 paired records differ: text differs on 2 (r2, r5), a request failed on 1 (r3),
    logprobs/fields differ on 1 (r7); 1 not comparable, their inputs differ (request arguments on r9); exact text match
    6': recounted
    from the records, each kind of difference named."""
    paired = [r for r in responses.records if r.status not in ("only-base", "only-patch")]
    text = [r.name for r in paired if r.status in TEXT_DIFFERS]
    failed = [r.name for r in paired if r.status == FAILED]
    outside = [r.name for r in paired if r.status in OUTSIDE_TEXT]
    exact = sum(1 for r in paired if r.text_match)
    differing = len(text) + len(failed) + len(outside)
    sentence = f"{differing:,} of {len(paired):,} paired records differ"
    kinds = []
    if text:
        kinds.append(f"text differs on {len(text):,} ({named(text)})")
    if failed:
        kinds.append(f"a request failed on {len(failed):,} ({named(failed)})")
    if outside:
        kinds.append(f"logprobs/fields differ on {len(outside):,} ({named(outside)})")
    if kinds:
        sentence += ": " + ", ".join(kinds)
    unjudged = [r for r in paired if r.status == NOT_COMPARABLE]
    if unjudged:
        sentence += (
            f"; {len(unjudged):,} not comparable, their inputs differ ({_what_differs(unjudged)})"
        )
    return f"{sentence}; exact text match {exact:,}"


def _what_differs(records: list[ResponsesRecord]) -> str:
    """'request arguments on 0, 4; gold target and document on 7': what differs of what the
    two runs were given, each with the records it covers (a document written before
    `inputs_differ` names the prompt)."""
    groups: dict[str, list[str]] = {}
    for record in records:
        inputs = record.not_comparable_inputs or ("prompt",)
        words = " and ".join(INPUT_WORDS.get(name, name) for name in inputs)
        groups.setdefault(words, []).append(record.name)
    return "; ".join(f"{words} on {named(names)}" for words, names in groups.items())

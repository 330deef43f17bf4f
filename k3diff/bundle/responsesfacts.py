"""The records row of the bundle: what `k3diff.responses/1` says, recounted from its records."""

from __future__ import annotations

from k3diff.bundle.housealpha import SCORES_HOUSE, score_rejudged
from k3diff.bundle.model import Evidence, Stage, Status
from k3diff.bundle.policyfacts import normalized_matches
from k3diff.bundle.triagefacts import OUTSIDE_TEXT
from k3diff.documents.read import Document
from k3diff.numbers import named
from k3diff.responses.beams import beams_qualification
from k3diff.responses.document import ResponsesDocument
from k3diff.responses.gateview import gate_headline
from k3diff.responses.ignore import ignored_qualification


def responses_stage(doc: Document) -> Stage:
    """Record-level comparison from `k3diff.responses/1`."""
    responses = doc.typed(ResponsesDocument)
    headline = _records_sentence(responses)
    failing = GATE_FAILS if responses.score_gate is not None else TEXT_DIFFERS
    text_differs = [r.name for r in responses.records if r.status in failing]
    quals = normalized_matches(responses)
    for said in (
        ignored_qualification(responses.ignore_fields),
        beams_qualification(responses.beams),  # left66
    ):
        if said is not None:
            quals.append(said[0].upper() + said[1:])
    one_sided = responses.only_base + responses.only_patch
    if one_sided:
        headline += (
            f"; {responses.only_base:,} only in base, {responses.only_patch:,} only in patch"
        )
        quals.append(f"{one_sided:,} records are on one side only and were not compared")
    if responses.errors:
        headline += f"; {responses.errors:,} error records"
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
    )


TEXT_DIFFERS = frozenset({"text-differs", "tokens-differ", "error", "not-comparable"})
"""Comparison statuses whose outputs differ (or could not be compared): the text differs."""
GATE_FAILS = frozenset({"error", "not-comparable"})
"""Under `--fail-on score-drop`, the statuses that still fail a record (the scores decide the
rest)."""


def _records_sentence(responses: ResponsesDocument) -> str:
    """'3 of 10 paired records differ: text differs on 2 (r2, r5), logprobs/fields differ on 1
    (r7); exact text match 8': recounted from the records, each kind of difference named."""
    paired = [r for r in responses.records if r.status not in ("only-base", "only-patch")]
    text = [r.name for r in paired if r.status in TEXT_DIFFERS]
    outside = [r.name for r in paired if r.status in OUTSIDE_TEXT]
    exact = sum(1 for r in paired if r.text_match)
    differing = len(text) + len(outside)
    sentence = f"{differing:,} of {len(paired):,} paired records differ"
    kinds = []
    if text:
        kinds.append(f"text differs on {len(text):,} ({named(text)})")
    if outside:
        kinds.append(f"logprobs/fields differ on {len(outside):,} ({named(outside)})")
    if kinds:
        sentence += ": " + ", ".join(kinds)
    return f"{sentence}; exact text match {exact:,}"

"""A failing comparison explained by its triage: every record that differs classified as the
base's (or both sides') nondeterminism by a triage that follows from it, not held, turns the
records row from failing to explained."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from k3diff.bundle.distfacts import untested_nondeterminism
from k3diff.bundle.houseshift import fails_at_house
from k3diff.bundle.model import Stage, Status
from k3diff.docbody import Kind
from k3diff.documents.read import Document
from k3diff.documents.triage import TriageDocument
from k3diff.responses.document import ResponsesDocument

EXPLAINING_CATEGORIES = frozenset({"base-nondeterminism", "both-nondeterministic"})
"""Triage categories that account for a difference without blaming the patch. Anything else on
a differing record (inconclusive, patch nondeterminism short of significance, a divergence)
leaves the comparison failing: an undecided difference is not an explained one. Nor is a
nondeterministic record that no distribution test judged (`untested_nondeterminism`)."""


def explaining_triage(doc: Document, documents: Sequence[Document]) -> Document | None:
    """A triage that follows from this comparison (`follows_from`), not held (one server: gate74;
    the house α, --shift, --power: hunt76), classifying exactly its records and every one that
    differs as the base's (or both sides') nondeterminism."""
    keys = doc.typed(ResponsesDocument).keys
    for other in documents:
        if other.kind is not Kind.TRIAGE or other.one_server_held:
            continue
        triage = other.typed(TriageDocument)
        if (
            other.follows_from == doc.name
            and not fails_at_house(other.name, triage, other.house_again)
            and {r.key for r in triage.records} == keys
            and all(
                r.category in EXPLAINING_CATEGORIES and not untested_nondeterminism(r)
                for r in triage.records
                if r.comparison_status != "match"
            )
        ):
            return other
    return None


def followed_up(stage: Stage, doc: Document, documents: Sequence[Document]) -> Stage:
    """A failing comparison whose every record a triage classified: the triage decides."""
    triage = explaining_triage(doc, documents)
    if stage.status is not Status.FAIL or triage is None:
        return stage
    return dataclasses.replace(
        stage,
        status=Status.EXPLAINED,
        headline=f"{stage.headline}; every record classified by {triage.name}",
        held=None,
        label=None,
    )

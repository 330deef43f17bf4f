"""Why a re-derived triage document's Monte Carlo p-values differ from the ones it states,
said beside its refusal (`rederive.derived_comparisons`).

Two changes made triage draw other permutations from the same evidence: stats64b gave each
record its own stream (before, one stream per mode was shared in record order), and aa78 sized
the permutation count at the level a sampled test is judged at (the smallest p a twentieth of
it, not a tenth: a sampled record at α = 0.05 over three records drew 4,799 label permutations
and draws 9,599 since). A document states its counts (`distribution.permutations`,
`first_token.draws`), so a count triage no longer draws is named as the reason; only where the
counts agree can the streams be why (small79: every such refusal blamed stats64b, a document
written between stats64b and aa78 too). A stated count that is no count (edited: a string, a
list, past 2^53 - 1) is named as no reason and never echoed (review79b)."""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from k3diff.counts import MAX_COUNT

_DRAWN_P = re.compile(r"\.distribution\.(\S+\.)?(pooled_)?p(_adjusted)?: ")
"""A difference in a Monte Carlo p of the distribution or first-token tests."""


def drawn_hint(
    differences: Sequence[str], stated: Mapping[str, Any], again: Sequence[Mapping[str, Any]]
) -> str:
    """The reason a Monte Carlo p differs, '' where none does: the permutation count where the
    document's differs from a run again's (`again`, one per comparison), else the streams."""
    if not any(_DRAWN_P.search(d) for d in differences):
        return ""
    for document in again:
        for (place, then), (_, now) in zip(_counts(stated), _counts(document), strict=False):
            if _is_count(then) and _is_count(now) and then != now:
                return (
                    f" (a triage written before aa78 drew {_count(then)} permutations "
                    f"({place}) where triage draws {_count(now)} today, sized since at the "
                    "level a sampled test is judged at: its Monte Carlo p-values are not "
                    "today's, though the evidence may be the same: run triage again on them)"
                )
    return (
        " (a triage written before stats64b drew its sampled records' permutations from one "
        "stream per mode, each record's own since: run triage again on them)"
    )


def _counts(document: Mapping[str, Any]) -> Iterator[tuple[str, Any]]:
    """(place, count) of every distribution and first-token test, in document order."""
    records = document.get("records")
    for number, record in enumerate(records if isinstance(records, list) else ()):
        modes = record.get("modes") if isinstance(record, Mapping) else None
        for index, mode in enumerate(modes if isinstance(modes, list) else ()):
            test = mode.get("distribution") if isinstance(mode, Mapping) else None
            if not isinstance(test, Mapping):
                continue
            where = f"records[{number}].modes[{index}].distribution"
            yield f"{where}.permutations", test.get("permutations")
            first = test.get("first_token")
            if isinstance(first, Mapping):
                yield f"{where}.first_token.draws", first.get("draws")


def _is_count(value: Any) -> bool:
    """A permutation count a triage could have drawn: a positive integer in JSON's exact range
    (review79b: a document's `permutations` was echoed whatever it held, a string of 1 MB into
    the refusal's line, and named as a count triage once drew)."""
    return isinstance(value, int) and not isinstance(value, bool) and 0 < value <= MAX_COUNT


def _count(value: int) -> str:
    return f"{value:,}"

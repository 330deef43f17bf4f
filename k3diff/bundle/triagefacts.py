"""The nondeterminism follow-up row, from `k3diff.triage/1`: how many records differ, what each
is, and the caveat a weakly bounded stable side implies."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from k3diff.bundle.model import Evidence, Stage, Status, fails
from k3diff.documents.read import Document, Kind

CATEGORY_WORDS = {
    "base-nondeterminism": "base nondeterminism",
    "patch-outside-base": "patch outputs the base never gave (regression candidates)",
    "patch-nondeterminism": "patch nondeterminism",
    "deterministic-divergence": "deterministic divergence (regression candidates)",
    "both-nondeterministic": "nondeterministic on both sides",
    "inconclusive": "inconclusive",
    "match": "matches",
}


def deciding_mode(record: Mapping[str, Any]) -> Mapping[str, Any]:
    """The mode that decided a record's category (its first mode when none is named)."""
    modes = [m for m in record.get("modes") or [] if isinstance(m, Mapping)]
    for mode in modes:
        if mode.get("mode") == record.get("deciding_mode"):
            return mode
    return modes[0] if modes else {}


def _span(values: Sequence[int]) -> str:
    low, high = min(values), max(values)
    return f"{low:,}" if low == high else f"{low:,}–{high:,}"


def _side_numbers(records: Sequence[Mapping[str, Any]], side: str) -> str:
    pairs = [
        (int(s.get("distinct", 0)), int(s.get("n", 0)))
        for r in records
        if isinstance(s := deciding_mode(r).get(side), Mapping)
    ]
    if not pairs:
        return f"{side} not sampled"
    distinct, n = [p[0] for p in pairs], [p[1] for p in pairs]
    each = " each" if len(pairs) > 1 and len(set(pairs)) == 1 else ""
    return f"{side} {_span(distinct)} distinct of {_span(n)}{each}"


def _differ_sentence(body: Mapping[str, Any]) -> str:
    records = [r for r in body.get("records") or [] if isinstance(r, Mapping)]
    differing = [r for r in records if r.get("comparison_status", "text-differs") != "match"]
    total = int((body.get("summary") or {}).get("records", len(records)))
    sentence = f"{len(differing):,} of {total:,} records differ"
    if not differing:
        return sentence
    categories = Counter(str(r.get("category")) for r in differing)
    if len(categories) == 1:
        category = next(iter(categories))
        numbers = _side_numbers(
            differing, "base" if category != "patch-nondeterminism" else "patch"
        )
        words = CATEGORY_WORDS.get(category, category)
        every = f"all {len(differing):,} are" if len(differing) > 1 else "it is"
        return f"{sentence}; {every} {words} ({numbers})"
    parts = [f"{n:,} {CATEGORY_WORDS.get(c, c)}" for c, n in categories.most_common()]
    return f"{sentence}: {', '.join(parts)}"


BOUNDED_SIDE = {
    "base-nondeterminism": "patch",
    "deterministic-divergence": "base",
    "patch-nondeterminism": "base",
}
"""The side whose stability a mode's category rests on: the side triage's reason bounds (a
base-nondeterminism verdict needs a stable patch, a divergence or patch nondeterminism a stable
base)."""


def weakest_bound(body: Mapping[str, Any], side: str) -> tuple[float, int] | None:
    """The largest non-modal bound above the document's `bound` of a stable `side` that a mode's
    category rests on (`BOUNDED_SIDE`), with its n."""
    bound = float(body.get("bound", 0.05))
    weakest: tuple[float, int] | None = None
    for record in body.get("records") or []:
        for mode in record.get("modes") or []:
            stats = mode.get(side)
            if BOUNDED_SIDE.get(str(mode.get("category"))) != side:
                continue
            if not isinstance(stats, Mapping) or stats.get("distinct") != 1:
                continue
            value = stats.get("nonmodal_bound")
            weaker = weakest is None or (isinstance(value, (int, float)) and value > weakest[0])
            if isinstance(value, (int, float)) and value > bound and weaker:
                weakest = (float(value), int(stats.get("n", 0)))
    return weakest


def caveat(body: Mapping[str, Any]) -> str | None:
    """'the patch's stability is bounded only by 0.78 at α = 0.05 (3 samples), 60 per side would
    bound it by 0.05', naming the side(s) whose stability the verdicts rest on and are weakly
    bounded."""
    alpha, bound = float(body.get("alpha", 0.05)), float(body.get("bound", 0.05))
    weak = [
        f"the {side}'s stability is bounded only by {found[0]:.2f} at α = {alpha:g} "
        f"({found[1]:,} samples)"
        for side in ("base", "patch")
        if (found := weakest_bound(body, side)) is not None
    ]
    if not weak:
        return None
    sentence = " and ".join(weak)
    needed = body.get("samples_for_bound")
    if isinstance(needed, int):
        sentence += f", {needed:,} per side would bound {'it' if len(weak) == 1 else 'them'} by "
        sentence += f"{bound:g}"
    return sentence


def detectable_sentence(body: Mapping[str, Any]) -> str | None:
    """'with 3 patch samples, an output the patch gives at least 41.5 % of the time would have
    been seen with 80 % power': the least the run could have seen, from the record whose
    deciding mode had the fewest patch samples (None for documents without `detectable`)."""
    power = body.get("power")
    weakest: tuple[float, int] | None = None
    for record in body.get("records") or []:
        theta = record.get("detectable")
        if not isinstance(theta, (int, float)) or isinstance(theta, bool):
            continue
        patch = deciding_mode(record).get("patch")
        n = patch.get("n") if isinstance(patch, Mapping) else None
        if isinstance(n, int) and (weakest is None or theta > weakest[0]):
            weakest = (float(theta), n)
    if weakest is None or not isinstance(power, (int, float)):
        return None
    theta, n = weakest
    return (
        f"with {n:,} patch sample{'s' if n != 1 else ''}, an output the patch gives at least "
        f"{100 * theta:.3g} % of the time would have been seen with {100 * power:.3g} % power"
    )


def not_exercised_sentence(body: Mapping[str, Any]) -> str | None:
    """'2 records not-exercised: ...' when a concurrent or loaded batch never overlapped."""
    keys = [
        str(r.get("key"))
        for r in body.get("records") or []
        if "not-exercised" in (r.get("flags") or [])
    ]
    if not keys:
        return None
    return (
        f"{len(keys):,} record{'s' if len(keys) != 1 else ''} not-exercised (a batch the server "
        f"handled one at a time clears nothing): {', '.join(keys[:5])}"
    )


def parity_sentence(body: Mapping[str, Any]) -> str | None:
    """'serially, the patch reproduces the base on 8 of 8 records': batch-1 parity, the headline
    of a follow-up (None for a triage document that does not record it)."""
    summary = body.get("summary") or {}
    agree, measured = summary.get("serial_agree"), summary.get("serial_records")
    if not isinstance(agree, int) or not isinstance(measured, int):
        return None
    if measured == 0:
        return "batch-1 parity not measured (no record has serial samples on both sides)"
    return f"serially, the patch reproduces the base on {agree:,} of {measured:,} records"


def split_branches(body: Mapping[str, Any]) -> dict[str, list[tuple[int, float | None]]]:
    """Per side, (position, margin) of every split branch the triage document reports."""
    found: dict[str, list[tuple[int, float | None]]] = {"base": [], "patch": []}
    for record in body.get("records") or []:
        for mode in record.get("modes") or [] if isinstance(record, Mapping) else []:
            splits = mode.get("splits") if isinstance(mode, Mapping) else None
            for side, tree in (splits or {}).items() if isinstance(splits, Mapping) else []:
                branches = tree.get("branches") if isinstance(tree, Mapping) else None
                for branch in branches or []:
                    position, margin = branch.get("position"), branch.get("margin")
                    if side in found and isinstance(position, int):
                        number = margin if isinstance(margin, int | float) else None
                        found[side].append((position, number))
    return found


def split_sentence(body: Mapping[str, Any]) -> str | None:
    """'all 37 base splits were near-ties (margin < 0.1)', with the patch's wide-margin splits:
    whether the base's outputs split the way reduction order makes them split."""
    branches = split_branches(body)
    near_tie = float(body.get("near_tie", 0.1))
    base = branches["base"]
    if not base and not branches["patch"]:
        return None
    known = [m for _, m in base if m is not None]
    near = sum(1 for m in known if m < near_tie)
    if not base:
        sentence = "the base's outputs did not split"
    elif not known:
        sentence = f"{len(base):,} base splits, margins unknown (no logprobs in the samples)"
    elif near == len(base):
        sentence = f"all {len(base):,} base splits were near-ties (margin < {near_tie:g})"
    else:
        sentence = (
            f"{near:,} of {len(base):,} base splits were near-ties (margin < {near_tie:g}), "
            f"{len(known) - near:,} had wide margins"
        )
    wide = sum(1 for _, m in branches["patch"] if m is not None and m >= near_tie)
    if wide:
        sentence += f"; {wide:,} patch split{'s' if wide != 1 else ''} had wide margins"
    return sentence


def _cross_checks(doc: Document, documents: Sequence[Document]) -> list[str]:
    names = {d.name for d in documents}
    quals = []
    comparison = doc.body.get("comparison")
    if isinstance(comparison, str) and comparison not in names:
        quals.append(
            f"{doc.name} was made from {comparison}, which is not among this report's inputs: "
            "its record counts are not cross-checked"
        )
    responses = [d for d in documents if d.kind is Kind.RESPONSES and d.name == comparison]
    if responses:
        theirs = {str(r.get("key")) for r in responses[0].body.get("records") or []}
        ours = {str(r.get("key")) for r in doc.body.get("records") or []}
        if theirs != ours:
            quals.append(
                f"{doc.name} and {comparison} disagree on the records: "
                f"{len(ours ^ theirs):,} keys in one only"
            )
    for sample_log in doc.body.get("samples") or []:
        if isinstance(sample_log, str) and sample_log not in names:
            quals.append(f"the samples log {sample_log} behind {doc.name} is not among the inputs")
    unknown = doc.body.get("unknown_sample_keys") or []
    if unknown:
        quals.append(f"{len(unknown):,} sampled keys are not records of the comparison")
    return quals


def triage_stage(doc: Document, documents: Sequence[Document]) -> Stage:
    """The follow-up row: the differing records by category, with the weak-bound caveat."""
    body = doc.body
    summary = body.get("summary") or {}
    headline = _differ_sentence(body)
    parity = parity_sentence(body)
    if parity is not None:
        headline = f"{parity}; {headline}"
    quals: list[str] = []
    weak = caveat(body)
    if weak is not None:
        headline += f"; caveat: {weak}"
        quals.append(weak[0].upper() + weak[1:])
    inconclusive = int(summary.get("inconclusive", 0))
    if inconclusive:
        headline += f"; {inconclusive:,} inconclusive"
        quals.append(f"{inconclusive:,} records are inconclusive: more samples would decide them")
    candidates = int(summary.get("regression_candidates", 0))
    if candidates:
        keys = [
            str(r.get("key")) for r in body.get("records") or [] if r.get("regression_candidate")
        ]
        headline += f"; {candidates:,} regression candidates: {', '.join(keys[:5])}"
    splits = split_sentence(body)
    if splits is not None:
        headline += f"; {splits}"
    vacuous = body.get("vacuous") or []
    if vacuous:
        sentence = (
            f"VACUOUS: the control came back identical on the {' and '.join(map(str, vacuous))} "
            "(sampling parameters ignored, or a cache or proxy answering): the run could not "
            "have shown a difference"
        )
        headline += f"; {sentence}"
        quals.append(sentence)
    unexercised = not_exercised_sentence(body)
    if unexercised is not None:
        headline += f"; {unexercised}"
        quals.append(unexercised[0].upper() + unexercised[1:])
    detectable = detectable_sentence(body)
    if detectable is not None:
        headline += f"; {detectable}"
    quals.extend(_cross_checks(doc, documents))
    status = Status.FAIL if fails(body) else Status.PASS
    return Stage(Evidence.FOLLOW_UP, doc.name, status, headline, tuple(quals), dict(summary))

"""The nondeterminism follow-up row, from `k3diff.triage/1`: how many records differ, what each
is, and the caveat a weakly bounded stable side implies."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from k3diff.bundle.aarun import HELD, allowed_line, held_line
from k3diff.bundle.distfacts import distribution_sentence, untested_nondeterminism
from k3diff.bundle.housealpha import HOUSE_ALPHA, rejudge
from k3diff.bundle.houseshift import house_held, house_held_sentence
from k3diff.bundle.inconclusive import held_sentence, inconclusive_sentences
from k3diff.bundle.model import Evidence, Stage, Status
from k3diff.bundle.recordkinds import OUTSIDE_TEXT, TEXT_DIFFERS, other_kinds
from k3diff.bundle.splitfacts import split_sentence
from k3diff.docbody import Kind
from k3diff.documents.read import Document
from k3diff.documents.triage import TriageDocument, TriageRecord
from k3diff.documents.triagemodes import TriageMode, TriageSide
from k3diff.documents.triagerules import unsampled_count
from k3diff.numbers import all_of, named
from k3diff.output import plural
from k3diff.report.serialparity import lacking, reproduces, unsampled_text
from k3diff.responses.document import ResponsesDocument
from k3diff.sample.gaugeadvice import gauge_advice
from k3diff.sample.names import SIDES
from k3diff.sample.runs import unlisted_note

CATEGORY_WORDS = {
    "base-nondeterminism": "base nondeterminism",
    "patch-outside-base": "patch outputs the base never gave",
    "distribution-shift": "distribution shift",
    "patch-nondeterminism": "patch nondeterminism",
    "deterministic-divergence": "deterministic divergence",
    "both-nondeterministic": "nondeterministic on both sides",
    "inconclusive": "inconclusive",
    "match": "matches",
}


def _span(values: Sequence[int]) -> str:
    low, high = min(values), max(values)
    return f"{low:,}" if low == high else f"{low:,}–{high:,}"


def _side_numbers(records: Sequence[TriageRecord], side: str) -> str:
    """'the base gave 35 distinct outputs in 35 samples on each record' (small71: it read
    'base 35 distinct of 35 each'); a span over the records where they differ."""
    pairs = [
        (stats.distinct, stats.n)
        for r in records
        if (mode := r.deciding()) is not None
        for stats in (mode.base if side == "base" else mode.patch,)
    ]
    if not pairs:
        return f"the {side} was not sampled"
    distinct, n = [p[0] for p in pairs], [p[1] for p in pairs]
    each = "" if len(pairs) == 1 else " on each record" if len(set(pairs)) == 1 else " per record"
    outputs = f"output{'s' if max(distinct) != 1 else ''}"
    samples = f"sample{'s' if max(n) != 1 else ''}"
    return f"the {side} gave {_span(distinct)} distinct {outputs} in {_span(n)} {samples}{each}"


def _differ_sentence(triage: TriageDocument) -> str:
    """'text differs on 3 of 10 records, a request failed on 1 (r4): ...; 7 more differ only
    in logprobs/fields': every count recounted from the records, each record in its own kind
    (left68: a failed, not comparable or one-sided record was counted as a text that differs),
    then the categories of all those that differ."""
    differing = [r for r in triage.records if r.comparison_status not in OUTSIDE_TEXT | {"match"}]
    text = sum(1 for r in differing if r.comparison_status in TEXT_DIFFERS)
    outside = sum(1 for r in triage.records if r.comparison_status in OUTSIDE_TEXT)
    sentence = ", ".join(
        [
            f"text differs on {text:,} of {len(triage.records):,} records",
            *other_kinds((r.key, r.comparison_status) for r in differing),
        ]
    )
    if outside:
        sentence += f" ({outside:,} more differ only in logprobs/fields; their texts match)"
    if not differing:
        return sentence
    categories = Counter(r.category for r in differing)
    candidates = Counter(r.category for r in differing if r.regression_candidate)
    if len(categories) == 1:
        category = next(iter(categories))
        side = "base" if category != "patch-nondeterminism" else "patch"
        one, n = len(differing) == 1, candidates[category]
        words = "a match" if one and category == "match" else CATEGORY_WORDS.get(category, category)
        every = "it is" if one else f"{all_of(len(differing))} are"
        if n == len(differing):
            every += " a regression candidate:" if one else " regression candidates:"
        some = f", {plural(n, 'of them a regression candidate', 'of them regression candidates')}"
        tail = some if 0 < n < len(differing) else ""
        return f"{sentence}; {every} {words} ({_side_numbers(differing, side)}){tail}"
    parts = [
        f"{n:,} {CATEGORY_WORDS.get(c, c)}"
        + (f" ({plural(candidates[c], 'regression candidate')})" if candidates[c] else "")
        for c, n in categories.most_common()
    ]
    return f"{sentence}: {', '.join(parts)}"


BOUNDED_SIDE = {
    "base-nondeterminism": "patch",
    "deterministic-divergence": "base",
    "patch-nondeterminism": "base",
}
"""The side whose stability a mode's category rests on: the side triage's reason bounds (a
base-nondeterminism verdict needs a stable patch, a divergence or patch nondeterminism a stable
base)."""


def side_stats(mode: TriageMode, side: str) -> TriageSide:
    """`mode.base` or `mode.patch`, by name."""
    return mode.base if side == "base" else mode.patch


def weakest_bound(triage: TriageDocument, side: str) -> tuple[float, int] | None:
    """The largest non-modal bound above the document's `bound` of a stable `side` that a mode's
    category rests on (`BOUNDED_SIDE`), with its n."""
    weakest: tuple[float, int] | None = None
    for record in triage.records:
        for mode in record.modes:
            stats = side_stats(mode, side)
            if BOUNDED_SIDE.get(mode.category) != side or stats.distinct != 1:
                continue
            value = stats.nonmodal_bound
            if value > triage.bound and (weakest is None or value > weakest[0]):
                weakest = (value, stats.n)
    return weakest


def caveat(triage: TriageDocument) -> str | None:
    """'the patch's stability is bounded only by 0.78 (3 samples: up to 77.6 % of its outputs
    may differ from its usual one), 60 per side would bound it by 0.05, both at α = 0.05' (the
    share said, report67: a bare 0.78 named no quantity), naming the side(s) whose stability the verdicts rest on and are
    weakly bounded, and the α both figures are at (polish63: at --alpha 0.2, '33 per side would
    bound it by 0.05' named no α)."""
    alpha, bound = triage.alpha, triage.bound
    weak = [
        f"the {side}'s stability is bounded only by {found[0]:.2f} ({found[1]:,} samples: up to "
        f"{100 * found[0]:.3g} % of its outputs may differ from its usual one)"
        for side in SIDES
        if (found := weakest_bound(triage, side)) is not None
    ]
    if not weak:
        return None
    sentence = " and ".join(weak)
    needed = triage.samples_for_bound
    if needed is None:
        return f"{sentence} at α = {alpha:g}"
    sentence += f", {needed:,} per side would bound {'it' if len(weak) == 1 else 'them'} by "
    return f"{sentence}{bound:g}, {'both' if len(weak) == 1 else 'all'} at α = {alpha:g}"


def detectable_sentence(triage: TriageDocument) -> str | None:
    """'with 3 patch samples, an output the patch gives at least 41.5 % of the time would have
    been seen with 80 % power': the least the run could have seen, from the record whose
    deciding mode had the fewest patch samples (None for documents without `detectable`)."""
    weakest: tuple[float, int] | None = None
    for record in triage.records:
        theta, mode = record.detectable, record.deciding()
        if theta is None or mode is None:
            continue
        if weakest is None or theta > weakest[0]:
            weakest = (theta, mode.patch.n)
    if weakest is None or triage.power is None:
        return None
    theta, n = weakest
    power = triage.power
    return (
        f"with {n:,} patch sample{'s' if n != 1 else ''}, an output the patch gives at least "
        f"{100 * theta:.3g} % of the time would have been seen with {100 * power:.3g} % power"
    )


def not_exercised_sentence(triage: TriageDocument, brief: bool = False) -> str | None:
    """'2 records not-exercised: ...' when a concurrent or loaded batch never overlapped, and
    the records whose overlap no gauge proved. `brief`: the unproven records' why and fix said
    once, in the follow-up's qualification, and referred to by the headlines that repeat it."""
    names = [r.name for r in triage.records if "not-exercised" in r.flags]
    unproven = [r.name for r in triage.records if "unproven" in r.flags]
    parts = []
    if names:
        parts.append(
            f"{len(names):,} record{'s' if len(names) != 1 else ''} not-exercised (a batch "
            f"answered one at a time clears nothing): {named(names)}"
        )
    if unproven and brief:
        parts.append(
            f"{len(unproven):,} record{'s' if len(unproven) != 1 else ''} unproven (no "
            f"running-requests gauge reading proves their batches: see Qualifications): "
            f"{named(unproven)}"
        )
    elif unproven:
        parts.append(
            f"{len(unproven):,} record{'s' if len(unproven) != 1 else ''} unproven (without "
            "a running-requests gauge reading, neither whole answers nor streams interleaving "
            "at the client show the server overlapped them; they clear nothing, and more "
            "samples would not decide them: only the server's running-requests gauge proves a "
            f"batch: {_gauge_step(triage)}): {named(unproven)}"
        )
    return "; ".join(parts) or None


def _gauge_step(triage: TriageDocument) -> str:
    """What would prove the unproven batches, as triage's own reason says it: nothing where
    the document records a side asked for its gauge that has none (telem68: before, the bundle
    told the reader to add --metrics-url on a server such as `transformers serve`, which
    answers 404 on /metrics); checking the --metrics-url given where it answered 404 or without
    the gauge (left69: it said to add the one given, or that none could help); else the gauge,
    where the server has one (also for a document written before it recorded the probe, which
    does not say)."""
    return gauge_advice(
        "their batched modes",
        triage.gaugeless or (),
        triage.metrics_url_404 or (),
        triage.metrics_url_no_gauge or (),
    ) or (
        "sample again, adding --metrics-url URL to the sample command, where it has one; "
        "--mode serial still checks batch-1 parity"
    )


def parity_sentence(triage: TriageDocument, aa_run: bool = False) -> str | None:
    """'serially, the patch reproduces the base on 8 of 8 records': batch-1 parity, the headline
    of a follow-up (None for a triage document that does not record it); of an A/A run, one
    server's two labels (`serialparity.reproduces`)."""
    agree, measured = triage.summary.get("serial_agree"), triage.summary.get("serial_records")
    if agree is None or measured is None:
        return None
    unsampled = unsampled_count(triage)
    never = ""
    if unsampled:
        said = unsampled_text(unsampled, lacking(triage.records))
        never = "; " + said.partition(", so ")[0]
    if measured == 0:
        return f"batch-1 parity not measured (no record has serial samples on both sides){never}"
    both = " sampled on both sides" if unsampled else ""
    return f"serially, {reproduces(aa_run)} on {agree:,} of {measured:,} records{both}{never}"


def _cross_checks(
    doc: Document, triage: TriageDocument, documents: Sequence[Document]
) -> list[str]:
    names = {d.name for d in documents}
    quals = []
    comparison = triage.comparison
    if comparison is not None and comparison not in names:
        quals.append(
            f"{doc.name} was made from {comparison}, which is not among this report's inputs: "
            "its record counts are not cross-checked"
        )
    responses = [d for d in documents if d.kind is Kind.RESPONSES and d.name == comparison]
    if responses:
        theirs = responses[0].typed(ResponsesDocument).keys
        ours = {r.key for r in triage.records}
        if theirs != ours:
            quals.append(
                f"{doc.name} and {comparison} disagree on the records: "
                f"{len(ours ^ theirs):,} keys in one only"
            )
    for sample_log in triage.samples:
        if sample_log not in names:
            quals.append(f"the samples log {sample_log} behind {doc.name} is not among the inputs")
    if triage.unknown_sample_keys:
        quals.append(
            f"{len(triage.unknown_sample_keys):,} sampled keys are not records of the comparison"
        )
    return quals


def checked_sentence(triage: TriageDocument) -> str | None:
    """What the samples were held to: 'samples checked against each capture's request and
    model', or how many records' could not be (the qualifications say what); None without
    records."""
    if not triage.records:
        return None
    if triage.model_check is not True:
        return "the samples' model not checked (a triage written before the check)"
    unchecked = [r for r in triage.records if "condition-unchecked" in r.flags]
    if not unchecked:
        return "samples checked against each capture's request and model"
    return (
        f"request or model unchecked on {len(unchecked):,} of {len(triage.records):,} records "
        "(see qualifications)"
    )


def triage_stage(doc: Document, documents: Sequence[Document]) -> Stage:
    """The follow-up row: the differing records by category, with the weak-bound caveat."""
    triage = doc.typed(TriageDocument)
    summary = triage.summary
    headline = _differ_sentence(triage)
    aa = doc.one_server is not None  # an A/A run: held unless the reviewer allowed it
    parity = parity_sentence(triage, aa)
    if parity is not None:
        headline = f"{parity}; {headline}"
    quals: list[str] = []
    weak = caveat(triage)
    if weak is not None:
        headline += f"; caveat: {weak}"
        quals.append(weak[0].upper() + weak[1:])
    checked = checked_sentence(triage)
    if checked is not None:
        headline += f"; {checked}"
    if triage.model_check is not True:
        quals.append(
            f"{doc.name} was written before triage held samples to the model each capture "
            "names: that the samples were answered by the captured model was not checked "
            "(run k3diff triage again)"
        )
    undecided = [r for r in triage.records if r.category == "inconclusive"]
    inconclusive = len(undecided)
    if inconclusive:
        headline += f"; {inconclusive:,} inconclusive"
        quals.extend(inconclusive_sentences(triage, undecided))
    regressing = [r.name for r in triage.records if r.regression_candidate]
    if regressing:
        headline += f"; {plural(len(regressing), 'regression candidate')}: {named(regressing)}"
    rejudged = rejudge(doc.name, triage, doc.house_again)
    house = list(dict.fromkeys(r.record for r in rejudged))
    more = list(dict.fromkeys(r.record for r in rejudged if r.candidate))
    if more:
        # alpha61: the house α's reading fails where the document's own passes.
        headline += (
            f"; at the house α = {HOUSE_ALPHA:g}, {plural(len(more), 'regression candidate')} "
            f"more: {named(more)}"
        )
    undecided_there = [name for name in house if name not in more]
    if undecided_there:  # rerun62: triage run again at the house α leaves them undecided
        headline += (
            f"; at the house α = {HOUSE_ALPHA:g}, {plural(len(undecided_there), 'record')} "
            f"undecided, failing: {named(undecided_there)}"
        )
    regressing += [name for name in more if name not in regressing]
    laxly = house_held(triage)  # hunt76: a lax --shift or --power cleared them
    if laxly:
        quals.append(house_held_sentence(triage, laxly).capitalize())
        headline += f"; {house_held_sentence(triage, laxly)}"
    splits = split_sentence(triage)
    if splits is not None:
        headline += f"; {splits}"
    if triage.vacuous:
        sentence = (
            f"VACUOUS: the control came back identical on the {' and '.join(triage.vacuous)} "
            "(sampling parameters ignored, or a cache or proxy answering): the run could not "
            "have shown a difference"
        )
        headline += f"; {sentence}"
        quals.append(sentence)
    unexercised = not_exercised_sentence(triage)
    if unexercised is not None:
        headline += f"; {not_exercised_sentence(triage, brief=True)}"
        quals.append(unexercised[0].upper() + unexercised[1:])
    quals.extend(q[0].upper() + q[1:] for q in triage.qualifications if q)
    quals.extend(unlisted_note(log) for log in triage.unlisted)
    detectable = detectable_sentence(triage)
    if detectable is not None:
        headline += f"; {detectable}"
    distribution = distribution_sentence(triage)
    if distribution is not None:
        headline += f"; {distribution}"
        quals.append(distribution[0].upper() + distribution[1:])
    untested = [r.key for r in triage.records if untested_nondeterminism(r)]
    if untested:
        quals.append(
            f"{len(untested):,} nondeterministic records have no distribution test (they explain "
            f"nothing): {', '.join(untested[:5])}"
        )
    quals.extend(_cross_checks(doc, triage, documents))
    fails = doc.fails or bool(house) or bool(laxly)
    held = held_sentence(triage) if fails else None
    if doc.one_server_held:  # gate74: the reviewer's word, not the document's
        headline += f"; {HELD}"
        fails = True
    elif doc.one_server is not None:
        quals.append(allowed_line(doc))
    status = Status.FAIL if fails else Status.INCONCLUSIVE if inconclusive else Status.PASS
    if aa:  # the server against itself: no patched build passed
        headline = f"A/A run of one server: {headline}"
        status = Status.INFO if status is Status.PASS else status
    return Stage(
        Evidence.FOLLOW_UP,
        doc.name,
        status,
        headline,
        tuple(quals),
        dict(summary),
        records=tuple(regressing),
        held=held,
        one_server=held_line(doc) if doc.one_server_held else None,
    )

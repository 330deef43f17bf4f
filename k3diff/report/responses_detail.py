"""The lines under a record of a responses report: where the texts part and the context there,
the logprobs at the divergence, lm-eval's per-doc changes, failed requests, field and run-state
changes. Every line is escaped (`escape.text`): the values come from the captured responses."""

from __future__ import annotations

import json

from k3diff import escape
from k3diff.numbers import shown
from k3diff.responses.lmeval import LmEvalDiff
from k3diff.responses.results import (
    Divergence,
    FieldChange,
    LogprobGap,
    LogprobPoint,
    RecordDiff,
)


def safe(text: str) -> str:
    """Text on one line that can be written as UTF-8 and cannot drive a terminal (control
    characters, lone surrogates and bidirectional controls shown as escapes)."""
    return escape.text(text)


def quote(text: str) -> str:
    """`text` as a JSON string, escaped like `safe`."""
    return safe(json.dumps(text, ensure_ascii=False))


def _point_text(label: str, point: LogprobPoint | None) -> str:
    if point is None:
        return f"{label} no logprobs there"
    gap = "?" if point.sampled_gap is None else shown(point.sampled_gap)
    best = point.top1[0] if point.top1[0] != point.token else point.top2[0]
    other = "?" if best is None else quote(best)
    return f"{label} {quote(point.token)} gap {gap} (best other {other})"


NEGATIVE_GAP = (
    "the sampled token was not the most likely one: a penalty or sampling applied after the "
    "logprobs"
)


def _gap_text(gap: LogprobGap, near_tie: float) -> str:
    """The logprobs at the divergence; the gap is the sampled token's logprob minus the best
    other token's, on each side."""
    parts = [_point_text("base", gap.base), _point_text("patch", gap.patch)]
    label = ""
    if gap.label == "near-tie" and gap.gap is not None:
        pair = "swapped the top-2 pair: " if gap.swapped_top2 else ""
        size = shown(abs(gap.gap), against=near_tie)
        label = f"; {pair}near-tie flip (|gap| {size} ≤ --near-tie {near_tie:g})"
    elif gap.label == "decisive" and gap.gap is not None:
        size = shown(abs(gap.gap), against=near_tie)
        label = f"; decisive change (|gap| {size} > --near-tie {near_tie:g})"
    if gap.in_top_n:
        label += f"; in-top-{gap.top_n} swap (each side's token is in the other's top {gap.top_n})"
    negative = [
        side
        for side, point in (("base", gap.base), ("patch", gap.patch))
        if point is not None and point.sampled_gap is not None and point.sampled_gap < 0
    ]
    if negative:
        label += f"; negative gap on {' and '.join(negative)}: {NEGATIVE_GAP}"
    return f"logprobs at token {gap.token_index}: " + "; ".join(parts) + label


_INPUT_WORDS = {
    "arguments": "request arguments (a continuation or a generation setting: until, "
    "max_gen_toks, temperature, ...)",
}
"""An input whose name alone does not say what it is, in words."""
UNKNOWN_ARGUMENTS = (
    "lm-eval: the request arguments are missing from one log or both (lm-eval writes them on "
    "every line), so its continuations and generation settings (until, max_gen_toks, "
    "temperature, ...) cannot be compared{also}: not comparable (neither a match nor a "
    "regression)"
)
"""A doc whose requests' arguments one log or both lack (`arguments-unknown`)."""
UNKNOWN_PROMPT = (
    "lm-eval: the prompt is in one log only (the other holds neither the request arguments "
    "nor prompt_hash), so the prompts cannot be compared{also}: not comparable (neither a match "
    "nor a regression)"
)
"""A doc one log says the prompt of and the other not (`prompt-unknown`)."""


def _not_comparable_line(lm: LmEvalDiff) -> str:
    differ = (["prompt"] if lm.prompt_differs else []) + list(lm.inputs_differ)
    for unknown, said in (
        ("prompt-unknown", UNKNOWN_PROMPT),
        ("arguments-unknown", UNKNOWN_ARGUMENTS),
    ):
        if unknown in differ:
            others = [name for name in differ if name != unknown]
            verb = "differ" if len(others) > 1 else "differs"
            also = f"; its {' and '.join(others)} {verb} too" if others else ""
            return said.format(also=also)
    what = " and ".join(_INPUT_WORDS.get(name, name) for name in differ)
    verb = "differ" if len(differ) > 1 or "arguments" in differ else "differs"
    return f"lm-eval: the {what} {verb}: not comparable (neither a match nor a regression)"


def _lm_eval_lines(record: RecordDiff, lm: LmEvalDiff) -> list[str]:
    """What differs of an lm-eval doc; a doc not comparable still says which generations and
    metrics changed (newuser68: a lost `exact_match` and its empty answer were in JSON only)."""
    if lm.not_comparable:
        lines = [_not_comparable_line(lm)]
        if lm.differing_generations:
            shown = ", ".join(str(i) for i in lm.differing_generations[:10])
            sizes = [s.chars for s in (record.base, record.patch) if s is not None]
            one = len(sizes) == 2 and max(lm.generations) == 1
            chars = f" (base {sizes[0]} chars, patch {sizes[1]})" if one else ""
            lines.append(
                f"lm-eval {lm.field}: generation(s) {shown} of {max(lm.generations)} "
                f"differ{chars}; not judged, as the doc is not comparable"
            )
        lines.extend(f"lm-eval metric {m}: {b} → {p}" for m, b, p in lm.metric_changes)
        return lines
    lines = []
    if lm.regrouped is not None:
        base_groups, patch_groups = lm.regrouped
        of = "" if lm.field == "resps" else f" of {lm.field}"
        lines.append(
            f"lm-eval resps_grouping (responses per request{of}): {list(base_groups)} → "
            f"{list(patch_groups)}: the harness scored other requests"
        )
    if lm.differing_generations:
        shown = ", ".join(str(i) for i in lm.differing_generations[:10])
        lines.append(
            f"lm-eval {lm.field}: generation(s) {shown} of {max(lm.generations)} differ "
            f"(the divergence below is in generation {lm.differing_generations[0]})"
        )
    for choice, base_ll, patch_ll in lm.loglikelihood_deltas:
        lines.append(f"lm-eval choice {choice}: loglikelihood {base_ll:g} → {patch_ll:g}")
    for choice, base_greedy, patch_greedy in lm.greedy_flips:
        lines.append(f"lm-eval choice {choice}: is_greedy {base_greedy} → {patch_greedy}")
    for metric, base, patch in lm.metric_changes:
        lines.append(f"lm-eval metric {metric}: {base} → {patch}")
    return lines


def change_text(change: FieldChange) -> str:
    """One field change on one line: `path: base → patch`, `path: added VALUE`, ..."""

    def show(value: object) -> str:
        return safe(json.dumps(value, ensure_ascii=False, sort_keys=True))

    if change.change == "added":
        return f"{change.path}: added {show(change.patch)}"
    if change.change == "removed":
        return f"{change.path}: removed {show(change.base)}"
    return f"{change.path}: {show(change.base)} → {show(change.patch)}"


def _hint_lines(divergence: Divergence) -> list[str]:
    lines = []
    if divergence.codepoints is not None:
        base, patch = (" ".join(points) for points in divergence.codepoints)
        lines.append(f"code points at the divergence: base {base}; patch {patch}")
    for value in divergence.equal_after_normalize:
        why = " (composed vs decomposed characters)" if value == "nfc" else ""
        lines.append(
            f"texts are equal after --normalize {value}{why}: pass it to treat them as equal"
        )
    return lines


def detail_lines(record: RecordDiff, near_tie: float = 0.1) -> list[str]:
    """Every line shown under the record, escaped."""
    lines: list[str] = []
    if record.lm_eval is not None:
        lines.extend(_lm_eval_lines(record, record.lm_eval))
    for label, side in (("base", record.base), ("patch", record.patch)):
        if side is not None and side.error is not None:
            lines.append(f"{label} request failed: {quote(side.error)}")
    divergence = record.divergence
    if divergence is not None:
        where = [f"char {divergence.char_offset}"] if divergence.char_offset is not None else []
        if divergence.token_index is not None:
            where.append(f"token {divergence.token_index}")
        lines.append("first divergence: " + ", ".join(where))
        if divergence.base_context is not None and divergence.patch_context is not None:
            lines.append(f"  base  @{divergence.context_start}: {quote(divergence.base_context)}")
            lines.append(f"  patch @{divergence.context_start}: {quote(divergence.patch_context)}")
        lines.extend(_hint_lines(divergence))
        if divergence.logprobs is not None:
            lines.append(_gap_text(divergence.logprobs, near_tie))
    delta = record.logprobs
    if delta is not None and delta.max_abs_delta > 0:
        verdict = "within" if delta.within_tolerance else "beyond"
        lines.append(
            f"logprobs over the common token prefix ({delta.compared} tokens): max |Δ| "
            f"{shown(delta.max_abs_delta, 6, delta.tolerance)} at token {delta.token_index}, "
            f"{verdict} --logprob-tol "
            f"{delta.tolerance:g}"
        )
    lines.extend(change_text(change) for change in record.field_changes)
    if record.normalized_match:
        lines.append("texts equal only after --normalize")
    lines.extend(record.notes)
    lines.extend(
        "run state (reported, never compared): " + change_text(change)
        for change in record.run_state_changes
    )
    return [safe(line) for line in lines]


def location(record: RecordDiff) -> str:
    """`base-file:line vs patch-file:line` (one side only for an unpaired record)."""
    sides = [s.location for s in (record.base, record.patch) if s is not None]
    return " vs ".join(sides)

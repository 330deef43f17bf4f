"""Render a responses comparison as text, JSON (`k3diff.responses/1`) or Markdown."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import assert_never

from tabulate import tabulate

from k3diff import escape
from k3diff.closeable import Closeable
from k3diff.documents import responses as responses_document
from k3diff.numbers import shown
from k3diff.output import OutputFormat
from k3diff.report.markdown import cell, fenced, inline_code
from k3diff.report.scores import score_markdown, score_text
from k3diff.responses.collect import RecordSpool, WorstFirst
from k3diff.responses.compare import ResponsesOverview
from k3diff.responses.lmeval import LmEvalDiff
from k3diff.responses.results import (
    Divergence,
    FieldChange,
    LogprobGap,
    LogprobPoint,
    RecordDiff,
)

DEFAULT_LIMIT = 50
"""Records shown in the text and Markdown table (JSON always carries all of them)."""
KEY_WIDTH = 40
FIELDS_WIDTH = 40
_HEADERS = ["record", "status", "similarity", "char", "token", "finish (base→patch)", "fields"]


class StreamedReport(Closeable):
    """Collects the diffs of `compare_streaming` for one format, keeping only what it prints.

    JSON carries every record: each is encoded as it arrives into a temporary file and streamed
    back after the header. Text and Markdown show the `limit` worst rows: only those are kept.
    Memory therefore does not grow with the number of records (except for `--limit 0` tables).
    """

    def __init__(self, fmt: OutputFormat, limit: int = DEFAULT_LIMIT) -> None:
        self._fmt = fmt
        self._spool = RecordSpool() if fmt is OutputFormat.JSON else None
        self._rows = WorstFirst(limit)

    def add(self, record: RecordDiff) -> None:
        """Take one record diff, in report order."""
        if self._spool is not None:
            self._spool.add(responses_document.record_line(record))
        else:
            self._rows.add(record)

    def chunks(self, overview: ResponsesOverview) -> Iterator[str]:
        """The report in pieces, once every record has been added."""
        fmt = self._fmt
        if fmt is OutputFormat.JSON:
            assert self._spool is not None
            yield from responses_document.chunks(overview, self._spool.lines())
        elif fmt is OutputFormat.TEXT:
            yield _joined(_text(overview, self._rows.shown(), self._rows.hidden))
        elif fmt is OutputFormat.MARKDOWN:
            yield _joined(_markdown(overview, self._rows.shown(), self._rows.hidden))
        else:
            assert_never(fmt)

    def close(self) -> None:
        """Delete the JSON spool file, if any."""
        if self._spool is not None:
            self._spool.close()


def _joined(sections: list[str]) -> str:
    return "\n\n".join(section.rstrip("\n") for section in sections if section) + "\n"


def _safe(text: str) -> str:
    """Text on one line that can be written as UTF-8 and cannot drive a terminal (control
    characters, lone surrogates and bidirectional controls shown as escapes)."""
    return escape.text(text)


def _quote(text: str) -> str:
    return _safe(json.dumps(text, ensure_ascii=False))


def _clip(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def _key_label(record: RecordDiff, comparison: ResponsesOverview) -> str:
    """The record as the user names it (its label; the JSON keeps the pairing key beside it)."""
    return _clip(_safe(record.name), KEY_WIDTH)


def _finish(record: RecordDiff) -> str:
    if record.base is None or record.patch is None:
        present = record.base or record.patch
        return "" if present is None else present.finish_reason or ""
    base, patch = record.base.finish_reason, record.patch.finish_reason
    return base or "" if base == patch else f"{base or '?'}→{patch or '?'}"


def _row(record: RecordDiff, comparison: ResponsesOverview) -> list[str]:
    divergence = record.divergence
    offset = None if divergence is None else divergence.char_offset
    token = None if divergence is None else divergence.token_index
    fields = ", ".join(sorted({change.path for change in record.field_changes}))
    return [
        _key_label(record, comparison),
        record.status.value,
        "" if record.similarity is None else f"{record.similarity:.4f}",
        "" if offset is None else str(offset),
        "" if token is None else str(token),
        _finish(record),
        _clip(fields, FIELDS_WIDTH),
    ]


def _pairing_line(comparison: ResponsesOverview) -> str:
    normalize = ", ".join(n.value for n in comparison.normalize) or "none"
    volatile = "compared" if comparison.include_volatile else "ignored"
    line = (
        f"paired by {_safe(comparison.pairing_label)}; normalize: {normalize}; similarity: "
        f"rapidfuzz.fuzz.ratio/100; ids, timestamps, fingerprints: {volatile}"
    )
    if comparison.summary.logprobs_compared:
        line += f"; logprobs over the common token prefix, --logprob-tol {comparison.logprob_tol:g}"
    return line


def _count(number: int, noun: str) -> str:
    """`1 record`, `2 records`."""
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"


def _summary_line(comparison: ResponsesOverview) -> str:
    s = comparison.summary
    return (
        f"{_count(s.records, 'record')}: {s.paired} paired, {s.exact_match} exact text match, "
        + (
            f"{s.token_match} of {s.token_compared} token-id match, "
            if s.token_compared
            else "no token ids to compare, "
        )
        + f"{s.only_base} only in base, {s.only_patch} only in patch"
        + (f", {s.normalized_match} matched only after --normalize" if s.normalized_match else "")
        + (f", {_count(s.errors, 'failed request')}" if s.errors else "")
        + (
            f", {s.logprobs_differ} of {s.logprobs_compared} with logprobs beyond "
            f"--logprob-tol {comparison.logprob_tol:g}"
            if s.logprobs_compared
            else ""
        )
        + (
            f", {s.evidence_missing} with evidence on one side only (evidence-missing)"
            if s.evidence_missing
            else ""
        )
    )


def _unpaired_text(comparison: ResponsesOverview) -> str:
    s = comparison.summary
    parts = []
    if s.only_base:
        parts.append(f"{_count(s.only_base, 'record')} only in base")
    if s.only_patch:
        parts.append(
            f"{s.only_patch} only in patch"
            if parts
            else f"{_count(s.only_patch, 'record')} only in patch"
        )
    return " and ".join(parts)


def verdict_text(comparison: ResponsesOverview) -> str:
    """The one-line verdict (the report's last line), naming the comparison's exit code."""
    s = comparison.summary
    exit_note = f"(exit {int(comparison.exit_code)})"
    if s.nothing_paired:
        pairing = _safe(comparison.pairing_label)
        return (
            f"result: NOTHING PAIRED: no record of the {s.only_base} in base and {s.only_patch} "
            f"in patch has a counterpart by {pairing}, so nothing was compared; pair by a field "
            f"both sides share (--key FIELD) or by position (--by-order) {exit_note}"
        )
    parts = []
    if s.differing:
        verb = "differs" if s.differing == 1 else "differ"
        failed = f" ({_count(s.errors, 'failed request')})" if s.errors else ""
        parts.append(f"{s.differing} of {_count(s.paired, 'paired record')} {verb}{failed}")
    else:
        parts.append("no paired record differs")
    if s.not_comparable:
        parts.append(
            f"{s.not_comparable} not comparable (their prompts differ: neither a match nor a "
            "regression)"
        )
    if s.unpaired and s.unpaired_allowed:
        parts.append(f"{_unpaired_text(comparison)}, accepted by --allow-unpaired")
    elif s.unpaired:
        parts.append(
            f"{_unpaired_text(comparison)}: unpaired records are lost evidence "
            "(--allow-unpaired accepts them)"
        )
    if s.scores is not None:
        parts.extend(
            f"{_safe(test.label)} significantly worse (Holm p = {test.p_adjusted:.3g})"
            for test in s.scores.failing
        )
    return f"result: {'; '.join(parts)} {exit_note}"


def _point_text(label: str, point: LogprobPoint | None) -> str:
    if point is None:
        return f"{label} no logprobs there"
    gap = "?" if point.sampled_gap is None else shown(point.sampled_gap)
    best = point.top1[0] if point.top1[0] != point.token else point.top2[0]
    other = "?" if best is None else _quote(best)
    return f"{label} {_quote(point.token)} gap {gap} (best other {other})"


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


def _lm_eval_lines(lm: LmEvalDiff) -> list[str]:
    if lm.prompt_differs:
        return ["lm-eval: the prompts differ: not comparable (neither a match nor a regression)"]
    lines = []
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


def _change_text(change: FieldChange) -> str:
    def show(value: object) -> str:
        return _safe(json.dumps(value, ensure_ascii=False, sort_keys=True))

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


def _detail_lines(record: RecordDiff, near_tie: float = 0.1) -> list[str]:
    lines: list[str] = []
    if record.lm_eval is not None:
        lines.extend(_lm_eval_lines(record.lm_eval))
    for label, side in (("base", record.base), ("patch", record.patch)):
        if side is not None and side.error is not None:
            lines.append(f"{label} request failed: {_quote(side.error)}")
    divergence = record.divergence
    if divergence is not None:
        where = [f"char {divergence.char_offset}"] if divergence.char_offset is not None else []
        if divergence.token_index is not None:
            where.append(f"token {divergence.token_index}")
        lines.append("first divergence: " + ", ".join(where))
        if divergence.base_context is not None and divergence.patch_context is not None:
            lines.append(f"  base  @{divergence.context_start}: {_quote(divergence.base_context)}")
            lines.append(f"  patch @{divergence.context_start}: {_quote(divergence.patch_context)}")
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
    lines.extend(_change_text(change) for change in record.field_changes)
    if record.normalized_match:
        lines.append("texts equal only after --normalize")
    lines.extend(record.notes)
    lines.extend(
        "run state (reported, never compared): " + _change_text(change)
        for change in record.run_state_changes
    )
    return [_safe(line) for line in lines]


def _location(record: RecordDiff) -> str:
    sides = [s.location for s in (record.base, record.patch) if s is not None]
    return " vs ".join(sides)


def _text(comparison: ResponsesOverview, shown: list[RecordDiff], hidden: int) -> list[str]:
    header = "\n".join(
        _safe(line)
        for line in [
            f"base:  {comparison.base.path} ({comparison.base.format}, "
            f"{_count(comparison.base.records, 'record')})",
            f"patch: {comparison.patch.path} ({comparison.patch.format}, "
            f"{_count(comparison.patch.records, 'record')})",
            _pairing_line(comparison),
        ]
    )
    rows = [[_safe(c) for c in _row(r, comparison)] for r in shown]
    table = tabulate(rows, headers=_HEADERS, disable_numparse=True)
    if hidden:
        table += f"\n… {_count(hidden, 'more record')} not shown (use --limit 0, or --format json)"
    details = []
    for record in shown:
        lines = _detail_lines(record, comparison.near_tie)
        if lines:
            title = _safe(
                f"{_key_label(record, comparison)} ({record.status.value}, {_location(record)})"
            )
            details.append("\n".join([title, *("  " + line for line in lines)]))
    return [
        header,
        table,
        "\n\n".join(details),
        _summary_line(comparison),
        _lm_eval_headline(comparison),
        score_text(comparison),
        verdict_text(comparison),
    ]


def _lm_eval_headline(comparison: ResponsesOverview) -> str:
    s = comparison.summary
    lm = s.lm_eval
    lines = []
    if lm is not None:
        lines.append(
            f"lm-eval ({lm.field} compared): {_count(lm.docs, 'doc')}, {lm.docs_differing} "
            f"differ, {lm.docs_not_comparable} not comparable (prompt differs); "
            + (
                "; ".join(
                    f"{f.metric}"
                    + (f" [{_safe(f.filter)}]" if f.filter not in (None, "none") else "")
                    + f": {f.lost} lost, {f.gained} gained"
                    for f in lm.metric_flips
                )
                or "no metric flipped"
            )
        )
    if s.run_state_differs:
        lines.append(
            f"run state differs on {_count(s.run_state_differs, 'record')} (cache hits, "
            "latency, server timing: reported in run_state, never a difference)"
        )
    return "\n".join(lines)


def _cell(text: str) -> str:
    return cell(_safe(text))


def _markdown(comparison: ResponsesOverview, shown: list[RecordDiff], hidden: int) -> list[str]:
    s = comparison.summary
    header = "\n".join(
        [
            "## k3diff responses",
            "",
            f"- base: {inline_code(comparison.base.path)} ({comparison.base.format}, "
            f"{_count(comparison.base.records, 'record')})",
            f"- patch: {inline_code(comparison.patch.path)} ({comparison.patch.format}, "
            f"{_count(comparison.patch.records, 'record')})",
            f"- {_pairing_line(comparison)}",
        ]
    )
    counts = tabulate(
        [
            [
                s.records,
                s.paired,
                s.exact_match,
                f"{s.token_match}/{s.token_compared}" if s.token_compared else "n/a",
                s.only_base,
                s.only_patch,
                s.differing,
            ]
        ],
        headers=[
            "records",
            "paired",
            "exact match",
            "token match",
            "only base",
            "only patch",
            "differing",
        ],
        tablefmt="github",
    )
    rows = [[_cell(c) for c in _row(r, comparison)] for r in shown]
    table = tabulate(rows, headers=_HEADERS, tablefmt="github", disable_numparse=True)
    if hidden:
        table += f"\n\n… {_count(hidden, 'more record')} not shown (use `--limit 0`, or `--format json`)."
    details = ["### Differences"] if any(_detail_lines(r) for r in shown) else []
    for record in shown:
        lines = _detail_lines(record, comparison.near_tie)
        if lines:
            title = f"**{_cell(_key_label(record, comparison))}** — {record.status.value}, "
            details.append(
                title + f"{_cell(_location(record))}\n\n" + fenced("\n".join(lines), "text")
            )
    verdict = f"**{verdict_text(comparison)}**"
    headline = _lm_eval_headline(comparison)
    return [
        header,
        counts,
        table,
        "\n\n".join(details),
        cell(headline) if headline else "",
        score_markdown(comparison),
        verdict,
    ]

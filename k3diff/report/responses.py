"""Render a responses comparison as text, JSON (`k3diff.responses/1`) or Markdown."""

from __future__ import annotations

from collections.abc import Iterator
from typing import assert_never

from k3diff.closeable import Closeable
from k3diff.documents import responses as responses_document
from k3diff.documents.jsondoc import ITEM_SEPARATOR
from k3diff.documents.responses_match import match_line
from k3diff.output import OutputFormat, Piece, Prewritten
from k3diff.report.markdown import cell, fenced, inline_code
from k3diff.report.responses_detail import detail_lines, location, safe
from k3diff.report.scores import (
    gate_markdown,
    gate_text,
    gate_verdict,
    score_markdown,
    score_text,
)
from k3diff.responses.collect import RecordSpool, WorstFirst
from k3diff.responses.compare import ResponsesOverview
from k3diff.responses.matchpair import MatchRow
from k3diff.responses.results import (
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
        self._spool = RecordSpool(ITEM_SEPARATOR) if fmt is OutputFormat.JSON else None
        self._rows = WorstFirst(limit)

    def add(self, record: RecordDiff) -> None:
        """Take one record diff, in report order."""
        if self._spool is not None:
            self._spool.add(responses_document.record_line(record))
        else:
            self._rows.add(record)

    def add_match(self, row: MatchRow) -> None:
        """Take one identical pair (`compare_streaming`'s `on_match`), in report order: its
        JSON item is encoded from the row, its table row made only if it may be shown."""
        if self._spool is not None:
            line = match_line(row)
            if line is None:
                self._spool.add(responses_document.record_line(row.diff()))
            else:
                self._spool.add_text(line)
        else:
            self._rows.add_lazy(row.sort_key, row.diff)

    def chunks(self, overview: ResponsesOverview) -> Iterator[Piece]:
        """The report in pieces, once every record has been added."""
        fmt = self._fmt
        if fmt is OutputFormat.JSON:
            assert self._spool is not None
            # The items, joined in the spool as the list writer would join them, as one piece
            # copied as it is (JSON the encoders wrote, nothing to escape).
            records = () if self._spool.empty else (Prewritten(self._spool.blocks),)
            yield from responses_document.chunks(overview, records)
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


def _clip(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def _key_label(record: RecordDiff, comparison: ResponsesOverview) -> str:
    """The record as the user names it (its label; the JSON keeps the pairing key beside it)."""
    return _clip(safe(record.name), KEY_WIDTH)


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
    unshared = comparison.unshared_note
    label = comparison.pairing_label + (f" ({unshared})" if unshared else "")
    line = (
        f"paired by {safe(label)}; normalize: {normalize}; similarity: "
        f"rapidfuzz.fuzz.ratio/100; ids, timestamps, fingerprints: {volatile}"
    )
    if comparison.ignore_fields:
        line += f"; {ignored_note(comparison)}"
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
    if s.nothing_paired and comparison.unshared_field is not None:
        return (
            f"result: NOTHING PAIRED: {safe(comparison.unshared_note)}, and the "
            f"{safe(comparison.pairing_label)} the default rule fell back to paired none of the "
            f"{s.only_base} in base and {s.only_patch} in patch either, so nothing was compared; "
            "pair by a field whose values both sides share (--key FIELD) or by position "
            f"(--by-order) {exit_note}"
        )
    if s.nothing_paired:
        pairing = safe(comparison.pairing_label)
        return (
            f"result: NOTHING PAIRED: no record of the {s.only_base} in base and {s.only_patch} "
            f"in patch has a counterpart by {pairing}, so nothing was compared; pair by a field "
            f"both sides share (--key FIELD) or by position (--by-order) {exit_note}"
        )
    parts = []
    gate = comparison.score_gate
    if s.differing:
        verb = "differs" if s.differing == 1 else "differ"
        failed = f" ({_count(s.errors, 'failed request')})" if s.errors else ""
        parts.append(f"{s.differing} of {_count(s.paired, 'paired record')} {verb}{failed}")
        if gate is not None:
            parts[-1] += " (reported; under --fail-on score-drop only the scores decide)"
    else:
        parts.append("no paired record differs")
    if s.not_comparable:
        parts.append(
            f"{s.not_comparable} not comparable (their prompts or eval inputs differ: neither a match nor a "
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
            f"{safe(test.label)} significantly worse (Holm p = {test.p_adjusted:.3g})"
            for test in s.scores.failing
        )
    if gate is not None:
        parts.append(gate_verdict(gate))
    if comparison.beams is not None:
        parts.append(comparison.beams.sentence())
    if comparison.sampled is not None:
        parts.append(comparison.sampled.sentence())
    if comparison.ignore_fields:
        parts.append(ignored_note(comparison))
    return f"result: {'; '.join(parts)} {exit_note}"


def ignored_note(comparison: ResponsesOverview) -> str:
    """'fields ignored (--ignore-field model): not compared': said wherever a verdict is."""
    paths = " ".join(f"--ignore-field {path}" for path in comparison.ignore_fields)
    return f"fields ignored ({paths}): not compared"


def _text(comparison: ResponsesOverview, shown: list[RecordDiff], hidden: int) -> list[str]:
    from tabulate import tabulate  # not needed (nor imported) for JSON reports

    header = "\n".join(
        safe(line)
        for line in [
            f"base:  {comparison.base.path} ({comparison.base.format}, "
            f"{_count(comparison.base.records, 'record')})",
            f"patch: {comparison.patch.path} ({comparison.patch.format}, "
            f"{_count(comparison.patch.records, 'record')})",
            _pairing_line(comparison),
        ]
    )
    rows = [[safe(c) for c in _row(r, comparison)] for r in shown]
    table = tabulate(rows, headers=_HEADERS, disable_numparse=True)
    if hidden:
        table += f"\n… {_count(hidden, 'more record')} not shown (use --limit 0, or --format json)"
    details = []
    for record in shown:
        lines = detail_lines(record, comparison.near_tie)
        if lines:
            title = safe(
                f"{_key_label(record, comparison)} ({record.status.value}, {location(record)})"
            )
            details.append("\n".join([title, *("  " + line for line in lines)]))
    return [
        header,
        table,
        "\n\n".join(details),
        _summary_line(comparison),
        _lm_eval_headline(comparison),
        score_text(comparison),
        gate_text(comparison),
        verdict_text(comparison),
    ]


def _lm_eval_headline(comparison: ResponsesOverview) -> str:
    s = comparison.summary
    lm = s.lm_eval
    lines = []
    if lm is not None:
        lines.append(
            f"lm-eval ({lm.field} compared): {_count(lm.docs, 'doc')}, {lm.docs_differing} "
            f"differ, {lm.docs_not_comparable} not comparable (prompt or inputs differ); "
            + (
                "; ".join(
                    f"{f.metric}"
                    + (f" [{safe(f.filter)}]" if f.filter not in (None, "none") else "")
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
    return cell(safe(text))


def _markdown(comparison: ResponsesOverview, shown: list[RecordDiff], hidden: int) -> list[str]:
    from tabulate import tabulate  # not needed (nor imported) for JSON reports

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
    details = ["### Differences"] if any(detail_lines(r) for r in shown) else []
    for record in shown:
        lines = detail_lines(record, comparison.near_tie)
        if lines:
            title = f"**{_cell(_key_label(record, comparison))}** — {record.status.value}, "
            details.append(
                title + f"{_cell(location(record))}\n\n" + fenced("\n".join(lines), "text")
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
        gate_markdown(comparison),
        verdict,
    ]

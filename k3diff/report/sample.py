"""Render the end-of-run summary of `k3diff sample` as text, JSON (`k3diff.sample/1`, written
by `documents.sample`) or Markdown."""

from __future__ import annotations

from typing import Any, assert_never

from tabulate import tabulate

from k3diff import escape
from k3diff.documents import sample as sample_document
from k3diff.exitcodes import ExitCode
from k3diff.numbers import all_of
from k3diff.output import OutputFormat
from k3diff.report.clauses import statement_lines
from k3diff.report.markdown import cell, escape_inline
from k3diff.report.sampleconditions import (
    control_text,
    models_text,
    out_of_step_text,
    side_fields_text,
)
from k3diff.report.sampledfigure import SIZE, sampled_text
from k3diff.report.sampleresult import result_line
from k3diff.sample.gaugeadvice import header_advice
from k3diff.sample.model import RecordStats, SampleResult
from k3diff.sample.names import Mode

KEY_WIDTH = 40
_HEADERS = ["record", "side", "mode", "n", "errors", "distinct", "most common share"]


def render(result: SampleResult, fmt: OutputFormat) -> str:
    """The summary in the chosen format."""
    if fmt is OutputFormat.JSON:
        return sample_document.write(result)
    if fmt is OutputFormat.TEXT:
        return _text(result)
    if fmt is OutputFormat.MARKDOWN:
        return _markdown(result)
    assert_never(fmt)


def _rows(result: SampleResult) -> list[list[Any]]:
    return [
        [
            _short(r.name),
            r.side,
            r.mode,
            r.n,
            r.errors,
            r.distinct,
            "-" if r.modal_share is None else f"{r.modal_share:.2f}",
        ]
        for r in result.records
    ]


def _short(key: str) -> str:
    return key if len(key) <= KEY_WIDTH else key[: KEY_WIDTH - 1] + "…"


def _headline(result: SampleResult) -> str:
    """The summary's verdict and what stands behind it, on one line (Markdown)."""
    return "".join(text for text, _ in _headline_parts(result))


def _headline_parts(result: SampleResult) -> list[tuple[str, bool]]:
    """The headline's verdict clause, then its parts (each '' or beginning with '; '), each
    with whether it is one clause in text (the gauge's sides read together)."""
    if result.exit_code is ExitCode.OK:
        verdict = _unproven_ok(result) or "OK"
    elif result.failed or result.taken < result.planned:
        verdict = "FAILED"
    else:  # every sample taken: triage refuses them, or the control could show nothing
        verdict = "MIXED MODELS" if result.mixed_models else "VACUOUS"
    first = (
        f"{verdict}: {result.taken} of {result.planned} planned samples taken "
        f"({result.out}/samples.jsonl, {result.taken_now} taken now), "
        f"{_failed_text(result)}{_error_text(result)}, "
        f"{result.unstable} of {len(result.records)} rows (one per record, side and mode) gave "
        "more than one distinct output"
    )
    return [
        (first, True),
        (_overlap_text(result), False),
        (_load_text(result), False),
        (_gauge_text(result), True),
        (control_text(result), False),
        (out_of_step_text(result), False),
        (models_text(result), False),
        (side_fields_text(result), False),
        (sampled_text(result), False),
    ]


def _headline_lines(result: SampleResult) -> str:
    """The headline for a terminal: the verdict clause, then every other clause on a line of
    its own, indented, wrapped at 100 columns (`k3diff.report.clauses`; one line of ~700
    characters otherwise); the sizing hint's command on a line of its own, to paste."""
    (first, _), *parts = ((escape.text(text), whole) for text, whole in _headline_parts(result))
    return statement_lines(first, parts, SIZE)


def _failed_text(result: SampleResult) -> str:
    """'none failed', 'all 6 failed' or '2 of them failed': how many of the samples taken
    failed (a failed sample is in the log with its error, its request retried in vain)."""
    if result.failed == 0:
        return "none failed"
    if result.failed == result.taken:
        return f"{all_of(result.failed)} failed"
    return (
        f"{result.failed} of them failed"
        if result.failed < result.taken
        else (f"{result.failed} failed")
    )


def _unproven_ok(result: SampleResult) -> str:
    """'CONCURRENCY NOT PROVEN (0 of 4 batches exercised; 4 without a server gauge reading)' for
    a run that took every sample but whose batches were not all proven to overlap ('' when they
    were): exit 0 says the samples were taken, not that the batched modes were exercised, and
    the status says no "OK" beside it."""
    batched = [r for r in result.records if r.batches]
    held = sum(r.one_at_a_time for r in batched)
    unproven = sum(r.unproven for r in batched)
    load_failed = sum(r.load_failed for r in batched)
    load_idle = sum(r.load_idle for r in batched)
    if not held and not unproven:
        return ""
    why = [f"{held} answered one at a time"] if held else []
    if unproven > load_failed + load_idle:
        why.append(f"{unproven - load_failed - load_idle} without a server gauge reading")
    if load_failed:
        why.append(f"{load_failed} whose background load failed")
    if load_idle:
        why.append(f"{load_idle} during which no background request ended")
    return f"CONCURRENCY NOT PROVEN ({_exercised(batched)}; {', '.join(why)})"


def _exercised(batched: list[RecordStats]) -> str:
    """'1 of 32 batches and 0 of 128 loaded targets exercised': a concurrent (sweep, needle,
    mixed) batch holds several requests, a loaded target is one request under load; each is
    counted in its own unit."""
    parts = []
    for loaded, unit in ((False, "batch"), (True, "loaded target")):
        rows = [r for r in batched if (r.mode == Mode.LOADED.value) is loaded]
        total = sum(r.batches for r in rows)
        if total:
            done = total - sum(r.one_at_a_time + r.unproven for r in rows)
            plural = ("es" if unit == "batch" else "s") if total != 1 else ""
            parts.append(f"{done} of {total} {unit}{plural}")
    return f"{' and '.join(parts)} exercised"


def _error_text(result: SampleResult) -> str:
    """' (most common error, 64 of them: ...)' when samples failed (one line, cut short)."""
    if result.common_error is None:
        return ""
    error, count = result.common_error
    return f" (most common error, {count} of them: {_cut(error)})"


def _cut(error: str) -> str:
    """An error on one line, cut to ERROR_CHARS."""
    flat = " ".join(error.split())
    return flat if len(flat) <= ERROR_CHARS else flat[: ERROR_CHARS - 1] + "…"


ERROR_CHARS = 200
"""The most common error's characters the summary line shows."""


def _overlap_text(result: SampleResult) -> str:
    """'; overlap: 3 of 8 batches exercised (gauge 0, token windows 8, unproven 0); not-exercised
    in 5 ...': the batches (and loaded targets) of every record, side and mode, and what decided
    each."""
    batched = [r for r in result.records if r.batches]
    if not batched:
        return ""
    held = sum(r.one_at_a_time for r in batched)
    unproven = sum(r.unproven for r in batched)
    gauge = sum(r.by_gauge for r in batched)
    windows = sum(r.by_token_windows for r in batched)
    text = (
        f"; overlap: {_exercised(batched)} (decided by gauge {gauge}, token windows {windows}, "
        f"unproven {unproven})"
    )
    if held:
        by_gauge = sum(r.server_one_at_a_time for r in batched) == held
        text += (
            f"; not-exercised: the server handled {held} of them one at a time"
            if by_gauge
            else f"; not-exercised: {held} of them answered one at a time"
        )
    load_failed = sum(r.load_failed for r in batched)
    if load_failed:
        text += (
            f"; unproven: {load_failed} loaded target{'s' if load_failed != 1 else ''} whose "
            "background requests all failed while in flight (not the load the run claims)"
        )
    load_idle = sum(r.load_idle for r in batched)
    if load_idle:
        text += _idle_text(load_idle)
    if unproven > load_failed + load_idle:
        text += (
            f"; unproven: {_ungauged(batched)} without a "
            "running-requests gauge reading (whole answers, or streams that interleaved at the "
            "client: neither shows the server worked on them together; only the server's "
            "running-requests gauge proves a batch (docs/evidence-conditions.md): "
            f"{_gauge_step(result)})"
        )
    return text


def _gauge_step(result: SampleResult) -> str:
    """Give --metrics-url; where a side's server was asked and has no gauge, that none can
    prove its batches (`transformers serve`: left67b); where one given answered 404, check it."""
    return (
        header_advice(result.metrics or {}, "its batched modes")
        or "give --metrics-url where the server has one; --mode serial still checks batch-1 parity"
    )


def _ungauged(batched: list[RecordStats]) -> str:
    """'3 batches and 2 loaded targets': the unproven batches and loaded targets that no
    gauge reading decided (not those whose load failed or never ended), each counted in its own
    unit (they said "5 batches" before)."""
    parts = []
    for loaded, unit in ((False, "batch"), (True, "loaded target")):
        rows = [r for r in batched if (r.mode == Mode.LOADED.value) is loaded]
        count = sum(r.unproven - r.load_failed - r.load_idle for r in rows)
        if count:
            plural = ("es" if unit == "batch" else "s") if count != 1 else ""
            parts.append(f"{count} {unit}{plural}")
    return " and ".join(parts)


def _idle_text(count: int) -> str:
    """'; unproven: 2 loaded targets during which no background request ended ...'."""
    them = "them" if count != 1 else "it"
    return (
        f"; unproven: {count} loaded target{'s' if count != 1 else ''} during which no "
        f"background request ended (load_ended 0): the load never overlapped {them} as far as "
        "the client can tell (the server answered each target before any background request "
        "ended, or there was no load: --concurrency 1), and no running-requests gauge reading "
        f"shows the server ran {them} with other requests"
    )


def _load_text(result: SampleResult) -> str:
    """'; background load: 12 of 12 background requests ... failed; most common error: ...'
    when background requests of loaded mode failed (the load the run claims did not all run)."""
    load = result.load
    if load is None or not load.failed:
        return ""
    error = "" if load.common_error is None else f"; most common error: {_cut(load.common_error)}"
    return (
        f"; background load: {load.failed} of {load.requests} background requests that ended "
        f"while a loaded target was in flight failed{error}"
    )


def gauge_phrase(side: str, running: int | None, metrics: dict[str, Any] | None) -> str:
    """'gauge 4 (vllm:num_requests_running)', 'gauge: not exposed (HTTP 404)' or 'gauge: not
    read ...' for one side's batches (`metrics`: the log header's, None when not read)."""
    if metrics is None:
        return "gauge: not read"  # --metrics-url off, or a log from before the gauge
    entry = metrics.get(side)
    if not isinstance(entry, dict) or entry.get("running") is None:
        problem = entry.get("problem") if isinstance(entry, dict) else None
        return "gauge: not exposed" + (f" ({problem})" if problem else "")
    if running is None:
        return "gauge: not read while in flight"
    return f"gauge {running} ({entry['running']})"


def _gauge_text(result: SampleResult) -> str:
    """'; most in flight together: base 4 proven, gauge 4 (vllm:num_requests_running); patch
    ...': per side, the most requests proven in flight together in a batch (by the gauge; 1
    where streams never interleaved; 'none' where every batch was unproven), next to the
    largest reading of the server's own running-requests gauge."""
    parts = []
    for side in dict.fromkeys(r.side for r in result.records):
        batched = [r for r in result.records if r.side == side and r.batches]
        if not batched:
            continue
        found = [r.in_flight for r in batched if r.in_flight is not None]
        proven = max(found) if found else "none"
        readings = [r.server_running for r in batched if r.server_running is not None]
        server = max(readings, default=None)
        parts.append(f"{side} {proven} proven, {gauge_phrase(side, server, result.metrics)}")
    return f"; most in flight together: {'; '.join(parts)}" if parts else ""


def _text(result: SampleResult) -> str:
    rows = [[escape.text(str(value)) for value in row] for row in _rows(result)]
    table = tabulate(rows, headers=_HEADERS, tablefmt="simple", disable_numparse=True)
    last = escape.text(result_line(result, bool(_unproven_ok(result))))
    return f"{table}\n\n{_headline_lines(result)}\n{last}\n"


def _markdown(result: SampleResult) -> str:
    rows = [[cell(str(value)) for value in row] for row in _rows(result)]
    table = tabulate(rows, headers=_HEADERS, tablefmt="github", disable_numparse=True)
    last = escape_inline(result_line(result, bool(_unproven_ok(result))))
    return f"# k3diff sample\n\n{table}\n\n{escape_inline(_headline(result))}\n\n{last}\n"

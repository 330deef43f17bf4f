"""Render a triage as text, Markdown (the reviewer's argument) or JSON (`k3diff.triage/1`,
written by `documents.triage`)."""

from __future__ import annotations

from typing import assert_never

from tabulate import tabulate

from k3diff import escape
from k3diff.documents import triage as triage_document
from k3diff.output import OutputFormat
from k3diff.report.markdown import cell, escape_inline, inline_code
from k3diff.report.serialparity import lacking, parity_line, unsampled_text
from k3diff.report.triage_lines import (
    also_held,
    capture_line,
    capture_text,
    caveat_text,
    gauge_lines,
    held_text,
    held_why,
    same_server_text,
    shared_caveats,
    shows_captures,
    split_text,
    would_have_cleared,
)
from k3diff.report.triagelevel import run_level_line
from k3diff.report.triagesteps import next_step_lines
from k3diff.sample.runs import unlisted_note
from k3diff.triage.flags import flag_label
from k3diff.triage.model import (
    Category,
    ModeVerdict,
    RecordVerdict,
    SideStats,
    TriageResult,
)
from k3diff.triage.sameserverwhy import briefly

_HEADERS = [
    "key",
    "category",
    "mode",
    "base n/distinct",
    "patch n/distinct",
    "patch bound",
    "Fisher p adj",
    "novelty p adj",
    "more per side",
    "flags",
]


def render(result: TriageResult, fmt: OutputFormat) -> str:
    """The triage in the chosen format."""
    if fmt is OutputFormat.JSON:
        return triage_document.write(result)
    if fmt is OutputFormat.TEXT:
        return _text(result)
    if fmt is OutputFormat.MARKDOWN:
        return _markdown(result)
    assert_never(fmt)


def _pair(side: SideStats) -> str:
    failed = f" ({side.errors}✗)" if side.errors else ""
    return f"{side.n}/{side.distinct}{failed}"


def _number(value: float | None) -> str:
    return "" if value is None else f"{value:.3g}"


def _more(more_samples: int | None) -> str:
    """The "more" cell: "—" where more samples cannot decide it (both sides proven unstable, or
    a record samples cannot help), never a 0 that reads "enough"."""
    return "—" if more_samples is None else str(more_samples)


def _rows(record: RecordVerdict) -> list[list[str]]:
    """The record's rows: one where it has one mode or none (the record's flags on it); with
    several, a `record` row first (its category, more samples and every flag it carries, its
    own and its modes'), then a row per mode with that mode's numbers and flags only."""
    flags = _flags(record)
    label = record.category.value + (" ⚑" if record.regression_candidate else "")
    more = _more(record.more_samples)
    if not record.modes:
        return [[record.name, label, "—", "", "", "", "", "", more, flags]]
    if len(record.modes) == 1:
        # The record's more samples, as JSON's `more_samples` says (triage69: a not-comparable
        # record, null there, showed its mode's 57).
        (mode,) = record.modes
        return [[record.name, label, mode.mode, *_numbers(mode)[:-1], more, flags]]
    rows = [[record.name, label, "record", "", "", "", "", "", more, flags]]
    for mode in record.modes:
        own = ", ".join(flag.value for flag in mode.flags)
        rows.append(["", "", f"{mode.mode}: {mode.category.value}", *_numbers(mode), own])
    return rows


def _flags(record: RecordVerdict) -> str:
    """The record's flags, `capture-not-reproduced` naming each side's count (`flag_label`)."""
    captures = {c.side: [(m.reproduced, m.n) for m in c.modes] for c in record.captures}
    return ", ".join(flag_label(flag, captures) for flag in record.flags)


def _numbers(mode: ModeVerdict) -> list[str]:
    """A mode's cells from `base n/distinct` to `more`."""
    return [
        _pair(mode.base),
        _pair(mode.patch),
        f"{mode.patch.nonmodal_bound:.2f}",
        _number(mode.p_adjusted),
        _number(mode.novelty_p_adjusted),
        _more(mode.more_samples),
    ]


def _settings_line(result: TriageResult) -> str:
    s = result.settings
    needed = result.samples_for_bound
    captures = (
        "the captures are evidence of their own, counted in no mode's n"
        if s.capture_mode is None
        else f"each side's capture counts as one {s.capture_mode} observation (--capture-mode)"
    )
    line = (
        f"α = {s.alpha:g}; bound {s.bound:g} ({needed:,} agreeing observations per side); near tie: "
        f"|logprob gap| < {s.near_tie:g}; {s.correction.value} correction over {result.tests} "
        f"Fisher, {result.novelty_tests} novelty and {result.distribution_tests} distribution "
        f"tests (each kind its own family); {captures}"
    )
    if any(mode.sampled for record in result.records for mode in record.modes):
        line += (
            f"; --shift {100 * s.shift:.3g} %: a sampled mode whose test did not reject clears "
            f"only where it had {100 * s.power:.3g} % power against {100 * s.shift:.3g} % of "
            "its answers moved to one new answer (else no-power)"
        )
    return line


def _counts_line(result: TriageResult) -> str:
    parts = [f"{result.count(c)} {c.value}" for c in Category if result.count(c)]
    count = len(result.records)
    return f"{count:,} record{'s' if count != 1 else ''}: " + (", ".join(parts) or "none")


def _loud_lines(result: TriageResult) -> list[str]:
    lines = []
    inconclusive = result.count(Category.INCONCLUSIVE)
    if inconclusive:
        held = result.held_records
        why = held_why(result)
        if held == inconclusive:
            how = f"{'it fails' if held == 1 else 'all of them fail'} the run ({why})"
        elif held:
            rest = inconclusive - held
            how = (
                f"{held} of them {'fails' if held == 1 else 'fail'} the run ({why}), the other "
                f"{rest} {'does' if rest == 1 else 'do'} not but "
                f"{'is' if rest == 1 else 'are'} not cleared"
            )
        else:
            how = (
                "it does not fail the run but is not cleared"
                if inconclusive == 1
                else "they do not fail the run but are not cleared"
            )
        lines.append(
            f"INCONCLUSIVE: {inconclusive:,} of {len(result.records):,} records could not "
            f"be decided (see reasons); {how}"
        )
    if len({run.run_id or run.log for run in result.runs}) > 1:
        lines.append(
            "pooled runs (--pool-runs): "
            + "; ".join(f"{run.log} (run {run.run_id or 'without id'})" for run in result.runs)
        )
    if result.unknown_sample_keys:
        lines.append(
            f"ignored: samples for {len(result.unknown_sample_keys)} keys not in the "
            f"comparison (e.g. {result.unknown_sample_keys[0]!r})"
        )
    lines.extend(f"{_prefix(result, said)}: {said}" for said in result.qualifications)
    lines.extend(f"unchecked: {unlisted_note(run.log)}" for run in result.runs if run.asked is None)
    return lines


def _prefix(result: TriageResult, qualification: str) -> str:
    """What a qualification is: one server as both sides was checked (held, or allowed as
    an A/A run), not unchecked as the rest."""
    if qualification not in result.one_server_notes:
        return "unchecked"
    return "one server" if result.same_server else "allowed (--allow-same-server)"


def _unsampled_verdict(result: TriageResult) -> str | None:
    """The verdict's words where differing records were never sampled: never 'no regression
    candidate' (None: none was)."""
    unsampled = result.unsampled_records
    if not unsampled:
        return None
    said = unsampled_text(unsampled, lacking(result.records))
    line = f"{said}: {'they fail' if unsampled != 1 else 'it fails'} the run"
    line += also_held(result.held_records - unsampled)
    if result.failing_inconclusive:
        line += f"; {result.failing_inconclusive} inconclusive (--fail-inconclusive)"
    return line


def verdict_text(result: TriageResult) -> str:
    """The one-line verdict (the text report's last line), naming the result's exit code."""
    code = int(result.exit_code)
    if result.vacuous_records:
        return (
            f"result: VACUOUS: the control came back identical on the {' and '.join(result.vacuous)}"
            f"; {would_have_cleared(result.vacuous_records)} (exit {code})"
        )
    if (same := same_server_text(result)) is not None:
        return f"result: {same} (exit {code}; --allow-same-server for an A/A calibration run)"
    count = result.regression_candidates
    undecided = result.failing_inconclusive
    unsampled = _unsampled_verdict(result)
    if count:
        line = f"result: {count} regression candidate{'s' if count > 1 else ''}"
        if unsampled is not None:
            return f"{line}; {unsampled} (exit {code})"
        if undecided:
            line += f", {undecided} inconclusive (--fail-inconclusive)"
        return line + f" (exit {code})"
    if unsampled is not None:
        return f"result: {unsampled} (exit {code})"
    if undecided:
        return f"result: {undecided} inconclusive, failing under --fail-inconclusive (exit {code})"
    if result.held_records:
        return f"result: {held_text(result)} (exit {code})"
    return f"result: no regression candidate (exit {code})"


def _text(result: TriageResult) -> str:
    rows = [[escape.text(c) for c in row] for record in result.records for row in _rows(record)]
    explained = [r for r in result.records if r.category is not Category.MATCH]
    said, caveats = shared_caveats(explained)
    said = {key: briefly(reason, result.same_server) for key, reason in said.items()}
    reasons = [escape.text(f"{r.name}: {r.category.value}: {said[r.key]}") for r in explained]
    reasons += [caveat_text(escape.text(names), escape.text(text)) for names, text in caveats]
    captures = [capture_line(r) for r in result.records if shows_captures(r)]
    splits = [
        f"{r.name}: split {split_text(tree)}"
        for r in result.records
        for mode in r.modes
        for tree in mode.splits
    ]
    step = next_step_lines(result)
    lines = [parity_line(result), _counts_line(result), *_loud_lines(result), *step]
    lines.append(verdict_text(result))
    gauges = gauge_lines(result)
    sections = [
        f"comparison: {escape.text(result.comparison)}\n"
        f"samples: {escape.text(', '.join(result.samples))}\n"
        + _settings_line(result)
        + f"\n{run_level_line(result)}",
        tabulate(rows, headers=_HEADERS, disable_numparse=True),
        "\n".join(reasons),
        "\n".join(escape.text(line) for line in captures),
        "\n".join(escape.text(line) for line in splits),
        "\n".join(escape.text(line) for line in gauges),
        "\n".join(escape.text(line) for line in lines),
    ]
    return "\n\n".join(section for section in sections if section) + "\n"


def _argument(record: RecordVerdict, reason_said: str | None = None) -> str:
    """One bullet of the reviewer's argument."""
    where = f" ({record.deciding_mode})" if record.deciding_mode else ""
    flags = f" Flags: {_flags(record)}." if record.flags else ""
    others = [
        f"{m.mode}: {m.category.value}" for m in record.modes if m.mode != record.deciding_mode
    ]
    also = f" Other modes: {'; '.join(others)}." if others else ""
    said = record.reason if reason_said is None else reason_said
    reason = said.split(": ", 1)[1] if record.deciding_mode else said
    captures = "".join(
        f" {capture_text(c)[0].upper()}{capture_text(c)[1:]}." for c in record.captures
    )
    captures += "".join(f" Split: {split_text(t)}." for m in record.modes for t in m.splits)
    return (
        f"- **{inline_code(record.name)}** — {record.category.value}{where}: "
        f"{escape_inline(reason)}.{flags}{also}{escape_inline(captures)}"
    )


def _markdown_verdict(result: TriageResult) -> str:
    """The Markdown report's verdict sentence, naming the result's exit code."""
    code = int(result.exit_code)
    count = result.regression_candidates
    unsampled = _unsampled_verdict(result)
    if unsampled is not None and not result.vacuous_records:
        found = f"**{count} regression candidate{'s' if count != 1 else ''}**; " if count else ""
        return f"{found}**{escape_inline(unsampled[0].upper() + unsampled[1:])}** (exit {code})."
    if result.vacuous_records:
        vacuous = result.vacuous_records
        return (
            f"**VACUOUS**: the control came back identical on the {' and '.join(result.vacuous)}; "
            f"{would_have_cleared(vacuous)} (exit {code})."
        )
    if (same := same_server_text(result)) is not None:
        return f"**{escape_inline(same)}** (exit {code}; `--allow-same-server` for an A/A run)."
    if result.failing_inconclusive:
        rest = (
            f"**{count} regression candidate{'s' if count != 1 else ''}** (exit {code})."
            if count
            else "**No regression candidate on this evidence**."
        )
        return (
            f"**{result.failing_inconclusive} inconclusive**, failing under "
            f"`--fail-inconclusive` (exit {code}). {rest}"
        )
    if count:
        return f"**{count} regression candidate{'s' if count != 1 else ''}** (exit {code})."
    if result.held_records:
        return f"**{escape_inline(held_text(result))}** (exit {code})."
    return f"**No regression candidate on this evidence** (exit {code})."


def _markdown(result: TriageResult) -> str:
    bottom = _markdown_verdict(result)
    rows = [[cell(text) for text in row] for r in result.records for row in _rows(r)]
    explained = [r for r in result.records if r.category is not Category.MATCH]
    said, caveats = shared_caveats(explained)
    said = {key: briefly(reason, result.same_server) for key, reason in said.items()}
    arguments = [_argument(r, said[r.key]) for r in explained]
    arguments += [
        f"- Caveat for {escape_inline(names)}: {escape_inline(text)}." for names, text in caveats
    ]
    sections = [
        "## k3diff triage",
        f"**{escape_inline(parity_line(result)[0].upper() + parity_line(result)[1:])}.**",
        f"- comparison: {inline_code(result.comparison)}\n- samples: "
        + ", ".join(inline_code(path) for path in result.samples)
        + f"\n- {_settings_line(result)}\n- {run_level_line(result)}",
        bottom
        + " "
        + _counts_line(result)
        + "."
        + "".join(f"\n\n**{escape_inline(line)}**" for line in _loud_lines(result))
        + "".join(f"\n\n{escape_inline(line)}" for line in next_step_lines(result)),
        "\n".join(arguments),
        "\n".join(f"- {escape_inline(line)}" for line in gauge_lines(result)),
        tabulate(rows, headers=_HEADERS, tablefmt="github", disable_numparse=True),
    ]
    return "\n\n".join(section for section in sections if section) + "\n"

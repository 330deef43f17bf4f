"""Render a run's telemetry as text, Markdown or JSON (`k3diff.telemetry/1`, written by
`documents.telemetry`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import assert_never

from tabulate import tabulate

from k3diff import escape
from k3diff.counts import FISHER_MAX_TOTAL
from k3diff.documents import telemetry as telemetry_document
from k3diff.output import OutputFormat
from k3diff.report.telemetry_positions import position_lines
from k3diff.report.telemetry_rows import failed_line, one_server_lines
from k3diff.report.telemetry_unlogged import unlisted_line, unlogged_lines
from k3diff.sample.names import SIDES
from k3diff.telemetry.coverage import (
    COLD_NOTE,
    CONTROL,
    CONTROL_NOTE,
    V0_NOTE,
    cold_hits,
    cold_unread,
    kv_lost,
)
from k3diff.telemetry.gate import SAME_SERVER_PREFIX
from k3diff.telemetry.gatemodel import UNREPORTED_PREFIX
from k3diff.telemetry.model import COUNTER_RESET, PREEMPTION_NEW, Expectation, TelemetryReport
from k3diff.telemetry.power import could_detect
from k3diff.telemetry.windows import grouped, lost_to, lost_units, side_lost


def render(report: TelemetryReport, fmt: OutputFormat) -> str:
    """The telemetry in the chosen format."""
    if fmt is OutputFormat.JSON:
        return telemetry_document.write(report)
    if fmt is OutputFormat.TEXT:
        return _plain(report, "simple")
    if fmt is OutputFormat.MARKDOWN:
        return "# Run telemetry\n\n" + _plain(report, "github", bold=True)
    assert_never(fmt)


def _named(report: TelemetryReport, expectation: Expectation) -> str:
    if expectation is Expectation.DRAFT_LENGTHS and report.draft_lengths is not None:
        return f"{expectation.value}=1-{report.draft_lengths}"
    return expectation.value


def _gate_failure(report: TelemetryReport) -> str | None:
    findings = report.gate_findings
    drops = [f for f in findings if f.name == "acceptance-drop"]
    if drops:
        where = ", ".join(
            "pooled" if f.position is None else f"position {f.position}" for f in drops
        )
        return f"acceptance-drop (patch acceptance lower than base's: {where})"
    if findings:
        gate = report.acceptance_gate
        why = "too few units"
        if findings[0].detail.startswith(SAME_SERVER_PREFIX):
            why = "base and patch were one server"
        elif gate is not None and not gate.tests:  # no side had 2 units: say what was missing
            why = findings[0].detail.removesuffix(", so no drop could have been detected")
        elif (
            gate is not None
            and any(gate.lost_windows)
            and gate.smallest_p_adjusted is not None
            and gate.smallest_p_adjusted <= report.alpha
        ):
            why = f"{lost_units(report.counter_resets)} lost to {_lost_to(report)}"
        elif findings[0].detail.startswith(UNREPORTED_PREFIX):
            why = findings[0].detail.split(":", 1)[0] + " (positions in no test)"
        return f"acceptance-undecided (--fail-on acceptance-drop could not decide: {why})"
    return None


def _unreported(report: TelemetryReport, side: str, shown: Callable[[str], str]) -> str:
    """The speculation line of a side with no counts: a V0 server's, every window lost (its
    engine sent counts), none sent, or its /metrics unreadable when `sample` probed it (what
    `sample` recorded of it, escaped by `shown`: telem68, before, an unreadable /metrics read
    as one that sent nothing)."""
    if side in report.v0_sides:
        return f"speculation, {side}: not read as counts ({V0_NOTE})"
    lost = side_lost(report.counter_resets, side)
    if lost is not None:
        return f"speculation, {side}: no counts left ({lost}, named below)"
    problem = next((p for p in report.metrics_problems if p[0] == side), None)
    if problem is not None and problem[2]:
        return (
            f"speculation, {side}: could not be read (its /metrics failed when sample probed "
            f"it: {shown(problem[1])}; no other source sent draft counts)"
        )
    why = f"; {shown(problem[1])}" if problem is not None else ""
    return f"speculation, {side}: not reported (no engine sent draft counts{why})"


def _unread_metrics(report: TelemetryReport) -> bool:
    """Some sampled side's /metrics could not be read when `sample` probed it."""
    sampled = {m.side for m in report.modes}
    return any(side in sampled and unread for side, _, unread in report.metrics_problems)


def _lost_to(report: TelemetryReport) -> str:
    """What the gate's lost windows were lost to."""
    return lost_to(report.counter_resets)


def _gate_pass(report: TelemetryReport) -> str:
    gate = report.acceptance_gate
    if gate is None or not gate.tests:
        return ""
    lowest = min(t.p_adjusted for t in gate.tests)
    return (
        f"; no acceptance drop at alpha {report.alpha:g} ({len(gate.tests)} permutation tests, "
        f"lowest Holm p {lowest:.3g})"
    )


def _warnings(report: TelemetryReport) -> str:
    """The warnings an OK verdict names: counters that went down, a new preemption."""
    found = [f"{COUNTER_RESET} ({r.side})" for r in report.counter_resets]
    found += [PREEMPTION_NEW] if report.new_preemption is not None else []
    return f"; warnings: {', '.join(dict.fromkeys(found))}" if found else ""


def verdict_line(report: TelemetryReport) -> str:
    verdict = _verdict(report) + ("" if report.exit_code else _warnings(report))
    # telstop65: without --expect telemetry only summarises (exit 0), but never as if the run
    # had been taken to its end.
    return verdict + ("; the run stopped part-way" if report.stops else "")


def _stop_lines(report: TelemetryReport, bold: bool) -> list[str]:
    """The run's stop and the sides it never sampled (the message is the run's stderr line,
    which may quote a server: Markdown escapes it as prose)."""
    shown = escape.markdown_prose if bold else escape.text
    lines = [shown(stop.said()) for stop in report.stops]  # each with its log (report66)
    lines += [f"no sample, {side} side: the run's header lists it" for side in report.unsampled]
    return [*lines, ""] if lines else []


def _verdict(report: TelemetryReport) -> str:
    code = int(report.exit_code)
    gate = _gate_failure(report)
    if report.not_exercised or gate:
        parts = "; ".join(
            f"{_named(report, n.expectation)} on the {n.side} side" for n in report.not_exercised
        )
        failures = [f"not exercised (coverage debt): {parts}"] if parts else []
        failures += [gate] if gate else []
        return f"Verdict: FAIL (exit {code}): {'; '.join(failures)}"
    if report.expected:
        what = ", ".join(_named(report, e) for e in report.expected)
        return f"Verdict: OK (exit {code}): every side exercised {what}{_gate_pass(report)}"
    if report.acceptance_gate is not None:
        return f"Verdict: OK (exit {code}){_gate_pass(report).replace(';', ':', 1)}"
    # words72: "nothing expected (--expect)" read as a finding; the demo had to explain it.
    return (
        f"Verdict: OK (exit {code}): telemetry summarised; no --expect was given, so no "
        "expectation was checked"
    )


def _seconds(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def _plain(report: TelemetryReport, table: str, bold: bool = False) -> str:
    rows = [
        [
            m.side,
            m.mode,
            m.samples,
            _seconds(m.latency_p50),
            _seconds(m.latency_p90),
            _seconds(m.latency_p99),
            f"{m.cached_tokens} in {m.cache_hits} of {m.cache_reported}"
            if m.cache_reported
            else "not reported",
        ]
        for m in report.modes
    ]
    headers = ["side", "mode", "samples", "p50 s", "p90 s", "p99 s", "cached tokens (hits)"]
    # One precision per column: tabulate would re-read "0.030" as a number and print 0.03.
    lines = [tabulate(rows, headers=headers, tablefmt=table, floatfmt=".3f"), ""]
    # The server's own words (an HTML page's start): Markdown escapes them as prose.
    prose = escape.markdown_prose if bold else escape.text
    lines += [prose(line) for line in one_server_lines(report)]
    lines += [failed_line(failed, prose) for failed in report.failed]
    lines += unlogged_lines(report.unlogged, prose)
    lines += [unlisted_line(log, prose) for log in report.unlisted]
    lines += [""] if report.failed or report.unlogged or report.unlisted else []
    if report.speculation:
        level = f"{100 * (1 - report.alpha):g} %"
        for spec in report.speculation:
            if spec.rate is None:
                lines.append(
                    f"speculation, {spec.side}: 0 drafted tokens in {spec.requests} requests"
                )
            else:
                lines.append(
                    f"speculation, {spec.side}: {spec.accepted} accepted of {spec.drafted} drafted "
                    f"({spec.rate:.1%}, {level} Clopper-Pearson {spec.ci_low:.1%}-{spec.ci_high:.1%})"
                    + (f" [{spec.source}]" if spec.source else "")
                )
        reported = {spec.side for spec in report.speculation}
        for side in [s for s in SIDES if s in {m.side for m in report.modes} - reported]:
            lines.append(_unreported(report, side, prose))
        if report.acceptance_p is not None:
            lines.append(
                f"acceptance base vs patch: Fisher's exact p = {report.acceptance_p:.3g} "
                "(tokens pooled across requests: a screen, not a per-request test)"
            )
        elif {s.side for s in report.speculation if s.drafted} >= set(SIDES) and sum(
            s.drafted for s in report.speculation
        ) > FISHER_MAX_TOTAL:
            lines.append(
                f"acceptance base vs patch: not tested (more than {FISHER_MAX_TOTAL:,} drafted "
                "tokens in all, past what Fisher's exact test is run on)"
            )
        lines.append("")
    elif report.v0_sides:
        lines += [
            f"speculation, {side}: not read as counts ({V0_NOTE})" for side in report.v0_sides
        ]
        lines.append("")
    elif lost := [side for side in SIDES if side_lost(report.counter_resets, side)]:
        lines += [_unreported(report, side, prose) for side in lost]
        lines.append("")
    elif _unread_metrics(report):  # which side's /metrics failed, and how (telem68)
        sampled = {m.side for m in report.modes}
        lines += [_unreported(report, side, prose) for side in SIDES if side in sampled]
        lines.append("")
    else:
        lines += ["speculation: not reported (no engine sent draft counts)", ""]
    lines += _vllm_lines(report, bold)
    lines += _kv_lines(report, bold)
    lines += position_lines(report, table)
    lines += _gate_lines(report, table, bold)
    lines += _stop_lines(report, bold)
    if report.expected and any(m.mode == CONTROL for m in report.modes):  # telemetry66
        lines += [f"--expect counts the modes' requests, not the control's ({CONTROL_NOTE})", ""]
    shown = escape.markdown_prose if bold else escape.text
    for gap in report.not_exercised:  # a detail may name a sample by its key (telem67)
        lines.append(
            f"not-exercised: {_named(report, gap.expectation)}, {gap.side} side: "
            f"{shown(gap.detail)}"
        )
    if report.not_exercised:
        lines.append("")
    verdict = verdict_line(report)
    lines.append(f"**{verdict}**" if bold else verdict)
    return "\n".join(lines)


def _vllm_lines(report: TelemetryReport, bold: bool) -> list[str]:
    """vLLM's preemptions per side, a patch that preempted where the base did not (a warning),
    and each counter that went down across a window (a restarted server)."""
    shown = escape.markdown_prose if bold else escape.text
    lines = [
        f"preemptions, {p.side}: {p.preemptions:,} in {p.windows:,} vLLM windows "
        "(vllm:num_preemptions_total)"
        for p in report.preemptions
    ]
    new = report.new_preemption
    if new is not None:
        lines.append(
            f"warning: {PREEMPTION_NEW}: the patch's vLLM preempted {new.preemptions:,} times "
            "where the base's preempted none: preemption changes batch composition, hence "
            "greedy outputs under continuous batching (a warning, not a failure)"
        )
    lost = [sum(1 for r in report.counter_resets if r.lost and r.side == s) for s in SIDES]
    if any(lost):  # telemetry66: said beside the counts they are missing from
        lines.append(
            f"{lost_units(report.counter_resets, counted=False)} lost to "
            f"{lost_to(report.counter_resets)}, in no count or test here: "
            f"base {lost[0]}, patch {lost[1]}"
        )
    lines += [  # one line per group that says the same of its units (telem67)
        f"{COUNTER_RESET}, {side}: {shown(sentence)}"
        for side, sentence in grouped(report.counter_resets)
    ]
    return [*lines, ""] if lines else []


def _kv_lines(report: TelemetryReport, bold: bool) -> list[str]:
    """KV-cache reuse per side, with the requests whose counts are no counts (telem67: said,
    not "not reported"; the first named, escaped: it names a sample by its key), and a cold
    request that hit the cache."""
    shown = escape.markdown_prose if bold else escape.text
    lines = [
        (
            f"KV-cache reuse, {kv.side}: {kv.hits} of {kv.requests} requests reused a block "
            f"({kv.reused_blocks} reused, {kv.missed_blocks} missed; TensorRT-LLM "
            "kv_cache_metrics)"
            if kv.requests
            else f"KV-cache reuse, {kv.side}: no request reported valid kv_cache_metrics"
        )
        + (f"; {shown(kv_lost(kv))}" if kv.invalid else "")
        for kv in report.kv_reuse
    ]
    if Expectation.CACHE_REUSE not in report.expected:  # else its not-exercised line says it
        for side in SIDES:
            rows = [m for m in report.modes if m.side == side]
            kv = next((k for k in report.kv_reuse if k.side == side), None)
            if cold := cold_hits(rows, kv):
                lines.append(
                    f"cold-warm, {side}: the cold request was not cold: {cold} cold "
                    f"request{'s' if cold != 1 else ''} hit the cache: {COLD_NOTE}"
                )
            if unread := cold_unread(rows, kv):
                line = f"cold-warm, {side}: whether the cold request was cold cannot be read"
                lines.append(f"{line}: {shown(unread)}")
    return [*lines, ""] if lines else []


def _gate_lines(report: TelemetryReport, table: str, bold: bool) -> list[str]:
    """`--fail-on acceptance-drop`: per comparison, the units, the rates, p and Holm p; each
    finding's detail escaped (it names a lost unit's sample by its key, left66)."""
    shown = escape.markdown_prose if bold else escape.text
    gate = report.acceptance_gate
    if gate is None:
        return []
    rows = [
        [
            "pooled tokens" if t.position is None else f"position {t.position}",
            f"{t.base_units} / {t.patch_units}",
            f"{t.base_accepted} of {t.base_total} ({t.base_accepted / t.base_total:.1%})",
            f"{t.patch_accepted} of {t.patch_total} ({t.patch_accepted / t.patch_total:.1%})",
            f"{t.p:.3g}" + ("" if t.exact else " (MC)"),
            f"{t.p_adjusted:.3g}",
            f"{t.p_min:.3g}",
        ]
        for t in gate.tests
    ]
    headers = ["compared", "units b / p", "base", "patch", "p (one-sided)", "Holm p", "least p"]
    lines = [
        "acceptance gate (--fail-on acceptance-drop): base rate - patch rate, each a ratio of "
        "totals over units (requests; vLLM windows), one-sided permutation test of the side "
        f"labels, Holm across the tests, alpha {report.alpha:g}:"
    ]
    if gate.block > 1:
        lines.append(
            f"past the gate's caps: each test's units are blocks of {gate.block} consecutive "
            "units of a side (the smallest block that fits, chosen from the unit counts; the "
            "rates are the units'), so n counts blocks"
        )
    if rows:
        lines.append(tabulate(rows, headers=headers, tablefmt=table))
    if gate.smallest_p_adjusted is not None and not gate.findings:
        detect = could_detect(
            report.acceptance_units,
            report.alpha,
            tests=len(gate.tests),
            pooled=gate.tests[0].position is None,
            block=gate.block,
            least=gate.smallest_p_adjusted,
        )
        lines.append(f"no acceptance drop at alpha {report.alpha:g}; {detect}")
    if any(gate.lost_windows):
        base, patch = gate.lost_windows
        kinds = lost_units(report.counter_resets, counted=False)
        lines.append(f"{kinds} lost to {_lost_to(report)}, in no test: base {base}, patch {patch}")
    lines += [f"{f.name}: {shown(f.detail)}" for f in gate.findings]
    return [*lines, ""]

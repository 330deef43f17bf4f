"""The telemetry/coverage row from a `k3diff.telemetry/1` document: cache reuse and
speculative-decoding acceptance per side (and per draft position), with coverage debt stated."""

from __future__ import annotations

from k3diff import escape
from k3diff.bundle.aarun import HELD, allowed_line, held_line
from k3diff.bundle.model import Evidence, Stage, Status
from k3diff.documents.read import Document
from k3diff.documents.telemetry import TelemetryDocument
from k3diff.documents.telemetrygate import TelemetryGate
from k3diff.sample.names import Mode
from k3diff.telemetry.engines import SOURCE_SGLANG, SOURCE_TRTLLM, SOURCE_VLLM
from k3diff.telemetry.power import could_detect
from k3diff.telemetry.windows import grouped

UNIT_NOUNS = {
    SOURCE_TRTLLM: "TensorRT-LLM requests",
    SOURCE_VLLM: "vLLM windows",
    SOURCE_SGLANG: "SGLang samples",
}
"""What one unit the gate permutes is, by the source a side's counts are read from."""

CONTROL = Mode.CONTROL.value
"""The control's rows (`--control`): not the requests under test, so not counted as cache reuse."""
SHOWN_POSITIONS = 8
"""Draft positions listed per side in a qualification (the rest are counted)."""


def _headline(telemetry: TelemetryDocument) -> str:
    modes = [m for m in telemetry.modes if m.mode != CONTROL]  # the modes' requests (telemetry66)
    cached = sum(m.cached_tokens for m in modes)
    hits = sum(m.cache_hits for m in modes)
    reported = sum(m.cache_reported for m in modes)
    samples = sum(m.samples for m in modes)
    if reported:
        headline = (
            f"telemetry: {cached:,} cached prompt tokens, hits in {hits:,} of {reported:,} "
            "samples that report the count"
        )
    else:
        headline = f"telemetry: {samples:,} samples, no cached-token count reported by the servers"
    for kv in telemetry.kv_reuse:
        headline += (
            f"; {kv.side}: {kv.hits:,} of {kv.requests:,} requests reused a KV block "
            f"({kv.reused_blocks:,} blocks)"
        )
    for spec in telemetry.speculation:
        headline += (
            f"; {spec.side} accepted {spec.accepted:,} of {spec.drafted:,} drafted tokens"
            if spec.drafted
            else f"; {spec.side} drafted no tokens"
        )
    return headline


def _cache_lines(telemetry: TelemetryDocument) -> list[str]:
    """Cache reuse per side, and the sides that showed none (coverage debt)."""
    lines = []
    sides = sorted({m.side for m in telemetry.modes} | {k.side for k in telemetry.kv_reuse})
    for side in sides:
        rows = [m for m in telemetry.modes if m.side == side and m.mode != CONTROL]
        reported = sum(m.cache_reported for m in rows)
        parts = []
        if reported:
            hits = sum(m.cache_hits for m in rows)
            cached = sum(m.cached_tokens for m in rows)
            parts.append(
                f"{cached:,} cached prompt tokens, hits in {hits:,} of {reported:,} samples"
            )
        control = [m for m in telemetry.modes if m.side == side and m.mode == CONTROL]
        if parts and control and control[0].cache_reported:  # said apart: not the modes'
            parts[-1] += f" (the control's {control[0].cache_hits:,} hits not counted)"
        kv = next((k for k in telemetry.kv_reuse if k.side == side), None)
        if kv is not None:
            parts.append(
                f"{kv.hits:,} of {kv.requests:,} requests reused a KV block"
                if kv.requests
                else "no request reported valid kv_cache_metrics"
            )
            if kv.invalid:  # telem67: lost, not unreported
                parts[-1] += f" ({kv.invalid:,} reported kv_cache_metrics not valid, lost)"
        cold = sum(m.cold_hits for m in rows) + (kv.cold_hits if kv is not None else 0)
        if cold:  # telem67: a cold request must miss; its hit is no reuse
            parts.append(f"{cold:,} cold-warm cold requests hit the cache, not counted as reuse")
        if unread := sum(m.cold_unread for m in rows):  # left67: may have hit
            parts.append(
                f"{unread:,} cold-warm cold requests failed or usage not valid (may have hit)"
            )
        if kv is not None and kv.unread_cold:  # telem68: its drain missing, or after a resume
            parts.append(
                f"{kv.unread_cold:,} cold-warm cold requests' /perf_metrics drain cannot be "
                "read (may have hit)"
            )
        if not parts:
            continue
        lines.append(f"cache reuse, {side}: {'; '.join(parts)}")
        if kv is not None and kv.hits == kv.cold_hits:  # none, or only cold requests
            lines.append(f"coverage debt: {side}: no request reused a KV block")
    return lines


def _position_lines(telemetry: TelemetryDocument) -> list[str]:
    """Acceptance per side and draft position, and the strongest base-vs-patch difference."""
    lines = []
    for side in sorted({p.side for p in telemetry.positions}):
        rates = [p for p in telemetry.positions if p.side == side]
        if not any(p.drafts for p in rates):  # counters at 0: no "0/0" rates (telem67)
            lines.append(f"acceptance by draft position, {side}: no drafts")
            continue
        shown = ", ".join(
            f"{p.position}: {p.accepted:,}/{p.drafts:,}"
            + (f" ({p.accepted / p.drafts:.1%})" if p.drafts else "")
            for p in rates[:SHOWN_POSITIONS]
        )
        more = f" and {len(rates) - SHOWN_POSITIONS} more" if len(rates) > SHOWN_POSITIONS else ""
        lines.append(f"acceptance by draft position, {side}: {shown}{more}")
    if telemetry.position_tests:
        lowest = min(telemetry.position_tests, key=lambda t: (t.p_adjusted, t.position))
        lines.append(
            f"base vs patch by draft position: lowest Holm-adjusted Fisher p = "
            f"{lowest.p_adjusted:.3g} at position {lowest.position} "
            f"({len(telemetry.position_tests)} positions compared)"
        )
    return lines


def _vllm_lines(telemetry: TelemetryDocument) -> list[str]:
    """vLLM's preemptions per side (a new one on the patch warned), and each counter that went
    down across a window (a restarted server)."""
    vllm = telemetry.vllm
    lines = [
        f"preemptions, {p.side}: {p.preemptions:,} in {p.windows:,} vLLM windows"
        for p in vllm.preemptions
    ]
    if vllm.new_preemption is not None:
        lines.append(
            "warning: preemption-new: the patch's vLLM preempted where the base's did not "
            "(batch composition, hence greedy outputs, changed)"
        )
    lines += [f"counter-reset, {side}: {said}" for side, said in grouped(vllm.counter_resets)]
    lines += [
        f"speculation, {side}: vLLM V0 counters, not read as counts (a sum of sums)"
        for side in vllm.v0_sides
    ]
    return lines


def _stopped(telemetry: TelemetryDocument) -> str:
    """`; the run stopped part-way (run/samples.jsonl: interrupted)`, each stop with its log
    (report66: the sampling row said it, the telemetry row did not; a log given as `telemetry`
    was given it, as the document names it), or ''."""
    if not telemetry.stops:
        return ""
    said = "; ".join(
        escape.text(s.stop.reason if s.log is None else f"{s.log}: {s.stop.reason}")
        for s in telemetry.stops
    )
    return f"; the run stopped part-way ({said})"


def _passing(gate: TelemetryGate, alpha: float, sources: set[str]) -> str:
    """What a gate that found no drop tested: alpha, Holm over its tests, n a side, and what
    a unit is where the document says (newuser63b: "32 base and 32 patch" had no noun)."""
    first = gate.tests[0]  # the pooled test where there is one (the most units a side)
    positions = sum(1 for t in gate.tests if t.position is not None)
    over = (
        ("pooled and " if first.position is None else "")
        + f"{positions} draft position{'s' if positions != 1 else ''}"
        if positions
        else "pooled"
    )
    units = "units" if gate.block == 1 else f"blocks of {gate.block} consecutive units"
    if len(sources) == 1 and (noun := UNIT_NOUNS.get(next(iter(sources)))):
        units += f" ({noun})"
    where = "pooled" if first.position is None else f"at position {first.position}"
    return (
        f"no drop found at alpha {alpha:g}, Holm over {len(gate.tests)} permutation tests "
        f"({over}) over {units}; {where}, {first.base_units:,} base and "
        f"{first.patch_units:,} patch {'units' if gate.block == 1 else 'blocks'}"
    )


def telemetry_stage(doc: Document) -> Stage:
    """Telemetry and coverage from `k3diff.telemetry/1`: an expected axis not exercised fails
    the row (coverage debt, never a pass), as a gate's finding does; a gate that found no drop
    passes it, saying what it tested; with neither `--expect` nor a gate it is recorded, not
    passed."""
    telemetry = doc.typed(TelemetryDocument)
    gaps = telemetry.not_exercised
    headline = _headline(telemetry)
    names = dict(zip(telemetry.expected, telemetry.expectation_names(), strict=True))
    quals = [
        f"not exercised: {names.get(g.expectation, g.expectation)} on the {g.side} side "
        f"({g.detail})"
        for g in gaps
    ]
    quals += _cache_lines(telemetry)
    quals += _position_lines(telemetry)
    quals += _vllm_lines(telemetry)
    gate = telemetry.acceptance_gate
    findings = gate.findings if gate is not None else ()
    if telemetry.imposed:
        quals.append(
            "acceptance gate imposed at report time (report --fail-on acceptance-drop), run "
            f"from the units the document records at alpha {telemetry.acceptance_alpha:g}"
            + (
                f" (the document's own alpha is {telemetry.alpha:g})"
                if telemetry.acceptance_alpha != telemetry.alpha
                else ""
            )
        )
    quals += [f"{f.name}: {f.detail}" for f in findings]
    passed = gate is not None and not findings and bool(gate.tests)
    if gate is not None and passed:
        found = telemetry.acceptance_units or {}
        passing = _passing(gate, telemetry.acceptance_alpha, {u.source for u in found.values()})
        lowest = min(t.p_adjusted for t in gate.tests)
        detect = could_detect(
            telemetry.acceptance_units,
            telemetry.acceptance_alpha,
            tests=len(gate.tests),
            pooled=gate.tests[0].position is None,
            block=gate.block,
            least=len(gate.tests) * min(t.p_min for t in gate.tests),
        )
        quals.append(f"acceptance gate: {passing}; lowest Holm p {lowest:.3g}; {detect}")
        headline += f"; --fail-on acceptance-drop passed: {passing}"
    if findings:
        headline += f"; --fail-on acceptance-drop: {', '.join(sorted({f.name for f in findings}))}"
    if doc.one_server_held:  # gate74: the reviewer's word, not the document's
        headline += f"; {HELD}"
    elif doc.one_server is not None:
        quals.append(allowed_line(doc))
    if gaps or findings or doc.one_server_held:
        status = Status.FAIL
    elif passed or telemetry.expected:
        status = Status.PASS
        if telemetry.expected:
            headline += (
                f" (expected: {', '.join(telemetry.expectation_names())}; exercised on every side)"
            )
    else:
        status = Status.INFO
    headline += _stopped(telemetry)
    cached = sum(m.cached_tokens for m in telemetry.modes)
    counts = {"not_exercised": len(gaps), "cached_tokens": cached}
    if gate is not None:
        counts["acceptance_gate_findings"] = len(findings)
    held = held_line(doc) if doc.one_server_held else None
    return Stage(
        Evidence.TELEMETRY, doc.name, status, headline, tuple(quals), counts, one_server=held
    )

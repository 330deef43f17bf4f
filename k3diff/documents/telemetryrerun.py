"""`k3diff report` runs a telemetry document's acceptance gate again from its
`acceptance_units` (forge60): the gate's tests and findings must be what the units give, the
units must add up to the document's speculation and position counts, and a reviewer can impose
the gate on a document made without it (`report --fail-on acceptance-drop`), so removing
`fail_on` from a document no longer turns a failing gate into a pass when the reviewer asks.

A document whose units were edited consistently with every count beside them, and its gate
with them, is caught only by running `telemetry` again on the logs."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping

from k3diff.documents.telemetry import TelemetryDocument
from k3diff.documents.telemetrygate import (
    DROP,
    TelemetryGate,
    TelemetryGateFinding,
    TelemetryGateTest,
)
from k3diff.errors import InputError
from k3diff.telemetry.engines import SOURCE_SGLANG
from k3diff.telemetry.gatemodel import AcceptanceGate, SideUnits

SIDES = ("base", "patch")
RERUN = "the gate run again on acceptance_units"


def _where(position: int | None) -> str:
    return "pooled" if position is None else f"position {position}"


def _units(block: int) -> str:
    return "units" if block == 1 else f"blocks of {block} units"


def gate_view(gate: AcceptanceGate) -> TelemetryGate:
    """The gate as a document's typed view holds it."""
    return TelemetryGate(
        exact_splits=gate.exact_splits,
        resamples=gate.resamples,
        tests=tuple(
            TelemetryGateTest(
                t.position, t.base_units, t.patch_units, t.p, t.p_adjusted, t.p_min, t.exact
            )
            for t in gate.tests
        ),
        findings=tuple(TelemetryGateFinding(f.name, f.position, f.detail) for f in gate.findings),
        lost_windows=sum(gate.lost_windows),
        block=gate.block,
        allow_same_server=gate.allow_same_server,
    )


def run_gate(
    view: TelemetryDocument,
    units: Mapping[str, SideUnits],
    alpha: float | None = None,
    allowed: bool | None = None,
) -> TelemetryGate:
    """`telemetry`'s own gate (`k3diff.telemetry.gate`) on the recorded units and the vLLM
    counter resets the document lists (checked against the gate's `lost_windows` before), at
    `alpha` (None: the document's own), with the logs it records as of one server
    (`one_server`), held unless `allowed` (None: the document's own `allow_same_server`, as
    the run was given it)."""
    from k3diff.telemetry.gate import acceptance_gate

    level = view.alpha if alpha is None else alpha
    # The document's logs of one server, held unless allowed (telem72: a run of one server
    # passed the gate): checking the document's own gate, as its run was told; a gate `report`
    # imposes, as the reviewer says (gate74: the document's word passed an edited document).
    held = (view.one_server, view.allow_same_server if allowed is None else allowed)
    return gate_view(acceptance_gate(units, level, view.vllm.counter_resets, held))


def _close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-15)


def _gate_difference(stated: TelemetryGate, again: TelemetryGate) -> str | None:
    """The first field of `acceptance_gate` that differs from the gate run again."""
    if (stated.exact_splits, stated.resamples) != (again.exact_splits, again.resamples):
        return (
            f"acceptance_gate enumerates {stated.exact_splits:,} splits and draws "
            f"{stated.resamples:,}, but this k3diff's gate {again.exact_splits:,} and "
            f"{again.resamples:,}"
        )
    if stated.block != again.block:
        return (
            f"acceptance_gate tests {_units(stated.block)}, but {RERUN} {_units(again.block)} "
            "(the blocks acceptance_units records)"
        )
    if len(stated.tests) != len(again.tests):
        return f"acceptance_gate.tests holds {len(stated.tests)} tests, {RERUN} {len(again.tests)}"
    for index, (test, redone) in enumerate(zip(stated.tests, again.tests, strict=True)):
        for name in ("position", "base_units", "patch_units", "exact", "p", "p_adjusted", "p_min"):
            mine, theirs = getattr(test, name), getattr(redone, name)
            same = (
                _close(mine, theirs)
                if isinstance(mine, float) and isinstance(theirs, float)
                else mine == theirs
            )
            if not same:
                return (
                    f"acceptance_gate.tests[{index}].{name} is {mine!r} but {RERUN} gives "
                    f"{theirs!r} ({_where(redone.position)})"
                )
    if stated.findings != again.findings:
        listed = ", ".join(f"{f.name} {_where(f.position)}" for f in stated.findings)
        found = ", ".join(f"{f.name} {_where(f.position)}" for f in again.findings)
        return (
            f"acceptance_gate.findings lists {listed or 'none'} but {RERUN} gives "
            f"{found or 'none'}"
            + (" (the same findings, other details)" if listed == found else "")
        )
    return None


def _count_problems(view: TelemetryDocument, units: Mapping[str, SideUnits]) -> list[str]:
    """The units add up to the speculation and position counts beside them."""
    problems = []
    speculation = {spec.side: spec for spec in view.speculation}
    if set(units) != set(speculation):
        problems.append(
            f"acceptance_units names {', '.join(sorted(units)) or 'no side'} but speculation "
            f"{', '.join(sorted(speculation)) or 'no side'}"
        )
        return problems
    for side, found in units.items():
        accepted = sum(u[0] for u in found.token_units)
        drafted = sum(u[1] for u in found.token_units)
        spec = speculation[side]
        if (accepted, drafted) != (spec.accepted, spec.drafted):
            problems.append(
                f"acceptance_units.{side} adds up to {accepted:,} of {drafted:,} tokens but "
                f"speculation says {spec.accepted:,} of {spec.drafted:,}"
            )
        drafts = sum(d for d, _ in found.position_units)
        longest = max((len(a) for _, a in found.position_units), default=0)
        at_least = [
            sum(a[index] for _, a in found.position_units if index < len(a))
            for index in range(longest)
        ]
        stated = sorted(
            (p.position, p.accepted, p.drafts) for p in view.positions if p.side == side
        )
        recounted = [(index + 1, count, drafts) for index, count in enumerate(at_least)]
        if found.source == SOURCE_SGLANG:  # read past its histograms as 0 (telemetry66)
            recounted += [(n + 1, 0, drafts) for n in range(longest, len(stated))]
        if stated != recounted:
            problems.append(
                f"acceptance_units.{side} positions add up to other counts than positions "
                f"({len(recounted)} positions of {drafts:,} drafts)"
            )
    return problems


def rerun_problems(view: TelemetryDocument) -> list[str]:
    """Every way the units disagree with the counts and the gate beside them."""
    units = view.acceptance_units
    problems = [] if units is None else _count_problems(view, units)
    if view.acceptance_gate is None or problems:
        return problems
    if units is None:
        return [
            "acceptance_gate is present but acceptance_units is missing or null, so the gate "
            "cannot be run again (a document written before the units were recorded, or with "
            "them removed: re-run k3diff telemetry --fail-on acceptance-drop)"
        ]
    difference = _gate_difference(view.acceptance_gate, run_gate(view, units))
    return [] if difference is None else [difference]


def imposed(view: TelemetryDocument, name: str, allowed: bool = False) -> TelemetryDocument:
    """The document with the acceptance gate the reviewer imposes (`report --fail-on
    acceptance-drop`) at the house α (`telemetry`'s default), its logs of one server held
    unless the reviewer `allowed` them (`report --allow-same-server`; gate74: never on the
    document's word): its own where it has one made at that α that reads them alike (checked
    already), else run from its units, replacing a gate of its own made at another α (alpha60:
    `--alpha 0.001` hid a moderate drop) or allowance; InputError when it records no units."""
    from k3diff.telemetry.model import DEFAULT_ALPHA

    own = view.acceptance_gate
    alike = own is not None and (not view.one_server or own.allow_same_server == allowed)
    if alike and view.alpha == DEFAULT_ALPHA:
        return view
    if view.acceptance_units is None:
        why = (
            f"its own gate was made at alpha {view.alpha:g}, not the default {DEFAULT_ALPHA:g}"
            if view.acceptance_gate is not None
            else "it records no gate"
        )
        raise InputError(
            f"{name}: field 'acceptance_units' is missing or null, so report --fail-on "
            f"{DROP} cannot run the gate ({why}; a document written before the units were "
            "recorded, with them removed, or by a run past the gate's caps before they were "
            "gated in blocks); re-run k3diff telemetry on the "
            f"logs with --fail-on {DROP}"
        )
    gate = run_gate(view, view.acceptance_units, DEFAULT_ALPHA, allowed)
    # The verdict without any gate of its own (telemetry's exit code: not exercised, or gated).
    ok = not view.not_exercised and not gate.findings
    return dataclasses.replace(
        view,
        fail_on=tuple(dict.fromkeys((*view.fail_on, DROP))),
        acceptance_gate=gate,
        ok=ok,
        exit_code=0 if ok else 1,
        imposed=True,
        gate_alpha=DEFAULT_ALPHA,
    )

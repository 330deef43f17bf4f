"""`acceptance_gate` of a `k3diff.telemetry/1` document (`--fail-on acceptance-drop`), typed,
and the rule `k3diff report` re-derives its findings by: a test whose Holm-adjusted p is at most
alpha is an `acceptance-drop`; a gate none of whose tests could reach alpha (or with no test) is
`acceptance-undecided`, as is one that found no drop but lost vLLM windows to a counter
that went down (`lost_windows`); the adjusted p's are Holm's of the p's, and no p is below what its
units allow."""

from __future__ import annotations

from dataclasses import dataclass
from math import comb, isclose

from k3diff.fields import POSITIVE, SHARE, Fields, Within
from k3diff.telemetry.gatemodel import ACCEPTANCE_UNDECIDED, UNREPORTED_PREFIX
from k3diff.telemetry.model import Gate

DROP = Gate.ACCEPTANCE_DROP.value
GATE_FINDINGS = (DROP, ACCEPTANCE_UNDECIDED)
BLOCKS = Within(2)
"""A gate's `block` where written: absent when the gate tested single units (a block of 1)."""


@dataclass(frozen=True)
class TelemetryGateTest:
    """One comparison of the gate."""

    position: int | None
    """1-based draft position; None: draft tokens pooled."""
    base_units: int
    patch_units: int
    p: float
    p_adjusted: float
    p_min: float
    exact: bool


@dataclass(frozen=True)
class TelemetryGateFinding:
    """`acceptance-drop` or `acceptance-undecided`."""

    name: str
    position: int | None
    detail: str


@dataclass(frozen=True)
class TelemetryGate:
    """`--fail-on acceptance-drop`'s tests and findings, as the document states them."""

    exact_splits: int
    resamples: int
    tests: tuple[TelemetryGateTest, ...]
    findings: tuple[TelemetryGateFinding, ...]
    lost_windows: int = 0
    """vLLM windows lost to a counter that went down, both sides (absent: none)."""
    block: int = 1
    """The rule that decided it: 1 (absent), a test of units; past the gate's caps, of blocks
    of this many consecutive units (`k3diff.telemetry.blocks`)."""
    allow_same_server: bool = False
    """`--allow-same-server` (absent: false): a run of one server judged, not held."""


def _test(fields: Fields) -> TelemetryGateTest:
    units = fields.object("units")
    for side in ("base", "patch"):  # [accepted, total]; readers72: -1 was read
        if fields.has(side):
            fields.integers(side)
    return TelemetryGateTest(
        position=fields.optional_integer("position", POSITIVE),
        base_units=units.integer("base", POSITIVE),
        patch_units=units.integer("patch", POSITIVE),
        p=fields.number("p", SHARE),
        p_adjusted=fields.number("p_adjusted", SHARE),
        p_min=fields.number("p_min", SHARE),
        exact=fields.boolean("exact"),
    )


def _finding(fields: Fields) -> TelemetryGateFinding:
    name = fields.string("name", GATE_FINDINGS)
    position = fields.optional_integer("position", POSITIVE)
    return TelemetryGateFinding(name, position, fields.string("detail"))


def read_gate(fields: Fields | None) -> TelemetryGate | None:
    """The document's `acceptance_gate` (None: not asked, or an older document)."""
    if fields is None:
        return None
    return TelemetryGate(
        exact_splits=fields.integer("exact_splits", POSITIVE),
        resamples=fields.integer("resamples", POSITIVE),
        tests=fields.each("tests", _test),
        findings=fields.each("findings", _finding),
        lost_windows=_lost(fields.optional_object("lost_windows")),
        block=fields.optional_integer("block", BLOCKS) or 1,
        allow_same_server=fields.optional_boolean("allow_same_server") is True,
    )


def _one_server(fields: Fields) -> tuple[str, str]:
    return fields.string("log"), fields.string("where")


def read_one_server(fields: Fields) -> tuple[tuple[str, str], ...]:
    """The document's `one_server`: each log whose base and patch were one server, with where
    (empty where absent: a document written before telem72)."""
    return fields.each("one_server", _one_server) if fields.has("one_server") else ()


def _lost(fields: Fields | None) -> int:
    return 0 if fields is None else fields.integer("base") + fields.integer("patch")


def _where(position: int | None) -> str:
    return "pooled draft tokens" if position is None else f"position {position}"


def _holm(pvalues: list[float]) -> list[float]:
    from k3diff.correction import holm

    return holm(pvalues)


def _test_problems(gate: TelemetryGate, alpha: float) -> list[str]:
    from k3diff.correction import recount_disagreement

    problems = []
    for test, holm in zip(gate.tests, _holm([t.p for t in gate.tests]), strict=True):
        splits = comb(test.base_units + test.patch_units, test.base_units)
        exact = splits <= gate.exact_splits
        least = 1 / splits if exact else 1 / (gate.resamples + 1)
        if test.exact != exact or not isclose(test.p_min, least, rel_tol=1e-9):
            problems.append(
                f"acceptance gate, {_where(test.position)}: {test.base_units} and "
                f"{test.patch_units} units give a least p of {least:.3g}, not {test.p_min:.3g}"
            )
        if test.p < least * (1 - 1e-9):
            problems.append(
                f"acceptance gate, {_where(test.position)}: p {test.p:.3g} is below the least "
                f"p its units allow ({least:.3g})"
            )
        # Within 1e-9 of Holm's, read toward rejecting at α (`recount_disagreement`): a
        # p_adjusted a hair above α where Holm's is at or below it is refused (recount80).
        if recount_disagreement(test.p_adjusted, holm, (alpha,)) is not None:
            problems.append(
                f"acceptance gate, {_where(test.position)}: p_adjusted {test.p_adjusted:.3g} is "
                f"not Holm's of the tests' p's ({holm:.3g})"
            )
    return problems


def gate_problems(
    gate: TelemetryGate | None, fail_on: tuple[str, ...], alpha: float, one_server: bool = False
) -> tuple[list[str], list[str]]:
    """(the findings the gate's own tests give, named, with the document's logs of one server
    (`one_server`) held unless the gate allowed them; its inconsistencies)."""
    if gate is None:
        missing = [f"fail_on names {DROP} but acceptance_gate is null"] if DROP in fail_on else []
        return [], missing
    problems = [] if DROP in fail_on else [f"acceptance_gate present but fail_on lacks {DROP}"]
    problems += _test_problems(gate, alpha)
    failing = [f"{DROP} at {_where(t.position)}" for t in gate.tests if t.p_adjusted <= alpha]
    smallest = len(gate.tests) * min((t.p_min for t in gate.tests), default=1.0)
    held = one_server and not gate.allow_same_server
    # Positions one side reports and the other does not hold the gate (hunt72b); the tests do
    # not show them, so the finding's own words are taken here (the stricter way: it holds),
    # and the gate run again on `acceptance_units` checks it (`telemetryrerun`).
    unreported = any(
        f.name == ACCEPTANCE_UNDECIDED and f.detail.startswith(UNREPORTED_PREFIX)
        for f in gate.findings
    )
    undecided = held or unreported or not gate.tests or smallest > alpha or gate.lost_windows
    if not failing and undecided:
        failing.append(ACCEPTANCE_UNDECIDED)
    stated = [
        f.name if f.name == ACCEPTANCE_UNDECIDED else f"{f.name} at {_where(f.position)}"
        for f in gate.findings
    ]
    if sorted(stated) != sorted(failing):
        problems.append(
            f"acceptance gate lists {', '.join(stated) or 'no finding'}, but its tests "
            f"(Holm p against alpha {alpha:g}; least Holm p {smallest:.3g})"
            + (" and one_server (base and patch one server, not allowed)" if held else "")
            + " give "
            f"{', '.join(failing) or 'none'}"
        )
    return failing, problems

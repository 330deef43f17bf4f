"""The `k3diff.telemetry/1` document: its writer, built from the frozen telemetry values, and its
typed reader (`read`: what the bundle reads of it)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

from k3diff.documents.jsondoc import json_document
from k3diff.documents.telemetrygate import TelemetryGate, read_gate, read_one_server
from k3diff.documents.telemetrykv import TelemetryKv, kv_json, part_of, read_kv
from k3diff.documents.telemetryrates import SERVER_COUNT, StatedRate, read_rate
from k3diff.documents.telemetrystops import read_stops
from k3diff.documents.telemetryunits import read_units, units_json
from k3diff.documents.telemetryvllm import TelemetryVllm, read_vllm, vllm_json
from k3diff.fields import POSITIVE, SHARE, Fields, words
from k3diff.ids import TELEMETRY as SCHEMA
from k3diff.sample.names import SIDES, Mode
from k3diff.sample.stopline import LogStop
from k3diff.telemetry.gatemodel import GATE_STATISTIC, AcceptanceGate, GateTest, SideUnits
from k3diff.telemetry.model import (
    Expectation,
    Gate,
    ModeTelemetry,
    NotExercised,
    PositionRate,
    PositionTest,
    Speculation,
    TelemetryReport,
)

T = TypeVar("T")
EXPECTATIONS = tuple(e.value for e in Expectation)


def _mode_json(mode: ModeTelemetry) -> dict[str, Any]:
    return {
        "side": mode.side,
        "mode": mode.mode,
        "samples": mode.samples,
        "latency_s": {"p50": mode.latency_p50, "p90": mode.latency_p90, "p99": mode.latency_p99},
        "prompt_tokens": mode.prompt_tokens,
        "cached_tokens": mode.cached_tokens,
        "cache_reported": mode.cache_reported,
        "cache_hits": mode.cache_hits,
        "spec_accepted": mode.spec_accepted,
        "spec_drafted": mode.spec_drafted,
    } | (
        ({"cold_hits": mode.cold_hits} if mode.cold_hits else {})
        | ({"cold_unread": mode.cold_unread} if mode.cold_unread else {})
    )


def _spec_json(spec: Speculation) -> dict[str, Any]:
    return {
        "side": spec.side,
        "accepted": spec.accepted,
        "drafted": spec.drafted,
        "requests": spec.requests,
        "rate": spec.rate,
        "ci": [spec.ci_low, spec.ci_high] if spec.ci_low is not None else None,
        "source": spec.source,
    }


def _position_json(rate: PositionRate) -> dict[str, Any]:
    return {
        "side": rate.side,
        "position": rate.position,
        "accepted": rate.accepted,
        "drafts": rate.drafts,
        "rate": rate.rate,
        "ci": [rate.ci_low, rate.ci_high] if rate.ci_low is not None else None,
    }


def _test_json(test: PositionTest) -> dict[str, Any]:
    return {"position": test.position, "p": test.p, "p_adjusted": test.p_adjusted}


def _gate_test_json(test: GateTest) -> dict[str, Any]:
    return {
        "position": test.position,
        "units": {"base": test.base_units, "patch": test.patch_units},
        "base": [test.base_accepted, test.base_total],
        "patch": [test.patch_accepted, test.patch_total],
        "difference": test.difference,
        "p": test.p,
        "p_adjusted": test.p_adjusted,
        "p_min": test.p_min,
        "exact": test.exact,
    }


def _gate_json(gate: AcceptanceGate | None) -> dict[str, Any] | None:
    if gate is None:
        return None
    return (
        {
            "statistic": GATE_STATISTIC,
            "exact_splits": gate.exact_splits,
            "resamples": gate.resamples,
            "tests": [_gate_test_json(t) for t in gate.tests],
            "smallest_p_adjusted": gate.smallest_p_adjusted,
            "findings": [
                {"name": f.name, "position": f.position, "detail": f.detail} for f in gate.findings
            ],
        }
        | (
            {"lost_windows": {"base": gate.lost_windows[0], "patch": gate.lost_windows[1]}}
            if any(gate.lost_windows)
            else {}
        )
        | ({"block": gate.block} if gate.block > 1 else {})
        | ({"allow_same_server": True} if gate.allow_same_server else {})
    )


def telemetry_document(report: TelemetryReport) -> dict[str, Any]:
    """The `k3diff.telemetry/1` document."""
    code = int(report.exit_code)
    return {
        "schema": SCHEMA,
        "logs": list(report.logs),
        "alpha": report.alpha,
        "expected": [e.value for e in report.expected],
        "modes": [_mode_json(m) for m in report.modes],
        "speculation": [_spec_json(s) for s in report.speculation],
        "acceptance_p": report.acceptance_p,
        "not_exercised": [
            {"expectation": n.expectation.value, "side": n.side, "detail": n.detail}
            for n in report.not_exercised
        ],
        "kv_reuse": [kv_json(k) for k in report.kv_reuse],
        "positions": [_position_json(r) for r in report.positions],
        "position_tests": [_test_json(t) for t in report.position_tests],
        "draft_lengths": report.draft_lengths,
        "fail_on": [g.value for g in report.fail_on],
        "acceptance_gate": _gate_json(report.acceptance_gate),
        "acceptance_units": units_json(report.acceptance_units),
        "failed": [
            {
                "side": f.side,
                "samples": f.samples,
                "of": f.of,
                "error": f.error,
                "error_samples": f.error_samples,
            }
            for f in report.failed
        ],
        "unlogged": [
            {"side": u.side, "records": list(u.records), "of": u.of} for u in report.unlogged
        ],
        "unlisted": list(report.unlisted),
        "one_server": [{"log": log, "where": where} for log, where in report.one_server],
        **({"allow_same_server": True} if report.allow_same_server else {}),
        **vllm_json(report),
        "verdict": {"ok": code == 0, "exit_code": code},
    }


def write(report: TelemetryReport) -> str:
    """The document as JSON text (`k3diff telemetry --format json`)."""
    document = telemetry_document(report)
    units = ("acceptance_units",) if document["acceptance_units"] is not None else ()
    return json_document(document, per_line=("modes", "positions", *units))


# The typed reader ---------------------------------------------------------------------------


@dataclass(frozen=True)
class TelemetryMode:
    """One side and mode's samples (what the bundle sums)."""

    side: str
    """base or patch."""
    mode: str
    samples: int
    """Samples of the side and mode."""
    cached_tokens: int
    """Cached prompt tokens the servers reported."""
    cache_reported: int
    """Samples whose server reported the count."""
    cache_hits: int
    """Samples with cached prompt tokens."""
    cold_hits: int = 0
    """cold-warm: of `cache_hits`, the cold requests' (no evidence of reuse; telem67)."""
    cold_unread: int = 0
    """cold-warm: cold requests whose usage was not valid, so whether they hit cannot be read
    (left67)."""
    spec_drafted: int | None = None
    """Draft tokens of the side's speculation source in this mode (None: none reported)."""


@dataclass(frozen=True)
class TelemetrySpeculation:
    """One side's speculative decoding counts."""

    side: str
    """base or patch."""
    accepted: int
    """Draft tokens accepted."""
    drafted: int
    """Draft tokens proposed."""
    stated: StatedRate | None = None
    """`rate` and `ci` as written (None: a document without them), recounted on reading."""


@dataclass(frozen=True)
class TelemetryPosition:
    """One side's acceptance at one draft position."""

    side: str
    """base or patch."""
    position: int
    """1-based draft position."""
    accepted: int
    """Drafts with at least `position` tokens accepted."""
    drafts: int
    """Drafts."""
    stated: StatedRate | None = None
    """`rate` and `ci` as written (None: a document without them), recounted on reading."""


@dataclass(frozen=True)
class TelemetryPositionTest:
    """Base vs patch at one position."""

    position: int
    """1-based draft position."""
    p: float
    """Fisher's exact p."""
    p_adjusted: float
    """Holm-adjusted across positions."""


@dataclass(frozen=True)
class TelemetryDocument:
    """A `k3diff.telemetry/1` document, typed: what the bundle reads of it."""

    expected: tuple[str, ...]
    """The axes `--expect` named."""
    modes: tuple[TelemetryMode, ...]
    """Per side and mode, the counts."""
    speculation: tuple[TelemetrySpeculation, ...]
    """Per side, the speculative decoding counts (empty when none were reported)."""
    not_exercised: tuple[NotExercised, ...]
    """Expected axes not exercised."""
    ok: bool
    """The document's verdict."""
    exit_code: int
    """The exit code `telemetry` returned."""
    kv_reuse: tuple[TelemetryKv, ...] = ()
    """Per side, TensorRT-LLM's KV-cache reuse (empty when not reported or an older document)."""
    positions: tuple[TelemetryPosition, ...] = ()
    """Per side and draft position, acceptance (empty when no engine reported positions)."""
    position_tests: tuple[TelemetryPositionTest, ...] = ()
    """Per position, base vs patch."""
    draft_lengths: int | None = None
    """K of `--expect draft-lengths=1-K` (None when not asked)."""
    alpha: float = 0.05
    fail_on: tuple[str, ...] = ()
    """`--fail-on` gates (empty when none, or an older document)."""
    acceptance_gate: TelemetryGate | None = None
    """`--fail-on acceptance-drop`'s tests and findings."""
    acceptance_units: Mapping[str, SideUnits] | None = None
    """Per side that reports speculation, the units the gate permutes (None: absent, from a
    document written before the field, or null, past `GATE_MAX_UNITS` a side)."""
    imposed: bool = False
    """The gate was not asked of `telemetry` but imposed by `report --fail-on` (run from
    `acceptance_units`)."""
    vllm: TelemetryVllm = field(default_factory=TelemetryVllm)
    """vLLM's counter resets, preemptions and V0 sides."""
    gate_alpha: float | None = None
    """The α the imposed gate ran at (`report --fail-on`: the house α); None: `alpha`."""
    stops: tuple[LogStop, ...] = ()
    """The stop of each log that ends in one (`stopped`; empty where none, or older)."""
    one_server: tuple[tuple[str, str], ...] = ()
    """Each log whose base and patch were one server, with where (empty: none, or older)."""
    allow_same_server: bool = False
    """`--allow-same-server` was given (`allow_same_server`, or before audit73 only its gate's):
    a gate, its own or one `report` imposes, judges a run of one server."""

    @property
    def acceptance_alpha(self) -> float:
        """The α `acceptance_gate` was judged at."""
        return self.alpha if self.gate_alpha is None else self.gate_alpha

    def expectation_names(self) -> tuple[str, ...]:
        """The expected axes as `--expect` named them (`draft-lengths=1-K` with its K)."""
        return tuple(
            f"{name}=1-{self.draft_lengths}"
            if name == "draft-lengths" and self.draft_lengths is not None
            else name
            for name in self.expected
        )


def _mode(fields: Fields) -> TelemetryMode:
    cache_hits, samples = fields.integer("cache_hits"), fields.integer("samples")
    return TelemetryMode(
        side=fields.string("side", SIDES),
        mode=fields.string("mode", words(Mode)),
        samples=samples,
        cached_tokens=fields.integer("cached_tokens"),
        cache_reported=fields.integer("cache_reported"),
        cache_hits=cache_hits,
        cold_hits=part_of(fields, "cold_hits", cache_hits, "cache_hits"),
        cold_unread=part_of(fields, "cold_unread", samples, "samples", POSITIVE),
        spec_drafted=fields.optional_integer("spec_drafted"),
    )


def _speculation(fields: Fields) -> TelemetrySpeculation:
    accepted = fields.integer("accepted", SERVER_COUNT)
    drafted = fields.integer("drafted", SERVER_COUNT)
    if accepted > drafted:  # binomtest's ValueError (review80d), as `_position` refuses
        raise fields.fail("accepted", f"must be between 0 and drafted ({drafted})")
    return TelemetrySpeculation(
        side=fields.string("side", SIDES),
        accepted=accepted,
        drafted=drafted,
        stated=read_rate(fields),
    )


def _position(fields: Fields) -> TelemetryPosition:
    accepted, drafts = (
        fields.integer("accepted", SERVER_COUNT),
        fields.integer("drafts", SERVER_COUNT),
    )
    if not 0 <= accepted <= drafts:
        raise fields.fail("accepted", f"must be between 0 and drafts ({drafts})")
    return TelemetryPosition(
        side=fields.string("side", SIDES),
        position=fields.integer("position", POSITIVE),
        accepted=accepted,
        drafts=drafts,
        stated=read_rate(fields),
    )


def _position_test(fields: Fields) -> TelemetryPositionTest:
    return TelemetryPositionTest(
        position=fields.integer("position", POSITIVE),
        p=fields.number("p", SHARE),
        p_adjusted=fields.number("p_adjusted", SHARE),
    )


def _optional_each(fields: Fields, key: str, read: Callable[[Fields], T]) -> tuple[T, ...]:
    """A list added within the schema version: absent from older documents."""
    return fields.each(key, read) if fields.has(key) else ()


def _not_exercised(fields: Fields) -> NotExercised:
    return NotExercised(
        expectation=Expectation(fields.string("expectation", EXPECTATIONS)),
        side=fields.string("side", SIDES),
        detail=fields.string("detail"),
    )


def read(body: object, name: str) -> TelemetryDocument:
    """The typed view of a `k3diff.telemetry/1` document; InputError naming the file and the
    field when one is missing or of another type."""
    fields = Fields(body, name)
    verdict = fields.object("verdict")
    gate = read_gate(fields.optional_object("acceptance_gate"))
    return TelemetryDocument(
        expected=fields.strings("expected", EXPECTATIONS),
        modes=fields.each("modes", _mode),
        speculation=fields.each("speculation", _speculation),
        not_exercised=fields.each("not_exercised", _not_exercised),
        ok=verdict.boolean("ok"),
        exit_code=verdict.integer("exit_code"),
        kv_reuse=_optional_each(fields, "kv_reuse", read_kv),
        positions=_optional_each(fields, "positions", _position),
        position_tests=_optional_each(fields, "position_tests", _position_test),
        draft_lengths=fields.optional_integer("draft_lengths", POSITIVE),
        alpha=fields.level("alpha"),
        fail_on=fields.strings("fail_on", words(Gate)) if fields.has("fail_on") else (),
        acceptance_gate=gate,
        acceptance_units=read_units(fields),
        vllm=read_vllm(fields),
        stops=read_stops(fields),
        one_server=read_one_server(fields),
        allow_same_server=fields.optional_boolean("allow_same_server") is True
        or (gate is not None and gate.allow_same_server),
    )

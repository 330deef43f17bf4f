"""The `k3diff.telemetry/1` document: its writer, built from the frozen telemetry values, and its
typed reader (`read`: what the bundle reads of it)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from k3diff.documents.fields import Fields
from k3diff.documents.ids import TELEMETRY as SCHEMA
from k3diff.documents.jsondoc import json_document
from k3diff.telemetry.model import ModeTelemetry, Speculation, TelemetryReport


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
    }


def _spec_json(spec: Speculation) -> dict[str, Any]:
    return {
        "side": spec.side,
        "accepted": spec.accepted,
        "drafted": spec.drafted,
        "requests": spec.requests,
        "rate": spec.rate,
        "ci": [spec.ci_low, spec.ci_high] if spec.ci_low is not None else None,
    }


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
        "verdict": {"ok": code == 0, "exit_code": code},
    }


def write(report: TelemetryReport) -> str:
    """The document as JSON text (`k3diff telemetry --format json`)."""
    return json_document(telemetry_document(report), per_line=("modes",))


# The typed reader ---------------------------------------------------------------------------


@dataclass(frozen=True)
class TelemetryMode:
    """One side and mode's samples (what the bundle sums)."""

    side: str
    """base or patch."""
    samples: int
    """Samples of the side and mode."""
    cached_tokens: int
    """Cached prompt tokens the servers reported."""
    cache_reported: int
    """Samples whose server reported the count."""
    cache_hits: int
    """Samples with cached prompt tokens."""


@dataclass(frozen=True)
class TelemetrySpeculation:
    """One side's speculative decoding counts."""

    side: str
    """base or patch."""
    accepted: int
    """Draft tokens accepted."""
    drafted: int
    """Draft tokens proposed."""


@dataclass(frozen=True)
class NotExercised:
    """An expected axis a side did not exercise (coverage debt)."""

    expectation: str
    """The axis `--expect` named."""
    side: str
    """base or patch."""
    detail: str
    """What was seen instead."""


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


def _mode(fields: Fields) -> TelemetryMode:
    return TelemetryMode(
        side=fields.string("side"),
        samples=fields.integer("samples"),
        cached_tokens=fields.integer("cached_tokens"),
        cache_reported=fields.integer("cache_reported"),
        cache_hits=fields.integer("cache_hits"),
    )


def _speculation(fields: Fields) -> TelemetrySpeculation:
    return TelemetrySpeculation(
        side=fields.string("side"),
        accepted=fields.integer("accepted"),
        drafted=fields.integer("drafted"),
    )


def _not_exercised(fields: Fields) -> NotExercised:
    return NotExercised(
        expectation=fields.string("expectation"),
        side=fields.string("side"),
        detail=fields.string("detail"),
    )


def read(body: object, name: str) -> TelemetryDocument:
    """The typed view of a `k3diff.telemetry/1` document; InputError naming the file and the
    field when one is missing or of another type."""
    fields = Fields(body, name)
    verdict = fields.object("verdict")
    return TelemetryDocument(
        expected=fields.strings("expected"),
        modes=fields.each("modes", _mode),
        speculation=fields.each("speculation", _speculation),
        not_exercised=fields.each("not_exercised", _not_exercised),
        ok=verdict.boolean("ok"),
        exit_code=verdict.integer("exit_code"),
    )

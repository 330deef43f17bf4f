"""The `k3diff.telemetry/1` document, built from the frozen telemetry values, and its writer."""

from __future__ import annotations

from typing import Any

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

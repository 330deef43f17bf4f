"""The `k3diff.sample/1` document (`k3diff sample`'s end-of-run summary), built from the
frozen result values, and its writer."""

from __future__ import annotations

from typing import Any

from k3diff.documents.ids import SAMPLE as SCHEMA
from k3diff.documents.jsondoc import json_document
from k3diff.exitcodes import ExitCode
from k3diff.sample.model import RecordStats, SampleResult


def document(result: SampleResult) -> dict[str, Any]:
    """The `k3diff.sample/1` document."""
    code = result.exit_code
    return {
        "schema": SCHEMA,
        "out": str(result.out),
        "run_id": result.run_id,
        "proxy": result.proxy,
        "records": [_record(r) for r in result.records],
        "control": None
        if result.control is None
        else {side: {"n": n, "distinct": d} for side, (n, d) in result.control.items()},
        "vacuous": list(result.vacuous),
        "metrics": result.metrics,
        "summary": _summary(result),
        "verdict": {"ok": code is ExitCode.OK, "exit_code": int(code)},
    }


def _record(stats: RecordStats) -> dict[str, Any]:
    return {
        "key": stats.key,
        "side": stats.side,
        "mode": stats.mode,
        "n": stats.n,
        "errors": stats.errors,
        "distinct": stats.distinct,
        "modal_share": stats.modal_share,
        "in_flight": stats.in_flight,
        "batches_one_at_a_time": stats.one_at_a_time,
        "server_running": stats.server_running,
        "batches_server_one_at_a_time": stats.server_one_at_a_time,
    }


def _summary(result: SampleResult) -> dict[str, Any]:
    return {
        "planned": result.planned,
        "taken": result.taken,
        "failed": result.failed,
        "taken_now": result.taken_now,
        "unstable": result.unstable,
        "torn_line_dropped": result.torn_line_dropped,
        "perf_metrics": result.perf_metrics,
    }


def write(result: SampleResult) -> str:
    """The document as JSON text (`k3diff sample --format json`)."""
    return json_document(document(result), per_line=("records",))

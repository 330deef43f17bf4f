"""The `k3diff.sample/1` document (`k3diff sample`'s end-of-run summary), built from the
frozen result values, its writer, and its typed reader (for scripts and tests: `report` takes the
samples log, not this summary)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from k3diff.documents.jsondoc import json_document
from k3diff.exitcodes import ExitCode
from k3diff.fields import Fields
from k3diff.ids import SAMPLE as SCHEMA
from k3diff.sample.model import RecordStats, SampleResult
from k3diff.sample.sidefields import UNSET, FieldDifference


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
        "sampled": list(result.sampled),
        "load": None if result.load is None else dataclasses.asdict(result.load),
        "out_of_step": dict(result.out_of_step),
        "models": _models(result),
        "models_differ": [] if result.models is None else list(result.models.across),
        "side_fields": [_side_field(found) for found in result.side_fields],
        "summary": _summary(result),
        "verdict": {"ok": code is ExitCode.OK, "exit_code": int(code)},
    }


def _record(stats: RecordStats) -> dict[str, Any]:
    return {
        "key": stats.key,
        "label": stats.label,
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
        "batches": stats.batches,
        "batches_unproven": stats.unproven,
        "batches_by_gauge": stats.by_gauge,
        "batches_by_token_windows": stats.by_token_windows,
        "batches_load_failed": stats.load_failed,
        "batches_load_idle": stats.load_idle,
    }


def _models(result: SampleResult) -> dict[str, Any] | None:
    if result.models is None:
        return None
    return {
        side: {
            "answered": dict(found.answered),
            "unnamed": found.unnamed,
            "torn_streams": found.torn,
            "requested": list(found.requested),
            "mixed": list(found.mixed),
        }
        for side, found in result.models.sides.items()
    }


def _side_field(found: FieldDifference) -> dict[str, Any]:
    """One differing field: its values as sent (a side's value absent: not sent)."""
    values = {"base": found.base, "patch": found.patch}
    sent = {side: value for side, value in values.items() if value is not UNSET}
    return {"field": found.field, **sent, "records": found.records}


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


# The typed reader ---------------------------------------------------------------------------


@dataclass(frozen=True)
class SampleSummary:
    """A `k3diff.sample/1` document (the end-of-run summary), typed: its counts and verdict."""

    out: str
    """The output directory holding `samples.jsonl`."""
    run_id: str | None
    """The run's identity, from the log header."""
    planned: int
    """Samples the run meant to take."""
    taken: int
    """Samples in the log."""
    failed: int
    """Samples that failed after their retries."""
    taken_now: int
    """Samples this invocation took."""
    unstable: int
    """Record/side/mode triples with more than one distinct output."""
    vacuous: tuple[str, ...]
    """Sides whose control came back identical (empty for a document from before the
    control, which could not have had one)."""
    ok: bool
    """The run's verdict."""
    exit_code: int
    """The exit code `sample` returned."""
    sampled: tuple[str, ...] = ()
    """Sides whose request fields sampled (empty for a document from before the field)."""


def read(body: object, name: str) -> SampleSummary:
    """The typed view of a `k3diff.sample/1` document; InputError naming the file and the field
    when one is missing or of another type."""
    fields = Fields(body, name)
    summary = fields.object("summary")
    verdict = fields.object("verdict")
    return SampleSummary(
        out=fields.string("out"),
        run_id=fields.optional_string("run_id"),
        planned=summary.integer("planned"),
        taken=summary.integer("taken"),
        failed=summary.integer("failed"),
        taken_now=summary.integer("taken_now"),
        unstable=summary.integer("unstable"),
        vacuous=fields.strings("vacuous") if fields.has("vacuous") else (),
        ok=verdict.boolean("ok"),
        sampled=fields.strings("sampled") if fields.has("sampled") else (),
        exit_code=verdict.integer("exit_code"),
    )

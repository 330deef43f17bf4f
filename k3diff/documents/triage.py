"""The `k3diff.triage/1` document, built from the frozen triage values (the models have no
to_json), and its writer; a `--plan` answer is a `k3diff.triage/1` document too."""

from __future__ import annotations

from typing import Any

from k3diff.documents.ids import TRIAGE as SCHEMA
from k3diff.documents.jsondoc import json_document
from k3diff.triage.model import (
    CaptureEvidence,
    Category,
    ModeVerdict,
    Plan,
    RecordVerdict,
    SideStats,
    TriageResult,
)
from k3diff.triage.splits import SplitTree


def _side_json(side: SideStats) -> dict[str, Any]:
    return {
        "n": side.n,
        "errors": side.errors,
        "distinct": side.distinct,
        "modal_share": side.modal_share,
        "nonmodal_bound": side.nonmodal_bound,
        "deviation_ci": list(side.deviation_ci),
        "captured": side.captured,
        "in_flight": side.in_flight,
        "batches": side.batches,
        "batches_one_at_a_time": side.one_at_a_time,
        "server_running": side.server_running,
        "batches_server_one_at_a_time": side.server_one_at_a_time,
        "warm": side.warm,
        "cache_hits": side.cache_hits,
        "cold_cached": side.cold_cached,
    }


def _mode_json(mode: ModeVerdict) -> dict[str, Any]:
    return {
        "mode": mode.mode,
        "category": mode.category.value,
        "flags": [flag.value for flag in mode.flags],
        "reason": mode.reason,
        "regression_candidate": mode.regression_candidate,
        "base": _side_json(mode.base),
        "patch": _side_json(mode.patch),
        "p": mode.p,
        "p_adjusted": mode.p_adjusted,
        "novelty": mode.novelty,
        "novelty_p": mode.novelty_p,
        "novelty_p_adjusted": mode.novelty_p_adjusted,
        "novelty_exact": mode.novelty_exact,
        "good_turing_base": mode.good_turing_base,
        "more_samples": mode.more_samples,
        "detectable": mode.detectable,
        "sweep": [
            {
                "side": p.side,
                "level": p.level,
                "n": p.n,
                "distinct": p.distinct,
                "differ_from_serial": p.differ,
            }
            for p in mode.sweep
        ],
        "splits": {tree.side: _tree_json(tree) for tree in mode.splits},
    }


def _tree_json(tree: SplitTree) -> dict[str, Any]:
    return {
        "unit": tree.unit,
        "modal_samples": tree.modal_samples,
        "branches": [
            {"position": b.position, "samples": b.samples, "margin": b.margin}
            for b in tree.branches
        ],
    }


def _capture_json(capture: CaptureEvidence) -> dict[str, Any]:
    return {m.mode: {"reproduced": m.reproduced, "n": m.n} for m in capture.modes}


def _deciding(record: RecordVerdict) -> ModeVerdict | None:
    return next((m for m in record.modes if m.mode == record.deciding_mode), None)


def _record_json(record: RecordVerdict) -> dict[str, Any]:
    deciding = _deciding(record)
    return {
        "key": record.key,
        "comparison_status": record.comparison_status,
        "category": record.category.value,
        "flags": [flag.value for flag in record.flags],
        "reason": record.reason,
        "regression_candidate": record.regression_candidate,
        "deciding_mode": record.deciding_mode,
        "p": None if deciding is None else deciding.p,
        "p_adjusted": None if deciding is None else deciding.p_adjusted,
        "novelty": None if deciding is None else deciding.novelty,
        "novelty_p": None if deciding is None else deciding.novelty_p,
        "novelty_p_adjusted": None if deciding is None else deciding.novelty_p_adjusted,
        "good_turing_base": None if deciding is None else deciding.good_turing_base,
        "more_samples": record.more_samples,
        "detectable": None if deciding is None else deciding.detectable,
        "serial_parity": record.serial_parity,
        "captures": {capture.side: _capture_json(capture) for capture in record.captures},
        "modes": [_mode_json(mode) for mode in record.modes],
    }


def _summary(result: TriageResult) -> dict[str, int]:
    counts = {"records": len(result.records), "inconclusive": result.count(Category.INCONCLUSIVE)}
    counts.update({c.value: result.count(c) for c in Category if c is not Category.INCONCLUSIVE})
    counts["regression_candidates"] = result.regression_candidates
    counts["vacuous"] = result.vacuous_records
    counts["serial_agree"], counts["serial_records"] = result.serial_parity
    counts["serial_agree_base_unstable"] = result.serial_base_unstable
    return counts


def triage_document(result: TriageResult) -> dict[str, Any]:
    """The `k3diff.triage/1` document."""
    settings = result.settings
    code = result.exit_code
    return {
        "schema": SCHEMA,
        "comparison": result.comparison,
        "samples": list(result.samples),
        "alpha": settings.alpha,
        "bound": settings.bound,
        "near_tie": settings.near_tie,
        "correction": settings.correction.value,
        "fail_inconclusive": settings.fail_inconclusive,
        "capture_mode": settings.capture_mode,
        "power": settings.power,
        "tests": result.tests,
        "novelty_tests": result.novelty_tests,
        "samples_for_bound": result.samples_for_bound,
        "unknown_sample_keys": list(result.unknown_sample_keys),
        "pool_runs": result.pool_runs,
        "control": {side: {"n": n, "distinct": d} for side, n, d in result.control},
        "vacuous": list(result.vacuous),
        "runs": [run.to_json() for run in result.runs],
        "summary": _summary(result),
        "records": [_record_json(record) for record in result.records],
        "verdict": {"ok": code == 0, "exit_code": int(code)},
    }


def write(result: TriageResult) -> str:
    """The document as JSON text (`k3diff triage --format json`)."""
    return json_document(triage_document(result), per_line=("records",))


def write_plan(plan: Plan) -> str:
    """The `--plan` answer as JSON text."""
    document = {
        "schema": SCHEMA,
        "plan": {
            "alpha": plan.alpha,
            "bound": plan.bound,
            "per_side": plan.per_side,
            "achieved_bound": plan.achieved_bound,
        },
        "verdict": {"ok": plan.exit_code == 0, "exit_code": int(plan.exit_code)},
    }
    return json_document(document, per_line=())

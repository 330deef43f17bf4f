"""The `k3diff.triage/1` document, built from the frozen triage values (the models have no
to_json), its writer (a `--plan` answer is a `k3diff.triage/1` document too), and its typed
reader (`read`: what the bundle reads of it, and the settings `report` runs triage again with).
Each record's modes are `k3diff.documents.triagemodes`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from k3diff.documents import triagewords as words
from k3diff.documents.jsondoc import json_document
from k3diff.documents.triagemodes import TriageMode, mode_json, read_mode
from k3diff.fields import NONNEGATIVE, SHARE, Fields
from k3diff.ids import TRIAGE as SCHEMA
from k3diff.sample.names import SIDES
from k3diff.triage.flags import flag_label
from k3diff.triage.model import (
    CaptureEvidence,
    Category,
    ModeVerdict,
    Plan,
    RecordVerdict,
    TriageResult,
)


def _capture_json(capture: CaptureEvidence) -> dict[str, Any]:
    return {m.mode: {"reproduced": m.reproduced, "n": m.n} for m in capture.modes}


def _deciding(record: RecordVerdict) -> ModeVerdict | None:
    return next((m for m in record.modes if m.mode == record.deciding_mode), None)


def _record_json(record: RecordVerdict) -> dict[str, Any]:
    deciding = _deciding(record)
    return {
        "key": record.key,
        "label": record.label,
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
        "modes": [mode_json(mode) for mode in record.modes],
    }


def _summary(result: TriageResult) -> dict[str, int]:
    counts = {"records": len(result.records), "inconclusive": result.count(Category.INCONCLUSIVE)}
    counts.update({c.value: result.count(c) for c in Category if c is not Category.INCONCLUSIVE})
    counts["regression_candidates"] = result.regression_candidates
    counts["vacuous"] = result.vacuous_records
    counts["held"] = result.held_records
    counts["unsampled"] = result.unsampled_records
    counts["unanswered"] = result.unanswered_records
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
        "allow_condition_mismatch": settings.allow_condition_mismatch,
        "allow_same_server": settings.allow_same_server,
        "model_check": settings.check_models,
        "power": settings.power,
        "shift": settings.shift,
        "tests": result.tests,
        "novelty_tests": result.novelty_tests,
        "distribution_tests": result.distribution_tests,
        "samples_for_bound": result.samples_for_bound,
        "unknown_sample_keys": list(result.unknown_sample_keys),
        "pool_runs": result.pool_runs,
        "control": {side: {"n": n, "distinct": d} for side, n, d in result.control},
        "vacuous": list(result.vacuous),
        "gaugeless": list(settings.gaugeless),
        "metrics_url_404": list(settings.metrics_url_404),
        "metrics_url_no_gauge": list(settings.metrics_url_no_gauge),
        "qualifications": list(result.qualifications),
        "runs": [asdict(run) for run in result.runs],
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
            "shift": plan.shift,
            "power": plan.power,
            "per_prompt": plan.per_prompt,
            "prompts": plan.prompts,
            "modes": plan.modes,
            "tests": plan.tests,
            "level": plan.level,
            "per_prompt_mmd": plan.per_prompt_mmd,
        },
        "verdict": {"ok": plan.exit_code == 0, "exit_code": int(plan.exit_code)},
    }
    return json_document(document, per_line=())


# The typed reader ---------------------------------------------------------------------------


@dataclass(frozen=True)
class TriageRecord:
    """One record's verdict."""

    key: str
    """The record's key."""
    comparison_status: str
    """The comparison's status of the record (`match`, `text-differs`, ...)."""
    category: str
    """The record's category."""
    flags: tuple[str, ...]
    """The record's flags (`vacuous`, `not-exercised`, ...)."""
    regression_candidate: bool
    """Whether it fails the policy."""
    deciding_mode: str | None
    """The mode that decided the category (None: none did)."""
    p_adjusted: float | None
    """The deciding mode's corrected p-value."""
    novelty_p_adjusted: float | None
    """The deciding mode's corrected novelty p-value."""
    more_samples: int | None
    """Samples per side that would decide it."""
    detectable: float | None
    """The least patch output share the deciding mode could have seen (None: not stated)."""
    modes: tuple[TriageMode, ...]
    """Every mode sampled."""
    label: str | None = None
    """How the user names the record (None in documents written before labels, or none)."""
    captures: Mapping[str, Mapping[str, tuple[int, int]]] | None = None
    """Per side with a capture, per mode sampled, (samples that gave the capture back,
    successful samples); None: a document that omits `captures`."""

    @property
    def name(self) -> str:
        """The label, or the key when there is none."""
        return self.key if self.label is None else self.label

    def flags_said(self, flags: Sequence[str]) -> str:
        """`flags` (the record's or a mode's) as the reports write them (`flag_label`)."""
        captures = {side: modes.values() for side, modes in (self.captures or {}).items()}
        return ", ".join(flag_label(flag, captures) for flag in flags)

    def deciding(self) -> TriageMode | None:
        """The mode that decided the category, the first mode when none is named, None
        without modes."""
        named = next((m for m in self.modes if m.mode == self.deciding_mode), None)
        return named or (self.modes[0] if self.modes else None)


@dataclass(frozen=True)
class TriageDocument:
    """A `k3diff.triage/1` document, typed: what the bundle reads of it."""

    comparison: str | None
    """The responses document it classified."""
    samples: tuple[str, ...]
    """The samples logs it read."""
    alpha: float
    """The significance level."""
    bound: float
    """The non-modal mass a stable side must be bounded by."""
    near_tie: float
    """The margin below which a split is a near-tie."""
    fail_inconclusive: bool
    """Inconclusive records fail the run (`--fail-inconclusive`)."""
    correction: str | None
    """How p-values were corrected across records and modes (None: not stated)."""
    capture_mode: str | None
    """The mode the captures were taken under (`--capture-mode`; None: their own evidence)."""
    allow_condition_mismatch: bool
    """Samples of another condition were shown rather than refused."""
    allow_same_server: bool
    """Base and patch sampled from one server were judged as an A/A run (`--allow-same-server`;
    false in a document written before the option, whose run held no such record)."""
    pool_runs: bool
    """Samples of several runs were pooled (`--pool-runs`)."""
    power: float | None
    """The power `detectable` is stated at (None: not stated)."""
    shift: float | None
    """`--shift`: a sampled non-rejection whose `detectable_shift` is above it (or None) is held
    `no-power` (None: a document written before the field was added within `k3diff.triage/1`)."""
    samples_for_bound: int | None
    """Samples per side that would reach `bound` (None: not stated)."""
    unknown_sample_keys: tuple[str, ...]
    """Sampled keys that are no record of the comparison."""
    vacuous: tuple[str, ...]
    """Sides whose control came back identical."""
    qualifications: tuple[str, ...]
    """What the evidence could not establish (empty for a document that does not say)."""
    summary: Mapping[str, int]
    """The document's counts, in its order."""
    records: tuple[TriageRecord, ...]
    """Every record's verdict."""
    run_ids: tuple[str, ...]
    """The sampling runs it read, each once (`runs[].identity`, else `run_id`; empty for a
    document that does not say)."""
    unlisted: tuple[str, ...]
    """The logs (`runs[].log`) whose header did not list the records their run asked
    (`runs[].asked` null, or absent: written before triage70): a record whose every line a log
    lacks was not checked."""
    ok: bool
    """The document's verdict."""
    exit_code: int
    """The exit code `triage` returned."""
    distribution_tests: int | None = None
    """The distribution tests in their family (None: a document that does not say)."""
    model_check: bool | None = None
    """The samples were held to the model their captures name (None: a document written
    before the check)."""
    gaugeless: tuple[str, ...] | None = None
    """The sides whose server was asked for its running-requests gauge and has none (the
    samples logs' header probe: `sample.metrics.exposes_no_gauge`), so no `--metrics-url`
    proves their batches (None: a document written before telem68, which does not say)."""
    metrics_url_404: tuple[str, ...] | None = None
    """The sides whose `--metrics-url` given answered HTTP 404: a URL to check (None: a document
    written before left69, which does not say)."""
    metrics_url_no_gauge: tuple[str, ...] | None = None
    """The sides whose `--metrics-url` given answered without a running-requests gauge: a URL to
    check, not a server no `--metrics-url` can help (None: written before left69)."""
    tests: int | None = None
    """The Fisher tests in their family (None: a document that does not say)."""
    novelty_tests: int | None = None
    """The novelty tests in their family (None: a document that does not say)."""


def _record(fields: Fields, alpha: float) -> TriageRecord:
    fields.hold_numbers(SHARE, "p", "novelty_p")
    fields.hold_counts("novelty")
    return TriageRecord(
        key=fields.string("key"),
        label=fields.optional_string("label"),
        comparison_status=fields.string("comparison_status"),
        category=fields.string("category", words.CATEGORIES),
        flags=fields.strings("flags", words.FLAGS),
        regression_candidate=fields.boolean("regression_candidate"),
        deciding_mode=fields.optional_string("deciding_mode", words.MODES),
        p_adjusted=fields.optional_number("p_adjusted", SHARE),
        novelty_p_adjusted=fields.optional_number("novelty_p_adjusted", SHARE),
        more_samples=fields.optional_integer("more_samples"),
        detectable=fields.optional_number("detectable", SHARE),
        modes=fields.each("modes", lambda mode: read_mode(mode, alpha)),
        captures=_captures(fields.object("captures")) if fields.has("captures") else None,
    )


def _captures(captures: Fields) -> dict[str, dict[str, tuple[int, int]]]:
    """`records[].captures`: per side, per mode, (reproduced, n)."""
    found: dict[str, dict[str, tuple[int, int]]] = {}
    for side in captures.names(SIDES):
        modes = captures.object(side)
        found[side] = {
            mode: (modes.object(mode).integer("reproduced"), modes.object(mode).integer("n"))
            for mode in modes.names(words.MODES)
        }
    return found


def _unlisted(fields: Fields) -> tuple[str, ...]:
    if not fields.has("runs"):
        return ()  # written before triage recorded its runs
    runs = fields.objects("runs")
    return tuple(run.string("log") for run in runs if run.optional_integer("asked") is None)


def _run_ids(fields: Fields) -> tuple[str, ...]:
    if not fields.has("runs"):
        return ()  # written before triage recorded its runs
    found = [
        run.optional_string("identity") or run.optional_string("run_id")
        for run in fields.objects("runs")
    ]
    return tuple(dict.fromkeys(run for run in found if run))


def read(body: object, name: str) -> TriageDocument:
    """The typed view of a `k3diff.triage/1` document; InputError naming the file and the
    field when one is missing or of another type."""
    fields = Fields(body, name)
    verdict = fields.object("verdict")
    alpha = fields.level("alpha")
    return TriageDocument(
        comparison=fields.optional_string("comparison"),
        samples=fields.strings("samples"),
        alpha=alpha,
        bound=fields.number("bound", SHARE),
        near_tie=fields.number("near_tie", NONNEGATIVE),
        fail_inconclusive=fields.optional_boolean("fail_inconclusive") is True,
        correction=fields.optional_string("correction", words.CORRECTIONS),
        capture_mode=fields.optional_string("capture_mode", words.MODES),
        allow_condition_mismatch=fields.optional_boolean("allow_condition_mismatch") is True,
        allow_same_server=fields.optional_boolean("allow_same_server") is True,
        model_check=fields.optional_boolean("model_check"),
        pool_runs=fields.optional_boolean("pool_runs") is True,
        power=fields.optional_number("power", SHARE),
        shift=fields.optional_number("shift", words.SHIFT),
        samples_for_bound=fields.optional_integer("samples_for_bound"),
        unknown_sample_keys=fields.strings("unknown_sample_keys"),
        vacuous=fields.strings("vacuous") if fields.has("vacuous") else (),
        qualifications=fields.strings("qualifications") if fields.has("qualifications") else (),
        summary=fields.counts("summary"),
        records=fields.each("records", lambda record: _record(record, alpha)),
        run_ids=_run_ids(fields),
        unlisted=_unlisted(fields),
        ok=verdict.boolean("ok"),
        exit_code=verdict.integer("exit_code"),
        distribution_tests=fields.optional_integer("distribution_tests"),
        tests=fields.optional_integer("tests"),
        novelty_tests=fields.optional_integer("novelty_tests"),
        gaugeless=_sides(fields, "gaugeless"),
        metrics_url_404=_sides(fields, "metrics_url_404"),
        metrics_url_no_gauge=_sides(fields, "metrics_url_no_gauge"),
    )


def _sides(fields: Fields, name: str) -> tuple[str, ...] | None:
    """A list of sides triage added within `k3diff.triage/1`; None where the document lacks it."""
    return fields.strings(name, SIDES) if fields.has(name) else None

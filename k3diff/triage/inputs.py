"""Reads the comparison triage joins with sample logs (`k3diff.triage.samples`): a
`k3diff.responses/1` document.

The reader checks everything it relies on and fails with one line naming the file (and the
record) and the problem. Fields it does not use are ignored, so documents may grow.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from k3diff import bounded
from k3diff.errors import InputError
from k3diff.ids import RESPONSES as COMPARISON_SCHEMA
from k3diff.sample.names import SIDES
from k3diff.sample.reader import looks_like_samples_log


@dataclass(frozen=True)
class ComparedRecord:
    """One key of the comparison, reduced to what triage uses."""

    key: str
    """The pairing key (the samples' `key`)."""
    status: str
    """The comparison's status for the key (text-differs, match, only-base, error, ...)."""
    base_present: bool
    """The base file has the record."""
    patch_present: bool
    """The patch file has the record."""
    base_xxh3: str | None
    """xxh3-128 of the captured base text (None when absent or failed)."""
    patch_xxh3: str | None
    """xxh3-128 of the captured patch text."""
    divergence_gaps: tuple[float, ...]
    """|gap| at the first divergence (the sampled token's logprob minus the best other token's,
    the larger side); in documents without it, each side's top-1 minus top-2 gap."""
    label: str | None = None
    """How the user names the record (the comparison's `label`), when it has one."""
    prompt_preview: str | None = None
    """The prompt's first characters, as the comparison shows them."""
    prompts: Mapping[str, str] = field(default_factory=dict)
    """Per side, the xxh3-128 of its captured prompt (sides whose record holds one)."""
    conditions: Mapping[str, CapturedCondition] = field(default_factory=dict)
    """Per side, its captured request's condition (sides whose record shows one)."""


@dataclass(frozen=True)
class CapturedCondition:
    """A captured request's condition, as far as the record shows it."""

    route: str | None
    """chat or completions (None: the record does not say)."""
    stream: bool | None
    """Whether the request asked for a stream (None: the record does not say)."""
    params: Mapping[str, Any] | None
    """The request's fields but prompt, model and stream (None: not recorded)."""
    complete: bool
    """The whole request body was recorded: a field absent from `params` was not sent."""


@dataclass(frozen=True)
class Comparison:
    """A `k3diff.responses/1` document."""

    path: str
    """The file as the user named it."""
    records: tuple[ComparedRecord, ...]
    """Every key, in document order."""
    pairing: str | None = None
    """How `k3diff responses` paired the records (field, id, prompt-hash, order), when recorded."""
    pairing_field: str | None = None
    """The `--key` field, when paired by one."""


def _load_json(path: Path) -> Any:
    if not path.exists():
        raise InputError(f"{path}: no such file")
    data = bounded.read_document(path, str(path), "k3diff responses --format json document")
    try:
        return bounded.loads(data, str(path))
    except json.JSONDecodeError as exc:
        if looks_like_samples_log(data):
            raise InputError(
                f"{path}: a k3diff.samples/1 log, not a {COMPARISON_SCHEMA} document: give the "
                "comparison first (k3diff responses --format json), then the samples logs"
            ) from exc
        raise InputError(
            f"{path}:{exc.lineno}: not JSON ({exc.msg}); expected the output of "
            "'k3diff responses BASE PATCH --format json'"
        ) from exc
    except UnicodeDecodeError as exc:
        raise InputError(f"{path}: not UTF-8 JSON") from exc


def read_comparison(path: Path) -> Comparison:
    """Read and check a `k3diff.responses/1` document."""
    document = _load_json(path)
    if not isinstance(document, dict) or document.get("schema") != COMPARISON_SCHEMA:
        found = document.get("schema") if isinstance(document, dict) else type(document).__name__
        raise InputError(f"{path}: not a {COMPARISON_SCHEMA} document (schema: {found!r})")
    records = document.get("records")
    if not isinstance(records, list):
        raise InputError(f"{path}: 'records' is missing or not a list")
    seen: set[str] = set()
    parsed = []
    for index, raw in enumerate(records):
        record = _compared_record(raw, f"{path}: records[{index}]")
        if record.key in seen:
            raise InputError(f"{path}: records[{index}]: key {record.key!r} appears twice")
        seen.add(record.key)
        parsed.append(record)
    pairing = document.get("pairing")
    pairing = pairing if isinstance(pairing, dict) else {}
    mode, field = pairing.get("key"), pairing.get("field")
    return Comparison(
        path=str(path),
        records=tuple(parsed),
        pairing=mode if isinstance(mode, str) else None,
        pairing_field=field if isinstance(field, str) else None,
    )


def _side_digest(raw: Mapping[str, Any], side: str, where: str) -> tuple[bool, str | None]:
    value = raw.get(side)
    if value is None:
        return False, None
    if not isinstance(value, dict):
        raise InputError(f"{where}: '{side}' is not an object or null")
    digest = value.get("text_xxh3")
    if digest is not None and not isinstance(digest, str):
        raise InputError(f"{where}: '{side}.text_xxh3' is not a string")
    return True, digest


def _divergence_gaps(raw: Mapping[str, Any], where: str) -> tuple[float, ...]:
    divergence = raw.get("divergence")
    logprobs = divergence.get("logprobs") if isinstance(divergence, dict) else None
    if not isinstance(logprobs, dict):
        return ()
    labelled = logprobs.get("gap")
    if isinstance(logprobs.get("label"), str) and isinstance(labelled, int | float):
        if isinstance(labelled, bool) or not math.isfinite(labelled):
            raise InputError(f"{where}: divergence.logprobs.gap is not a number: {labelled!r}")
        return (abs(float(labelled)),)
    gaps = []
    for side in SIDES:
        point = logprobs.get(side)
        gap = point.get("gap") if isinstance(point, dict) else None
        if gap is None:
            continue
        if isinstance(gap, bool) or not isinstance(gap, int | float) or not math.isfinite(gap):
            raise InputError(f"{where}: divergence.logprobs.{side}.gap is not a number: {gap!r}")
        gaps.append(float(gap))
    return tuple(gaps)


def _compared_record(raw: Any, where: str) -> ComparedRecord:
    if not isinstance(raw, dict):
        raise InputError(f"{where}: not an object")
    key, status = raw.get("key"), raw.get("status")
    if not isinstance(key, str):
        raise InputError(f"{where}: 'key' is missing or not a string")
    if not isinstance(status, str):
        raise InputError(f"{where} (key {key!r}): 'status' is missing or not a string")
    base_present, base_xxh3 = _side_digest(raw, "base", where)
    patch_present, patch_xxh3 = _side_digest(raw, "patch", where)
    preview = raw.get("prompt_preview")
    return ComparedRecord(
        key=key,
        status=status,
        base_present=base_present,
        patch_present=patch_present,
        base_xxh3=base_xxh3,
        patch_xxh3=patch_xxh3,
        divergence_gaps=_divergence_gaps(raw, where),
        label=raw.get("label") if isinstance(raw.get("label"), str) else None,
        prompt_preview=preview if isinstance(preview, str) else None,
        prompts={
            side: digest
            for side in SIDES
            if isinstance(raw.get(side), dict)
            and isinstance(digest := raw[side].get("prompt_xxh3"), str)
        },
        conditions={
            side: condition
            for side in SIDES
            if isinstance(raw.get(side), dict)
            and (condition := _condition(raw[side].get("request"), f"{where}.{side}")) is not None
        },
    )


def _condition(value: Any, where: str) -> CapturedCondition | None:
    """A side's `request` object, checked."""
    if value is None:
        return None
    route, stream, params = (
        value.get(name) if isinstance(value, dict) else None
        for name in ("route", "stream", "params")
    )
    if (
        not isinstance(value, dict)
        or route not in ("chat", "completions", None)
        or not isinstance(stream, bool | None)
        or not isinstance(params, dict | None)
    ):
        raise InputError(f"{where}: 'request' is not a request condition object")
    return CapturedCondition(route, stream, params, value.get("complete") is True)

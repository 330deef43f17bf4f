"""Reads the prompts to sample: a JSONL of requests, or any responses file `k3diff responses` reads.

A requests file has one JSON object per line holding `prompt` or `messages`, any other request
fields (max_tokens, temperature, seed, ...) and optionally `key` (else `id`, else the prompt's
xxh3-128 is the key). A responses file lends its requests and its keys (the records' ids when
every record has a unique one, else the prompt's hash: what `k3diff responses` pairs by), so
samples join that comparison by key.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from k3diff import bounded
from k3diff.errors import InputError, ResponseFormatError
from k3diff.responses.loaders import load_side, pick_loader, read_head
from k3diff.responses.model import LoadOptions, text_digest
from k3diff.responses.shapes import FLAT_PROMPT_KEYS, FLAT_TEXT_KEYS
from k3diff.sample.model import Endpoint, PromptRecord

RESPONSE_MARKERS = ("choices", "response", "resps", *FLAT_TEXT_KEYS)
"""Fields that make a record a captured response rather than a request."""
CONTROLLED_FIELDS = ("stream", "stream_options")
"""Request fields `k3diff sample` sets itself (from `--stream`)."""

_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def prompt_digest(prompt: Any) -> str:
    """xxh3-128 of a prompt exactly as `k3diff responses` hashes one (its prompt-hash key)."""
    return text_digest(prompt if isinstance(prompt, str) else _CANONICAL.encode(prompt))


def read_prompts(path: Path) -> list[PromptRecord]:
    """Every request of the prompts file, in file order; keys are unique."""
    display = str(path)
    if not path.exists():
        raise InputError(f"{display}: cannot read: no such file")
    head = read_head(path, display)
    first = head.first_object
    if first is not None and _is_request(first):
        records = list(_request_lines(path, display))
    else:
        records = _from_responses(path, display)
    _check_unique(records, display)
    return records


def infer_endpoint(records: list[PromptRecord]) -> Endpoint:
    """Chat when the requests hold messages, completions when they hold prompts; never mixed."""
    chat = {("messages" in r.body) for r in records}
    if len(chat) > 1:
        where = next(r.where for r in records if "messages" not in r.body)
        raise InputError(f"{where}: mixes prompt and messages requests; pass --endpoint")
    return Endpoint.CHAT if chat == {True} else Endpoint.COMPLETIONS


def check_endpoint(records: list[PromptRecord], endpoint: Endpoint) -> None:
    """Every request carries what the endpoint needs."""
    field = "messages" if endpoint is Endpoint.CHAT else "prompt"
    for record in records:
        if field not in record.body:
            raise InputError(f"{record.where}: no '{field}' for the {endpoint.value} endpoint")


def _is_request(obj: dict[str, Any]) -> bool:
    return ("prompt" in obj or "messages" in obj) and not any(k in obj for k in RESPONSE_MARKERS)


def _request_lines(path: Path, display: str) -> Iterator[PromptRecord]:
    for lineno, raw in bounded.file_lines(path, display, "prompts file"):
        if not raw.strip():
            continue
        where = f"{display}:{lineno}"
        obj = _loads(raw, where)
        if not _is_request(obj):
            raise ResponseFormatError(f"{where}: a request needs 'prompt' or 'messages'")
        body = {k: v for k, v in obj.items() if k not in ("key", *CONTROLLED_FIELDS)}
        key = obj.get("key")
        if key is None and "id" in obj:
            key = body.pop("id")
        if key is None:
            key = prompt_digest(obj.get("messages", obj.get("prompt")))
        yield PromptRecord(
            key=key if isinstance(key, str) else json.dumps(key), body=body, where=where
        )


def _loads(raw: bytes, where: str) -> dict[str, Any]:
    try:
        value = bounded.loads(raw, where)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ResponseFormatError(f"{where}: malformed JSON: {exc}") from exc
    if not isinstance(value, dict):
        raise ResponseFormatError(f"{where}: expected a JSON object")
    return value


def _from_responses(path: Path, display: str) -> list[PromptRecord]:
    side = load_side(path, display, LoadOptions())
    ids = [r.id for r in side.records]
    use_ids = None not in ids and len(set(ids)) == len(ids)
    raws = _raw_objects(path, display, side.format)
    records = []
    for record, raw in zip(side.records, raws, strict=True):
        where = side.where(record)
        body = _request_of(raw)
        if body is None or record.prompt_digest is None:
            raise InputError(f"{where}: the record holds no prompt to send")
        key = record.id if use_ids else record.prompt_digest
        assert key is not None
        records.append(PromptRecord(key=key, body=body, where=where))
    return records


def _raw_objects(path: Path, display: str, format_name: str) -> list[dict[str, Any]]:
    if format_name in ("jsonl", "lm-eval"):
        return [
            _loads(raw, f"{display}:{lineno}")
            for lineno, raw in bounded.file_lines(path, display, "prompts file")
            if raw.strip()
        ]
    if format_name in ("json-array", "document"):
        data = bounded.read_document(path, display, "prompts file")
        document = bounded.loads(data.decode("utf-8-sig"), display)
        if isinstance(document, dict):
            wrapped = next(
                (
                    document[k]
                    for k in ("responses", "records")
                    if isinstance(document.get(k), list)
                ),
                None,
            )
            return wrapped if wrapped is not None else [document]
        return list(document)
    loader = pick_loader(read_head(path, display))
    raise InputError(f"{display}: a {loader.name} file holds no requests to send")


def _request_of(raw: dict[str, Any]) -> dict[str, Any] | None:
    request = raw.get("request")
    if isinstance(request, dict):
        body = request.get("body", request)
        if isinstance(body, dict) and ("prompt" in body or "messages" in body):
            return {k: v for k, v in body.items() if k not in CONTROLLED_FIELDS}
    for name in FLAT_PROMPT_KEYS:
        if name in raw and raw[name] is not None:
            value = raw[name]
            return {"messages": value} if isinstance(value, list) else {"prompt": value}
    prompt = _lm_eval_prompt(raw)
    return None if prompt is None else {"prompt": prompt}


def _lm_eval_prompt(raw: dict[str, Any]) -> str | None:
    arguments = raw.get("arguments")
    first: Any = None
    if isinstance(arguments, dict) and arguments:
        value = next(iter(arguments.values()))
        first = value.get("arg_0") if isinstance(value, dict) else None
    elif isinstance(arguments, list) and arguments and isinstance(arguments[0], list):
        first = arguments[0][0] if arguments[0] else None
    return first if isinstance(first, str) else None


def _check_unique(records: list[PromptRecord], display: str) -> None:
    if not records:
        raise InputError(f"{display}: no prompts")
    seen: dict[str, str] = {}
    for record in records:
        if record.key in seen:
            raise InputError(
                f"{record.where}: key {record.key!r} repeats {seen[record.key]}; keys must be unique"
            )
        seen[record.key] = record.where

"""How one choice's `Parts` become a `ResponseRecord`: the pieces every shape shares.

A shape (`k3diff.responses.shapes`, `engines`, `lmeval`, the inspect_ai and vllm bench readers)
says where a record's text, token ids, prompt and other fields are; this module normalises
them the same way for all: run state split from the compared fields, the rest as canonical
JSON, prompt and request digests, the request's condition, the pairing key and the label.
"""

from __future__ import annotations

import json
from array import array
from dataclasses import replace
from typing import Any

from k3diff.errors import ResponseFormatError
from k3diff.responses.logprobs import parse_logprobs
from k3diff.responses.model import TOKEN_ID_TYPECODE, LoadOptions, ResponseRecord, text_digest
from k3diff.responses.parts import CLIENT_KEY_FIELDS, MISSING, Parts, canonical, lookup
from k3diff.responses.runstate import split_run_state
from k3diff.responses.tokenbytes import holds_bool

PREVIEW_CHARS = 60


def records_from_parts(
    choices: list[Parts],
    obj: dict[str, Any],
    where: str,
    options: LoadOptions,
    line: int = 1,
) -> list[ResponseRecord]:
    """Records from parts a format reader extracted itself (inspect_ai logs, vllm bench
    results); `--key` is looked up in `obj`, the client key is the parts' own."""
    key = key_value(obj, options.key_path, where)
    client: tuple[str | None, str | None] = (None, None)
    if choices and choices[0].client_key is not None:
        client = choices[0].client_key
    label = key if key is not None else client[0]
    return [make_record(parts, where, line, None, options, key, client, label) for parts in choices]


def make_record(
    parts: Parts,
    where: str,
    line: int,
    index: int | None,
    options: LoadOptions,
    key: str | None,
    client: tuple[str | None, str | None],
    label: str | None,
) -> ResponseRecord:
    """One `ResponseRecord` from a choice's parts, with its key, client key and label."""
    usage, other, run_state = split_run_state(
        _usage(parts.usage), parts.other, options.include_volatile
    )
    run_state.update(parts.run_state)
    prompt_text = None if parts.prompt is None else _prompt_text(parts.prompt)
    return ResponseRecord(
        line=line,
        id=scalar_text(parts.id),
        key=key,
        prompt_digest=None if prompt_text is None else text_digest(prompt_text),
        request_digest=_request_digest(parts),
        client_key=client[0],
        client_key_field=client[1],
        choice=parts.choice,
        index=index,
        prompt_preview=None if prompt_text is None else preview(prompt_text),
        text=parts.text,
        token_ids=_token_ids(parts.token_ids, where),
        logprobs=parts.trace if parts.trace is not None else parse_logprobs(parts.logprobs, where),
        finish_reason=_optional_str(parts.finish_reason, "finish_reason", where),
        usage=usage,
        fingerprint=_optional_str(parts.fingerprint, "fingerprint", where),
        other=canonical(other),
        error=parts.error,
        run_state=run_state or None,
        lm_eval=parts.lm_eval,
        scores=parts.scores,
        member=parts.member,
        label=label if label is None or parts.choice is None else f"{label}#{parts.choice}",
        condition=_condition(parts),
        # Kept as the server named it where it is a string (else it stays among the compared
        # fields only): the comparison and triage hold each side to it.
        model=parts.model if isinstance(parts.model, str) else None,
        beams=parts.beams,
    )


def _condition(parts: Parts) -> str | None:
    """The record's request condition (`ResponseRecord.condition`), None when it shows none."""
    params = parts.request_params
    if not parts.request_complete and not params:
        params = None  # a flat record without parameters says nothing of its request
    if parts.route is None and parts.stream is None and params is None:
        return None
    if params is None:  # a response without its request: a handful of values per file
        known = (parts.route, parts.stream, parts.request_complete)
        text = _PARAMLESS_CONDITIONS.get(known)
        if text is None:
            text = _PARAMLESS_CONDITIONS[known] = _condition_text(*known, None)
        return text
    return _condition_text(parts.route, parts.stream, parts.request_complete, params)


def route_condition(route: str) -> str | None:
    """The condition of a response object answered on `route`, without its request."""
    return _condition(Parts(text="", route=route))


_PARAMLESS_CONDITIONS: dict[tuple[str | None, bool | None, bool], str] = {}
"""`_condition_text` of each (route, stream, complete) seen without parameters."""


def _condition_text(
    route: str | None, stream: bool | None, complete: bool, params: dict[str, Any] | None
) -> str:
    return canonical({"route": route, "stream": stream, "params": params, "complete": complete})


def with_stream(record: ResponseRecord) -> ResponseRecord:
    """`record` as one read from a stream (an SSE transcript): its condition says so."""
    condition = json.loads(record.condition) if record.condition is not None else {}
    condition = {"route": None, "params": None, "complete": False, **condition, "stream": True}
    return replace(record, condition=canonical(condition))


def _request_digest(parts: Parts) -> str | None:
    if parts.prompt is None or parts.request_params is None:
        return None
    return text_digest(canonical({"prompt": parts.prompt, "params": parts.request_params}))


def client_key_of(obj: dict[str, Any]) -> tuple[str | None, str | None]:
    """(value, field) of the first client key field `obj` holds (`CLIENT_KEY_FIELDS`)."""
    for name in CLIENT_KEY_FIELDS:
        value = obj.get(name)
        if value is not None and not isinstance(value, dict | list):
            return scalar_text(value), name
    return None, None


def _prompt_text(prompt: Any) -> str:
    return prompt if isinstance(prompt, str) else canonical(prompt)


def preview(text: str) -> str:
    """The first characters of a prompt on one line, for reports."""
    flat = " ".join(text.split())
    return flat if len(flat) <= PREVIEW_CHARS else flat[: PREVIEW_CHARS - 1] + "…"


def scalar_text(value: Any) -> str | None:
    """A scalar as text: strings as they are, other values as canonical JSON."""
    if value is None:
        return None
    return value if isinstance(value, str) else canonical(value)


def _optional_str(value: Any, name: str, where: str) -> str | None:
    if value is None or isinstance(value, str):
        return value
    raise ResponseFormatError(f"{where}: {name} is not a string: {value!r}")


def _token_ids(value: Any, where: str) -> array[int] | None:
    if value is None:
        return None
    if not isinstance(value, list) or holds_bool(value):
        raise ResponseFormatError(f"{where}: token_ids is not a list of integers")
    try:
        # array() rejects floats, strings and nulls itself, far faster than checking each id.
        return array(TOKEN_ID_TYPECODE, value)
    except TypeError as exc:
        raise ResponseFormatError(f"{where}: token_ids is not a list of integers") from exc
    except OverflowError as exc:
        raise ResponseFormatError(f"{where}: token id out of 64-bit range") from exc


def _usage(value: Any) -> dict[str, Any] | None:
    return value if isinstance(value, dict) else None


def key_value(obj: dict[str, Any], path: tuple[str, ...] | None, where: str) -> str | None:
    """The `--key` value of `obj` as text (None without `--key`); a format error when absent."""
    if path is None:
        return None
    value = lookup(obj, path)
    if value is MISSING or value is None:
        raise ResponseFormatError(f"{where}: no field '{'.'.join(path)}' (--key)")
    return scalar_text(value)

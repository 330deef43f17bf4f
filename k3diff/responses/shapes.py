"""Record shapes: how one raw JSON object becomes one `ResponseRecord` per choice.

Shapes are tried in this order, first claim wins (each can say "not mine"):

0. ``error``      a failed request: a non-empty ``error`` field (OpenAI error objects, batch
                  output lines whose request failed, k3diff samples, SSE error events and cut
                  streams), or a wrapped response whose body is an error or whose
                  ``status_code`` is not 2xx (`k3diff.responses.failed`). It becomes a record
                  with an empty text and the error message, compared as status ``error``.
   ``field``      with ``--text-field PATH``: the text at that path (and the token ids at
                  ``--tokens-field PATH``), whatever else the record holds.
1. ``wrapped``    ``{"request": {...}, "response": {...}}`` and OpenAI batch output
                  (``{"custom_id", "response": {"body": {...}}}``); the response inside is read
                  with the shapes below, the prompt and parameters come from the request.
2. ``chat``       a chat-completion object (``choices[i].message``), one record per choice.
3. ``completion`` a completion object (``choices[i].text``), one record per choice.
4. ``vllm``       a vLLM ``RequestOutput`` dump (``outputs[i].text``, ``token_ids``, ``logprobs``).
5. ``trtllm``     a TensorRT-LLM batch record: ``text`` a list (one per beam), ``output_ids`` a
                  list of lists; beam 0 unless ``--beam N``.
6. ``sglang``     an SGLang ``/generate`` answer: ``text``, ``output_ids``, ``meta_info``.
7. ``lm-eval``    an lm-evaluation-harness sample (``doc_id`` with ``resps``; see
                  `k3diff.responses.lmeval`).
8. ``flat``       a plain record with a text field (``text``, ``output``, ``completion``, ...).

A response with several choices (n > 1) gives one record per choice, keyed ``KEY#i``.
"""

from __future__ import annotations

import json
from typing import Any, Protocol

from k3diff.errors import ResponseFormatError
from k3diff.responses.assemble import (
    client_key_of,
    key_value,
    make_record,
    preview,
    records_from_parts,
    scalar_text,
    with_stream,
)
from k3diff.responses.engines import SglangShape, TrtllmShape, VllmShape, field_parts, tokens_at
from k3diff.responses.failed import ErrorShape, request_body
from k3diff.responses.lmeval import LmEvalShape
from k3diff.responses.model import LoadOptions, ResponseRecord, text_digest
from k3diff.responses.parts import (
    CLIENT_KEY_FIELDS,
    PROMPT_KEYS,
    Parts,
    choice_fields,
    choices_of,
    first_choice,
    flat_params,
    message_text,
    refuse_two_texts,
    request_params,
    without,
)

__all__ = [
    "FLAT_TEXT_KEYS",
    "SHAPES",
    "RecordShape",
    "preview",
    "record_from_raw",
    "records_from_parts",
    "records_from_raw",
    "with_stream",
]

FLAT_TEXT_KEYS = ("text", "output", "completion", "response", "generated_text", "output_text")
TOKEN_ID_KEYS = ("token_ids", "output_token_ids", "output_ids")


class RecordShape(Protocol):
    """One way a response record can look."""

    name: str

    def claims(self, obj: dict[str, Any]) -> bool:
        """True when this shape reads `obj`."""

    def extract(self, obj: dict[str, Any], where: str, options: LoadOptions) -> list[Parts]:
        """Pull each choice's parts out of `obj` (only called when `claims` said yes)."""


def _openai_parts(
    obj: dict[str, Any], choice: dict[str, Any], text: str, number: int | None
) -> Parts:
    other = without(obj, "choices", "usage", "system_fingerprint", "prompt_logprobs")
    if isinstance(other.get("prompt_token_ids"), list):
        # Prompt token ids can be long; their digest is enough to notice a tokenizer change.
        other["prompt_token_ids"] = text_digest(json.dumps(other["prompt_token_ids"]))
    other["choice"] = choice_fields(choice)
    return Parts(
        text=text,
        id=obj.get("id"),
        prompt=obj.get("prompt"),
        token_ids=choice.get("token_ids"),
        logprobs=choice.get("logprobs"),
        finish_reason=choice.get("finish_reason"),
        usage=obj.get("usage"),
        fingerprint=obj.get("system_fingerprint"),
        model=obj.get("model"),
        other=other,
        choice=number,
    )


def _choice_number(choice: dict[str, Any], position: int, count: int) -> int | None:
    if count == 1:
        return None
    index = choice.get("index")
    return index if isinstance(index, int) and not isinstance(index, bool) else position


class ChatShape:
    """A chat-completion object."""

    name = "chat"

    def claims(self, obj: dict[str, Any]) -> bool:
        choice = first_choice(obj)
        return choice is not None and isinstance(choice.get("message"), dict)

    def extract(self, obj: dict[str, Any], where: str, options: LoadOptions) -> list[Parts]:
        choices = choices_of(obj) or []
        parts = []
        for position, choice in enumerate(choices):
            message = choice.get("message")
            text = message_text(message.get("content")) if isinstance(message, dict) else None
            if text is None:
                raise ResponseFormatError(
                    f"{where}: message content is neither text nor text parts"
                )
            refuse_two_texts(choice.get("text"), text, "message", where, position)
            number = _choice_number(choice, position, len(choices))
            parts.append(_openai_parts(obj, choice, text, number))
            parts[-1].route = "chat"
        return parts


class CompletionShape:
    """A completion object."""

    name = "completion"

    def claims(self, obj: dict[str, Any]) -> bool:
        choice = first_choice(obj)
        return choice is not None and isinstance(choice.get("text"), str)

    def extract(self, obj: dict[str, Any], where: str, options: LoadOptions) -> list[Parts]:
        choices = choices_of(obj) or []
        parts = []
        for position, choice in enumerate(choices):
            if not isinstance(choice.get("text"), str):
                raise ResponseFormatError(f"{where}: choices[{position}].text is not a string")
            number = _choice_number(choice, position, len(choices))
            parts.append(_openai_parts(obj, choice, choice["text"], number))
            parts[-1].route = "completions"
        return parts


class WrappedShape:
    """A response stored with the request that produced it."""

    name = "wrapped"

    def claims(self, obj: dict[str, Any]) -> bool:
        return isinstance(obj.get("response"), dict)

    def extract(self, obj: dict[str, Any], where: str, options: LoadOptions) -> list[Parts]:
        response = obj["response"]
        body = response.get("body") if isinstance(response.get("body"), dict) else response
        inner = next((s for s in (ChatShape(), CompletionShape()) if s.claims(body)), None)
        if inner is None:
            raise ResponseFormatError(f"{where}: wrapped response has no text field")
        choices = inner.extract(body, where, options)
        request = request_body(obj)
        for parts in choices:
            if request is not None:
                parts.prompt = request.get("prompt", request.get("messages"))
                parts.request_params = request_params(request)
                parts.stream = bool(request.get("stream", False))
                parts.request_complete = True
                parts.other["request"] = without(request, "prompt", "messages")
            parts.other.update(without(obj, "request", "response", "id", *CLIENT_KEY_FIELDS))
            parts.id = obj.get("id", parts.id)
        return choices


class FlatShape:
    """A plain record with a text field."""

    name = "flat"

    def claims(self, obj: dict[str, Any]) -> bool:
        return any(isinstance(obj.get(key), str) for key in FLAT_TEXT_KEYS)

    def extract(self, obj: dict[str, Any], where: str, options: LoadOptions) -> list[Parts]:
        text_key = next(key for key in FLAT_TEXT_KEYS if isinstance(obj.get(key), str))
        prompt_key = next((key for key in PROMPT_KEYS if key in obj), None)
        # vLLM's return_token_ids, other servers' output_token_ids, SGLang /generate's output_ids
        token_key = next((k for k in TOKEN_ID_KEYS if k in obj), TOKEN_ID_KEYS[0])
        taken = {text_key, token_key, "logprobs", "finish_reason", "usage", "id"}
        taken |= {"system_fingerprint", "fingerprint", prompt_key or "", *CLIENT_KEY_FIELDS}
        return [
            Parts(
                text=obj[text_key],
                id=obj.get("id"),
                prompt=obj.get(prompt_key) if prompt_key else None,
                token_ids=obj.get(token_key),
                logprobs=obj.get("logprobs"),
                finish_reason=obj.get("finish_reason"),
                usage=obj.get("usage"),
                fingerprint=obj.get("system_fingerprint", obj.get("fingerprint")),
                model=obj.get("model"),
                other=without(obj, *taken),
                request_params=flat_params(obj),
            )
        ]


SHAPES: tuple[RecordShape, ...] = (
    ErrorShape(),
    WrappedShape(),
    ChatShape(),
    CompletionShape(),
    VllmShape(),
    TrtllmShape(),
    SglangShape(),
    LmEvalShape(),
    FlatShape(),
)

NO_TEXT_HINT = (
    "looked for choices[i].text, choices[i].message.content, outputs[i].text, resps, "
    + ", ".join(FLAT_TEXT_KEYS)
    + "; name it with --text-field PATH"
)


def _no_text(obj: dict[str, Any], where: str) -> ResponseFormatError:
    null = next((key for key in FLAT_TEXT_KEYS if key in obj and obj[key] is None), None)
    if null is not None:
        return ResponseFormatError(f"{where}: text is null (field '{null}')")
    return ResponseFormatError(f"{where}: record has no text field ({NO_TEXT_HINT})")


def records_from_raw(
    obj: dict[str, Any],
    where: str,
    line: int,
    options: LoadOptions,
    key_source: dict[str, Any] | None = None,
    index: int | None = None,
) -> list[ResponseRecord]:
    """Read one raw record with the first shape that claims it: one record per choice.

    `--key` and the client key are looked up in `key_source` (default: `obj` itself).
    """
    if options.text_field is not None and not ErrorShape().claims(obj):
        choices = [field_parts(obj, where, options)]
    else:
        for shape in SHAPES:
            if shape.claims(obj):
                break
        else:
            raise _no_text(obj, where)
        choices = shape.extract(obj, where, options)
        if options.tokens_field is not None:
            tokens = tokens_at(obj, options.tokens_field, where)
            for parts in choices:
                parts.token_ids = tokens
    source = obj if key_source is None else key_source
    key = key_value(source, options.key_path, where)
    client: tuple[str | None, str | None] = (None, None)
    if choices and choices[0].client_key is not None:
        client = choices[0].client_key
    elif choices and choices[0].client_keyable:
        client = client_key_of(source)
    label = key if key is not None else client[0]
    if label is None:
        label = _user_id(source)
    return [
        make_record(parts, where, line, index, options, key, client, label) for parts in choices
    ]


def _user_id(obj: dict[str, Any]) -> str | None:
    """The record's top-level `id` when the user wrote it: a server's response object (one with
    `object` or `choices`) carries an id the server made up for this run, which names nothing."""
    if "object" in obj or "choices" in obj:
        return None
    value = obj.get("id")
    if value is None or isinstance(value, dict | list | bool) or value in _response_ids(obj):
        return None
    return scalar_text(value)


def _response_ids(obj: dict[str, Any]) -> tuple[Any, ...]:
    """The ids of a wrapped response (a wrapper that copies its response's id names nothing)."""
    response = obj.get("response")
    if not isinstance(response, dict):
        return ()
    body = response.get("body")
    return (response.get("id"), body.get("id") if isinstance(body, dict) else None)


def record_from_raw(
    obj: dict[str, Any],
    where: str,
    line: int,
    options: LoadOptions,
    key_source: dict[str, Any] | None = None,
) -> ResponseRecord:
    """Like `records_from_raw` for a response that must hold exactly one choice."""
    records = records_from_raw(obj, where, line, options, key_source)
    if len(records) != 1:
        raise ResponseFormatError(f"{where}: {len(records)} choices where one was expected")
    return records[0]

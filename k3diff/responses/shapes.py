"""Record shapes: how one raw JSON object becomes a `ResponseRecord`.

Shapes are tried in this order, first claim wins (each can say "not mine"):

0. ``error``      a failed request: a non-empty ``error`` field (OpenAI error objects, batch
                  output lines whose request failed, k3diff samples, SSE error events), or a
                  wrapped response whose body is an error. It becomes a record with an empty
                  text and the error message, compared as status ``error``.
1. ``wrapped``    ``{"request": {...}, "response": {...}}`` and OpenAI batch output
                  (``{"custom_id", "response": {"body": {...}}}``); the response inside is read
                  with the shapes below, the prompt comes from the request.
2. ``chat``       a chat-completion object (``choices[0].message``).
3. ``completion`` a completion object (``choices[0].text``).
4. ``lm-eval``    an lm-evaluation-harness sample (``doc_id`` with ``resps``).
5. ``flat``       a plain record with a text field (``text``, ``output``, ``completion``, ...).
"""

from __future__ import annotations

import json
from array import array
from dataclasses import dataclass, field
from typing import Any, Protocol

from k3diff.errors import ResponseFormatError
from k3diff.responses.logprobs import parse_logprobs
from k3diff.responses.model import TOKEN_ID_TYPECODE, LoadOptions, ResponseRecord, text_digest
from k3diff.responses.volatile import drop_volatile

FLAT_TEXT_KEYS = ("text", "output", "completion", "response", "generated_text", "output_text")
FLAT_PROMPT_KEYS = ("prompt", "messages", "input", "question")
TOKEN_ID_KEYS = ("token_ids", "output_token_ids", "output_ids")
PREVIEW_CHARS = 60


@dataclass
class Parts:
    """What a shape extracts before the common normalisation."""

    text: str
    id: Any = None
    prompt: Any = None
    token_ids: Any = None
    logprobs: Any = None
    finish_reason: Any = None
    usage: Any = None
    fingerprint: Any = None
    other: dict[str, Any] = field(default_factory=dict)
    error: str | None = None


class RecordShape(Protocol):
    """One way a response record can look."""

    name: str

    def claims(self, obj: dict[str, Any]) -> bool:
        """True when this shape reads `obj`."""

    def extract(self, obj: dict[str, Any], where: str) -> Parts:
        """Pull the record's parts out of `obj` (only called when `claims` said yes)."""


def _first_choice(obj: dict[str, Any]) -> dict[str, Any] | None:
    choices = obj.get("choices")
    if isinstance(choices, list) and choices and isinstance(choices[0], dict):
        return choices[0]
    return None


def _without(obj: dict[str, Any], *keys: str) -> dict[str, Any]:
    return {k: v for k, v in obj.items() if k not in keys}


def _openai_parts(obj: dict[str, Any], choice: dict[str, Any], text: str, where: str) -> Parts:
    if len(obj["choices"]) != 1:
        raise ResponseFormatError(
            f"{where}: {len(obj['choices'])} choices; k3diff compares one choice per record"
        )
    other = _without(obj, "choices", "usage", "system_fingerprint", "prompt_logprobs")
    if isinstance(other.get("prompt_token_ids"), list):
        # Prompt token ids can be long; their digest is enough to notice a tokenizer change.
        other["prompt_token_ids"] = text_digest(json.dumps(other["prompt_token_ids"]))
    rest = _without(choice, "text", "message", "logprobs", "token_ids", "finish_reason")
    message = choice.get("message")
    if isinstance(message, dict):
        rest["message"] = _without(message, "content")
    other["choice"] = rest
    return Parts(
        text=text,
        id=obj.get("id"),
        prompt=obj.get("prompt"),
        token_ids=choice.get("token_ids"),
        logprobs=choice.get("logprobs"),
        finish_reason=choice.get("finish_reason"),
        usage=obj.get("usage"),
        fingerprint=obj.get("system_fingerprint"),
        other=other,
    )


def _message_text(content: Any) -> str | None:
    if content is None:
        return ""  # a tool-call-only message has no text; tool calls stay in the compared fields
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        pieces = [p.get("text") for p in content if isinstance(p, dict)]
        if all(isinstance(p, str) for p in pieces):
            return "".join(pieces)  # type: ignore[arg-type]
    return None


class ChatShape:
    """A chat-completion object."""

    name = "chat"

    def claims(self, obj: dict[str, Any]) -> bool:
        choice = _first_choice(obj)
        return choice is not None and isinstance(choice.get("message"), dict)

    def extract(self, obj: dict[str, Any], where: str) -> Parts:
        choice = _first_choice(obj)
        assert choice is not None
        text = _message_text(choice["message"].get("content"))
        if text is None:
            raise ResponseFormatError(f"{where}: message content is neither text nor text parts")
        return _openai_parts(obj, choice, text, where)


class CompletionShape:
    """A completion object."""

    name = "completion"

    def claims(self, obj: dict[str, Any]) -> bool:
        choice = _first_choice(obj)
        return choice is not None and isinstance(choice.get("text"), str)

    def extract(self, obj: dict[str, Any], where: str) -> Parts:
        choice = _first_choice(obj)
        assert choice is not None
        return _openai_parts(obj, choice, choice["text"], where)


class WrappedShape:
    """A response stored with the request that produced it."""

    name = "wrapped"

    def claims(self, obj: dict[str, Any]) -> bool:
        return isinstance(obj.get("response"), dict)

    def extract(self, obj: dict[str, Any], where: str) -> Parts:
        response = obj["response"]
        body = response.get("body") if isinstance(response.get("body"), dict) else response
        inner = next((s for s in (ChatShape(), CompletionShape()) if s.claims(body)), None)
        if inner is None:
            raise ResponseFormatError(f"{where}: wrapped response has no text field")
        parts = inner.extract(body, where)
        request = obj.get("request")
        request = request.get("body", request) if isinstance(request, dict) else {}
        if isinstance(request, dict):
            parts.prompt = request.get("prompt", request.get("messages"))
            parts.other["request"] = _without(request, "prompt", "messages")
        parts.other.update(_without(obj, "request", "response", "id", "custom_id"))
        parts.id = obj.get("custom_id", obj.get("id", parts.id))
        return parts


def _error_value(obj: dict[str, Any]) -> Any:
    """The error an object carries, itself or in its wrapped response body; None if none."""
    if obj.get("error") not in (None, "", {}):
        return obj["error"]
    response = obj.get("response")
    if isinstance(response, dict) and _first_choice(response) is None:
        body = response.get("body")
        if isinstance(body, dict) and _first_choice(body) is None:
            response = body
        if response.get("error") not in (None, "", {}):
            return response["error"]
    return None


def _error_message(error: Any) -> str:
    message = error.get("message") if isinstance(error, dict) else error
    return message if isinstance(message, str) else _canonical(error)


class ErrorShape:
    """A failed request: the record holds the server's error instead of a response."""

    name = "error"

    def claims(self, obj: dict[str, Any]) -> bool:
        return _error_value(obj) is not None

    def extract(self, obj: dict[str, Any], where: str) -> Parts:
        request = obj.get("request")
        request = request.get("body", request) if isinstance(request, dict) else {}
        source = request if isinstance(request, dict) else {}
        prompt_key = next((key for key in FLAT_PROMPT_KEYS if key in obj), None)
        prompt = obj[prompt_key] if prompt_key else source.get("prompt", source.get("messages"))
        return Parts(
            text="",
            id=obj.get("custom_id", obj.get("id")),
            prompt=prompt,
            error=_error_message(_error_value(obj)),
        )


class LmEvalShape:
    """One line of lm-evaluation-harness ``samples_*.jsonl``."""

    name = "lm-eval"

    def claims(self, obj: dict[str, Any]) -> bool:
        return "doc_id" in obj and "resps" in obj

    def extract(self, obj: dict[str, Any], where: str) -> Parts:
        try:
            response = obj["resps"][0][0]
        except (IndexError, KeyError, TypeError) as exc:
            raise ResponseFormatError(f"{where}: lm-eval sample has no text in resps") from exc
        text = response if isinstance(response, str) else _canonical(response)
        record_id = str(obj["doc_id"])
        if obj.get("filter") not in (None, "none"):
            record_id = f"{record_id}/{obj['filter']}"
        other = _without(obj, "doc", "arguments", "resps", "doc_id")
        return Parts(text=text, id=record_id, prompt=_lm_eval_prompt(obj), other=other)


def _lm_eval_prompt(obj: dict[str, Any]) -> Any:
    arguments = obj.get("arguments")
    if isinstance(arguments, dict) and arguments:
        first = next(iter(arguments.values()))
        return first.get("arg_0") if isinstance(first, dict) else None
    if isinstance(arguments, list) and arguments and isinstance(arguments[0], list):
        return arguments[0][0] if arguments[0] else None
    return None


class FlatShape:
    """A plain record with a text field."""

    name = "flat"

    def claims(self, obj: dict[str, Any]) -> bool:
        return any(isinstance(obj.get(key), str) for key in FLAT_TEXT_KEYS)

    def extract(self, obj: dict[str, Any], where: str) -> Parts:
        text_key = next(key for key in FLAT_TEXT_KEYS if isinstance(obj.get(key), str))
        prompt_key = next((key for key in FLAT_PROMPT_KEYS if key in obj), None)
        # vLLM's return_token_ids, other servers' output_token_ids, SGLang /generate's output_ids
        token_key = next((k for k in TOKEN_ID_KEYS if k in obj), TOKEN_ID_KEYS[0])
        taken = {text_key, token_key, "logprobs", "finish_reason", "usage", "id"}
        taken |= {"system_fingerprint", "fingerprint", prompt_key or ""}
        return Parts(
            text=obj[text_key],
            id=obj.get("id"),
            prompt=obj.get(prompt_key) if prompt_key else None,
            token_ids=obj.get(token_key),
            logprobs=obj.get("logprobs"),
            finish_reason=obj.get("finish_reason"),
            usage=obj.get("usage"),
            fingerprint=obj.get("system_fingerprint", obj.get("fingerprint")),
            other=_without(obj, *taken),
        )


SHAPES: tuple[RecordShape, ...] = (
    ErrorShape(),
    WrappedShape(),
    ChatShape(),
    CompletionShape(),
    LmEvalShape(),
    FlatShape(),
)

NO_TEXT_HINT = "looked for choices[0].text, choices[0].message.content, resps, " + ", ".join(
    FLAT_TEXT_KEYS
)


def record_from_raw(
    obj: dict[str, Any],
    where: str,
    line: int,
    options: LoadOptions,
    key_source: dict[str, Any] | None = None,
) -> ResponseRecord:
    """Read one raw record with the first shape that claims it.

    `--key` is looked up in `key_source` (default: `obj` itself).
    """
    shape = next((s for s in SHAPES if s.claims(obj)), None)
    if shape is None:
        raise ResponseFormatError(f"{where}: record has no text field ({NO_TEXT_HINT})")
    parts = shape.extract(obj, where)
    other = parts.other if options.include_volatile else drop_volatile(parts.other)
    return ResponseRecord(
        line=line,
        id=_scalar_text(parts.id),
        key=_key_value(obj if key_source is None else key_source, options.key_path, where),
        prompt_digest=None if parts.prompt is None else text_digest(_prompt_text(parts.prompt)),
        prompt_preview=None if parts.prompt is None else _preview(_prompt_text(parts.prompt)),
        text=parts.text,
        token_ids=_token_ids(parts.token_ids, where),
        logprobs=parse_logprobs(parts.logprobs, where),
        finish_reason=_optional_str(parts.finish_reason, "finish_reason", where),
        usage=_usage(parts.usage),
        fingerprint=_optional_str(parts.fingerprint, "fingerprint", where),
        other=_canonical(other),
        error=parts.error,
    )


_CANONICAL_ENCODER = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _canonical(value: Any) -> str:
    return _CANONICAL_ENCODER.encode(value)


def _prompt_text(prompt: Any) -> str:
    return prompt if isinstance(prompt, str) else _canonical(prompt)


def _preview(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= PREVIEW_CHARS else flat[: PREVIEW_CHARS - 1] + "…"


def _scalar_text(value: Any) -> str | None:
    if value is None:
        return None
    return value if isinstance(value, str) else _canonical(value)


def _optional_str(value: Any, name: str, where: str) -> str | None:
    if value is None or isinstance(value, str):
        return value
    raise ResponseFormatError(f"{where}: {name} is not a string: {value!r}")


def _token_ids(value: Any, where: str) -> array[int] | None:
    if value is None:
        return None
    if not isinstance(value, list):
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


def _key_value(obj: dict[str, Any], path: tuple[str, ...] | None, where: str) -> str | None:
    if path is None:
        return None
    current: Any = obj
    for part in path:
        if isinstance(current, dict) and part in current:
            current = current[part]
        elif isinstance(current, list) and part.isdigit() and int(part) < len(current):
            current = current[int(part)]
        else:
            current = None
        if current is None:
            raise ResponseFormatError(f"{where}: no field '{'.'.join(path)}' (--key)")
    return _scalar_text(current)

"""What a record shape extracts from one raw object, and the small helpers every shape uses."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from k3diff.errors import ResponseFormatError
from k3diff.responses.model import LmEvalParts, LogprobTrace

CLIENT_KEY_FIELDS = ("key", "custom_id", "request_id")
"""Top-level fields a client sets to name its request, tried in this order (see `pairing`)."""
PROMPT_KEYS = ("prompt", "messages", "input", "question", "input_text")
"""Top-level fields a record holds its prompt in, tried in this order: every shape that reads a
flat prompt and `sample --prompts`, which sends it again, use this one list."""
REQUEST_PARAM_KEYS = (
    "max_tokens",
    "max_completion_tokens",
    "max_new_tokens",
    "temperature",
    "top_p",
    "top_k",
    "min_p",
    "seed",
    "n",
    "stop",
    "presence_penalty",
    "frequency_penalty",
    "repetition_penalty",
    "sampling_params",
)
"""Request parameters a flat record may carry beside its prompt (they are part of the request)."""
UNSENT_REQUEST_KEYS = ("prompt", "messages", "stream", "stream_options", "model", "user")
"""Request-body fields that are not request parameters: the prompt itself, the transport, and
the served model's name (which may differ between two servers of one model)."""


@dataclass
class Parts:
    """What a shape extracts before the common normalisation."""

    text: str
    id: Any = None
    prompt: Any = None
    token_ids: Any = None
    logprobs: Any = None
    """An OpenAI-shaped logprobs value (parsed later)."""
    trace: LogprobTrace | None = None
    """Logprobs an engine shape already parsed (vLLM, SGLang)."""
    finish_reason: Any = None
    usage: Any = None
    fingerprint: Any = None
    model: Any = None
    """The response's `model`: the model the server said it answered as."""
    other: dict[str, Any] = field(default_factory=dict)
    error: str | None = None
    request_params: dict[str, Any] | None = None
    """The request's parameters (None: the record does not hold its request's parameters)."""
    client_keyable: bool = True
    """False where the shape knows its top-level `request_id` is the engine's counter."""
    choice: int | None = None
    """The choice's index when the response held several."""
    run_state: dict[str, Any] = field(default_factory=dict)
    """Run-state fields the shape found itself (cache hits, timing)."""
    lm_eval: LmEvalParts | None = None
    client_key: tuple[str, str] | None = None
    """(value, field) when the shape names the record's key itself (lm-eval: doc and filter)."""
    scores: tuple[tuple[str, str | None, float], ...] = ()
    """The item's eval scores as (metric, group, value) numbers (lm-eval metrics, inspect_ai)."""
    member: str | None = None
    """The record's place in its file when a line number says nothing (an archive member)."""
    route: str | None = None
    """`chat` or `completions` where the response's shape says which route answered."""
    stream: bool | None = None
    """Whether the request asked for a stream, where the record holds its request."""
    request_complete: bool = False
    """The record holds its whole request body (`request_params` lists every field sent)."""
    beams: int | None = None
    """How many beams the record held, where its shape has beams (TensorRT-LLM)."""


def without(obj: dict[str, Any], *keys: str) -> dict[str, Any]:
    """A shallow copy of `obj` without `keys` (a set: an lm-eval line may name 100,000 metrics,
    and a test against the tuple made the copy quadratic)."""
    dropped = frozenset(keys)
    return {k: v for k, v in obj.items() if k not in dropped}


_CANONICAL_ENCODER = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def canonical(value: Any) -> str:
    """Canonical JSON: sorted keys, no spaces, non-ASCII kept."""
    return _CANONICAL_ENCODER.encode(value)


def request_params(request: dict[str, Any]) -> dict[str, Any]:
    """A request body's parameters: everything but the prompt, the transport and the model."""
    return without(request, *UNSENT_REQUEST_KEYS)


def flat_params(obj: dict[str, Any]) -> dict[str, Any]:
    """The request parameters a flat record carries at its top level."""
    return {k: obj[k] for k in REQUEST_PARAM_KEYS if k in obj}


def parse_path(text: str, option: str) -> tuple[str, ...]:
    """`a.b[0].c` or `a.b.0.c` as path parts; an empty part is a usage error."""
    from k3diff.errors import UsageError

    parts = tuple(text.replace("[", ".").replace("]", "").split("."))
    if not text or not all(parts):
        raise UsageError(f"{option} {text!r}: empty field name in the path")
    return parts


_MISSING = object()


def lookup(obj: Any, path: tuple[str, ...]) -> Any:
    """The value at `path` (dict keys, list indexes); `MISSING` when a part is absent."""
    current = obj
    for part in path:
        if isinstance(current, dict) and part in current:
            current = current[part]
        elif isinstance(current, list) and part.isdigit() and int(part) < len(current):
            current = current[int(part)]
        else:
            return _MISSING
    return current


MISSING = _MISSING


def choices_of(obj: dict[str, Any]) -> list[dict[str, Any]] | None:
    """An OpenAI response's `choices` when it holds at least one and every one is an object."""
    choices = obj.get("choices")
    if not isinstance(choices, list) or not choices:
        return None
    if len(choices) == 1:  # the common case, without a generator
        return choices if isinstance(choices[0], dict) else None
    return choices if all(isinstance(c, dict) for c in choices) else None


def first_choice(obj: dict[str, Any]) -> dict[str, Any] | None:
    """The first of `choices_of(obj)`, None when it has none."""
    choices = choices_of(obj)
    return None if choices is None else choices[0]


def require_list(value: Any, name: str, where: str) -> list[Any]:
    """`value` when it is a list, else a format error naming `name`."""
    if not isinstance(value, list):
        raise ResponseFormatError(f"{where}: {name} is not a list")
    return value


def choice_fields(choice: dict[str, Any]) -> dict[str, Any]:
    """An OpenAI choice's compared fields beside its text, token ids, finish reason and trace:
    its message's other fields (tool calls, a refusal, ...) and, of a chat `logprobs`, what is
    not `content` (read as the trace): a refusal's token logprobs (review65: never compared)."""
    rest = without(choice, "text", "message", "logprobs", "token_ids", "finish_reason", "index")
    message = choice.get("message")
    if isinstance(message, dict):
        rest["message"] = without(message, "content")
    logprobs = choice.get("logprobs")
    if isinstance(logprobs, dict) and "tokens" not in logprobs:
        beside = {name: v for name, v in without(logprobs, "content").items() if v is not None}
        if beside:
            rest["logprobs"] = beside
    return rest


def refuse_two_texts(plain: Any, said: str, holder: str, where: str, position: int) -> None:
    """ResponseFormatError when a choice's `text` (what a completions client reads) is a string
    other than `said`, the text of its `holder` (`message` or, streamed, `delta`: what a chat
    client reads). Read as either, the text the other client got would go unread (stream66: a
    message's, resp67: a streamed delta's, exit 0)."""
    if isinstance(plain, str) and plain != said:
        raise ResponseFormatError(
            f"{where}: choices[{position}] holds both a 'text' and a '{holder}' whose content "
            "differs: k3diff cannot tell which one the client read"
        )


def refuse_texts_of_two_kinds(plain: bool, deltas: bool, where: str, position: int) -> None:
    """ResponseFormatError when one streamed choice carries text as a plain `text` in chunks
    without a delta (what a completions client reads) and has `delta` chunks too (what a chat
    client reads): joined, the text is one neither client read (lmeval67: `4` as a `text`, then
    `2` as a delta, compared as `42` against a stream that said `42`, exit 0). A `text` beside a
    delta in one chunk is `refuse_two_texts`'."""
    if plain and deltas:
        raise ResponseFormatError(
            f"{where}: choices[{position}] carries text as a plain 'text' in some chunks and has "
            "'delta' chunks too: a completions client and a chat client read different texts, "
            "and k3diff cannot tell which one the client read"
        )


TEXT_PART_TYPES = ("text", "output_text")
"""The `type` of a chat content part that is text (a part without one is text too)."""


def message_text(content: Any) -> str | None:
    """A chat message's text: its content, a string or a list of text parts joined; None for
    anything else. Every part must be text: a bare string, or an image or refusal part that also
    carries a `text`, would have its payload dropped (review66: read so, exit 0)."""
    if content is None:
        return ""  # a tool-call-only message has no text; tool calls stay in the compared fields
    if isinstance(content, str):
        return content
    if isinstance(content, list) and all(
        isinstance(part, dict)
        and isinstance(part.get("text"), str)
        and part.get("type", "text") in TEXT_PART_TYPES
        for part in content
    ):
        return "".join(part["text"] for part in content)
    return None

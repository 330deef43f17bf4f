"""Reads one server answer, streamed or not, with the same record model `k3diff responses` uses.

A non-streamed body is one completion or chat-completion object; a stream is a run of ``data:``
lines reassembled by `k3diff.responses.sse.StreamAssembler`. Either becomes a `ResponseRecord`
through `k3diff.responses.shapes.record_from_raw`, so a sampled answer and a captured one are read
alike. A stream may end with ``data: [DONE]`` or without it once a finish_reason arrived; one that
stops before either was cut short, and one that reaches [DONE] with no finish_reason on any chunk
is no answer either: an engine that gives a request up mid-stream and only closes the stream
leaves a partial text that, counted, looks like the base's own nondeterminism (so does a chunk
whose finish_reason gave the request up, whatever a later one says; one whose finish_reason is
unknown, that sends output after its finish or finishes again with another reason, `stop` then
`length`: `k3diff.sample.finish`). An answer to a stream
request, whatever its label, is watched while it is read (`BodyWatch`,
`k3diff.sample.unstreamed`): a body without one event-stream line is no stream cut short. A
stream is a completion only when it holds one: an error event (vLLM's `data: {"error": ...}`
before its [DONE], llama.cpp's bare `error: {...}` line, an event named `error`), a stream
without a single choice (usage only), a body that holds a bare JSON value beside its events (a
whole answer and a stream, which disagree) or two streams (an id that changes, a chunk after
[DONE]) is a bad answer, never a sample of an empty, partial or joined text.

A server is an input like any other: `read_capped` and `stream_lines` read at most
`--max-response-bytes` of a body (decoded), streamed or not, so a 1 GB answer or an endless
event stream ends in `TooLarge` (a failed sample) instead of filling memory. Only one
`Content-Encoding` of those whose expansion is bounded is decoded (gzip or deflate, at most
~1032:1 a chunk, as the client advertises with `ACCEPT_ENCODING`): brotli and zstd (decoded
by httpx whenever their modules happen to be installed) expand a few KB to gigabytes in one
call, and stacked encodings multiply their ratios, so either is a failed sample before a byte
is decoded. The parsed size is bounded too: an answer (or a stream, all events together) may
hold one JSON value per `BYTES_PER_VALUE` bytes of `--max-response-bytes`, counted from its
commas and brackets before parsing (63 MiB of `{}` would be 30 million objects, 2 GB). An event's JSON may
span several ``data:`` lines (joined with ``"\n"``, as the SSE specification says).
"""

from __future__ import annotations

import dataclasses
import json
from array import array
from dataclasses import dataclass
from typing import Any, Protocol

from k3diff import bounded
from k3diff.bounded import size_text
from k3diff.errors import InputError, ResponseFormatError
from k3diff.responses.model import (
    TOKEN_ID_TYPECODE,
    LoadOptions,
    text_digest,
    token_ids_digest,
)
from k3diff.responses.shapes import record_from_raw
from k3diff.responses.sse import EventData, StreamAssembler, misnamed_field
from k3diff.responses.tokenbytes import holds_bool
from k3diff.sample.bodyread import (
    TooLarge,
    one_line,
)
from k3diff.sample.finish import FINISHED, Finishes, carries_a_token, problem
from k3diff.sample.specmeta import spec_meta
from k3diff.sample.trace import token_trace

_OPTIONS = LoadOptions(include_volatile=True)
DEFAULT_MAX_RESPONSE_BYTES = 64 << 20
"""Largest response body read (`--max-response-bytes`), streamed or not, after decoding."""
BYTES_PER_VALUE = 32
"""Bytes of `--max-response-bytes` per JSON value an answer may hold (2,097,152 values by
default: an 8,192-token answer with 20 top logprobs a token holds about 1.2 million)."""
MAX_STREAM_MODELS = 16
"""Distinct models a stream's chunks may name that a sample logs (`stream_models`): two say
that no one model answered; a stream naming a new one each chunk is not logged whole."""
ERROR_BODY_BYTES = 64 << 10
"""Bytes of an error answer (4xx/5xx) read for its message; the rest is not read."""


def value_cap(max_bytes: int) -> int:
    """The JSON values an answer read under `max_bytes` may hold."""
    return max(max_bytes // BYTES_PER_VALUE, 1024)


def value_marks(text: str | bytes) -> int:
    """An upper bound of the JSON values in `text` (commas and opening brackets, also those
    inside strings), counted in C without parsing."""
    if isinstance(text, bytes):
        return text.count(b",") + text.count(b"{") + text.count(b"[") + 1
    return text.count(",") + text.count("{") + text.count("[") + 1


class BadAnswer(Exception):
    """The server answered 200 with something that is not a usable completion (retried)."""


class TooManyValues(TooLarge):
    """The answer holds more JSON values than its byte cap allows (not parsed, not retried)."""

    def __init__(self, cap: int) -> None:
        Exception.__init__(
            self,
            f"the answer holds more than {value_cap(cap):,} JSON values (one per "
            f"{BYTES_PER_VALUE} bytes of --max-response-bytes {size_text(cap)}); not parsed",
        )


@dataclass(frozen=True)
class Answer:
    """The parts of a completion a sample keeps."""

    text: str
    text_xxh3: str
    token_ids_xxh3: str | None
    finish_reason: str | None
    usage: dict[str, Any] | None
    fingerprint: str | None
    trace: dict[str, Any] | None = None
    """Token ids and per-position logprobs and margins, bounded (`k3diff.sample.trace`)."""
    spec_meta: dict[str, Any] | None = None
    """SGLang's `meta_info` speculation fields (`spec_meta`), None when it sent none."""
    spec_meta_invalid: str | None = None
    """Why a `meta_info` speculation field it sent is no count (telem67), None when none is."""
    model: str | None = None
    """The model the server said it answered as (`model`; a stream's, where all its chunks that
    name one agree), None when it named none."""
    stream_models: tuple[str, ...] | None = None
    """The models a stream's chunks named, in order (the first `MAX_STREAM_MODELS`), where they
    disagree (`model` is then None); None otherwise."""


def read_body(
    content: bytes,
    max_bytes: int = DEFAULT_MAX_RESPONSE_BYTES,
    finished: frozenset[str] | None = FINISHED,
) -> Answer:
    """The answer in a non-streamed response body read under `max_bytes` (TooManyValues when it
    holds more values than that allows), its finish reason one of `finished` (None: only a
    gave-up one fails it, for a body read to see whether it holds a completion at all)."""
    if value_marks(content) > value_cap(max_bytes):
        raise TooManyValues(max_bytes)
    try:
        obj = bounded.loads(content, "the response")
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise BadAnswer(f"malformed JSON in the response: {one_line(str(exc))}") from exc
    except InputError as exc:  # deep nesting, a huge integer, a duplicate key
        raise BadAnswer(one_line(str(exc))) from exc
    if not isinstance(obj, dict):
        raise BadAnswer("the response is not a JSON object")
    return _answer(obj, finished, "the answer")


class BodyWatch(Protocol):
    """Sees the lines of an answer to a stream request until one is an event-stream line
    (`unstreamed.Sniff`)."""

    def take(self, line: str, text: str) -> bool:
        """Take one line (`text`: stripped); False once it is an event-stream line."""
        ...

    def no_events(self) -> Exception | None:
        """What to raise for a body without one event-stream line (None: nothing came)."""
        ...


class StreamReader:
    """Folds the lines of one SSE response into an answer; `watch` sees its lines until one
    of them shows it is an event stream."""

    def __init__(
        self,
        max_bytes: int = DEFAULT_MAX_RESPONSE_BYTES,
        watch: BodyWatch | None = None,
        finished: frozenset[str] = FINISHED,
    ) -> None:
        self._max_bytes = max_bytes
        self._finished = finished
        self._watch = watch
        self._values = 0
        self._assembler = StreamAssembler(1, after_finish=False)  # `Finishes` words it
        self._done = False
        self._output_ids: list[Any] = []
        self._event = EventData()
        self._lineno = 0
        self._choices = False
        self._bare_json = False
        """A line outside the events began like JSON (a whole answer beside the stream)."""
        self._error_event = False  # the event being read is named `error`
        self._finishes = Finishes()
        self._models: dict[str, None] = {}  # every model a chunk named, in order
        self.tokens = 0
        """Chunks so far that carried a token (text, content, token ids or logprobs): the
        server is generating this answer, not only holding it open (`k3diff.sample.overlap`)."""

    def feed(self, line: str) -> None:
        """Take one line of the event stream."""
        self._lineno += 1
        if self._lineno == 1:
            line = line.removeprefix("\ufeff")  # the stream's own byte-order mark (SSE drops it)
        text = line.strip()
        if text.startswith("error:"):  # llama.cpp's own field for a request that failed
            raise BadAnswer(f"the server sent an error in the stream: {one_line(text[6:].strip())}")
        if self._watch is not None and not self._watch.take(line, text):
            self._watch = None  # an event stream after all (mislabelled): read as one
        if self._watch is None and text and misnamed_field(line):
            raise BadAnswer(
                "a stream line begins with white space or a byte-order mark: the SSE "
                "specification makes it a field other than 'data' (ignored by clients), a reader "
                "that strips lines reads it as data"
            )
        payload = text[5:].strip() if text.startswith("data:") else None
        if self._event.pending and (not text or payload == "[DONE]"):
            self._end_event()
        if payload is None:
            if text.startswith("event:") or not text:  # a blank line ends the event
                self._error_event = text[6:].strip() == "error"
            self._bare_json = self._bare_json or text[:1] in ("{", "[")
            return  # blank separators, comments, event:/id:/retry: fields
        if payload == "[DONE]":
            self._done = True
            return
        self._values += value_marks(payload)
        if self._values > value_cap(self._max_bytes):
            raise TooManyValues(self._max_bytes)
        try:
            complete, chunk = self._event.add(payload, self._lineno, "a stream chunk")
        except json.JSONDecodeError as exc:
            raise BadAnswer(f"malformed JSON in a stream chunk: {one_line(str(exc))}") from exc
        except InputError as exc:
            raise BadAnswer(one_line(str(exc))) from exc
        if complete:
            self._add(chunk)

    def _end_event(self) -> None:
        try:
            chunk = self._event.end("a stream event")
        except json.JSONDecodeError as exc:
            raise BadAnswer(f"malformed JSON in a stream event: {one_line(str(exc))}") from exc
        except InputError as exc:
            raise BadAnswer(one_line(str(exc))) from exc
        self._add(chunk)

    def _add(self, chunk: Any) -> None:
        if not isinstance(chunk, dict):
            raise BadAnswer("a stream chunk is not a JSON object")
        error = chunk.get("error")  # or `event: error`, whatever its data holds
        if error not in (None, "", {}) or chunk.get("object") == "error" or self._error_event:
            sent = chunk if error in (None, "", {}) else error
            raise BadAnswer(f"the server sent an error in the stream: {one_line(json.dumps(sent))}")
        if self._done:  # `k3diff responses` reads a second stream here, as a sample must not
            raise BadAnswer("a stream chunk after [DONE]: the body holds two responses")
        if self._assembler.starts_another(chunk):
            raise BadAnswer("the stream holds chunks of two responses (their ids differ)")
        self._choices = self._choices or bool(chunk.get("choices"))
        model = chunk.get("model")
        if model is not None and len(self._models) < MAX_STREAM_MODELS:
            self._models.setdefault(model if isinstance(model, str) else json.dumps(model))
        try:
            self._assembler.add(chunk, "stream")
        except ResponseFormatError as exc:
            raise BadAnswer(one_line(str(exc))) from exc
        carries = False
        for choice in chunk.get("choices") or []:
            if isinstance(choice, dict) and isinstance(choice.get("output_ids"), list):
                self._output_ids.extend(choice["output_ids"])
            problem = self._finishes.take(choice)  # output after its choice finished
            if problem is not None:
                raise BadAnswer(problem)
            carries = carries or carries_a_token(choice)
        self.tokens += carries

    def finish(self) -> Answer:
        """The whole stream's answer (raises BadAnswer for a stream cut short)."""
        if self._event.pending:
            self._end_event()
        if self._assembler.first_chunk is None:
            found = None if self._watch is None else self._watch.no_events()
            if found is not None:
                raise found
            raise BadAnswer("the stream ended before its first chunk")
        if self._bare_json:
            raise BadAnswer("the body mixes an event stream with JSON outside its data: lines")
        if not self._choices:
            raise BadAnswer("the stream held no choice (no completion, only other chunks)")
        obj = self._assembler.finish()
        if self._finishes.gave_up is not None:  # a later reason does not undo it (`_answer`)
            obj["choices"][0]["finish_reason"] = self._finishes.gave_up
        first = self._finishes.first(0)  # "null", then "stop": the first says it is not whole
        if first is not None and (wrong := problem(first, self._finished, "the stream")):
            raise BadAnswer(wrong)
        if self._finishes.changed is not None:  # "stop", then "length": which one ended it?
            raise BadAnswer(
                f"the stream finished twice with different finish_reasons "
                f"({self._finishes.changed}): nothing says which one ended it"
            )
        reason = obj["choices"][0].get("finish_reason")
        if reason is None or (isinstance(reason, str) and not reason.strip()):  # "" says nothing
            if not self._done:
                raise BadAnswer("the stream ended before a finish_reason or [DONE]")
            raise BadAnswer(
                "the stream reached [DONE] without a finish_reason: nothing says its text is whole"
            )
        if self._output_ids and "token_ids" not in obj["choices"][0]:
            obj["choices"][0]["output_ids"] = self._output_ids
        answer = _answer(obj, self._finished, "the stream")
        if len(self._models) > 1:  # the assembler kept the first: no one model answered
            return dataclasses.replace(answer, model=None, stream_models=tuple(self._models))
        return answer


def _answer(obj: dict[str, Any], finished: frozenset[str] | None, what: str) -> Answer:
    if "error" in obj and not obj.get("choices"):
        raise BadAnswer(f"the server sent an error: {one_line(json.dumps(obj['error']))}")
    try:
        record = record_from_raw(obj, "response", 0, _OPTIONS)
    except ResponseFormatError as exc:
        raise BadAnswer(one_line(str(exc))) from exc
    if record.error is not None:  # an error beside its choices is still a failed request
        raise BadAnswer(f"the server sent an error: {one_line(record.error)}")
    # One rule for a whole answer and a stream: a gave-up, missing or unknown finish reason
    # ("null", a zero-width space) says its text is not whole (`k3diff.sample.finish`).
    if (wrong := problem(record.finish_reason, finished, what)) is not None:
        raise BadAnswer(wrong)
    named = obj.get("model")
    if named is not None and not isinstance(named, str):
        # Read as no model at all (`record.model` is None), its samples could not be held to
        # the capture's model (`k3diff.triage.servedmodel`): only flagged, where a name is
        # refused. An answer that names no model by a name is no sample of the captured one.
        shown = one_line(json.dumps(named), 80)
        raise BadAnswer(f"{what} names its model as {shown}, not as a name")
    token_ids = record.token_ids
    if token_ids is None:
        token_ids = _output_ids(obj)
    meta, meta_invalid = spec_meta(obj)
    return Answer(
        text=record.text,
        text_xxh3=text_digest(record.text),
        token_ids_xxh3=None if token_ids is None else token_ids_digest(token_ids),
        finish_reason=record.finish_reason,
        # The server's own usage, run state included: the comparison sets cache counters apart
        # from the output, but the samples log is where `telemetry` and the cache axes read them.
        usage=obj["usage"] if isinstance(obj.get("usage"), dict) else record.usage,
        fingerprint=record.fingerprint,
        trace=token_trace(token_ids, record.logprobs),
        spec_meta=meta,
        spec_meta_invalid=meta_invalid,
        model=record.model,
    )


def _output_ids(obj: dict[str, Any]) -> array[int] | None:
    """SGLang/TensorRT-LLM style `output_ids` (on the choice or the object)."""
    choices = obj.get("choices") or [{}]
    value = choices[0].get("output_ids") if isinstance(choices[0], dict) else None
    value = obj.get("output_ids") if value is None else value
    if not isinstance(value, list) or holds_bool(value):
        return None
    try:
        return array(TOKEN_ID_TYPECODE, value)
    except (TypeError, OverflowError):
        return None

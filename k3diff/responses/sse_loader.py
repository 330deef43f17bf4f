"""The ``sse`` loader: server-sent-event transcripts, streamed line by line.

Each stream's chunks are folded into one response by `k3diff.responses.sse`; a stream cut
short (the file ends, or chunks of another response id begin, before its ``data: [DONE]``, and
some choice of it never got a finish_reason) is a
record with status ``error``, and so is one holding an error: a chunk with an ``error`` key (with
or without choices) or an event named ``error`` (``event: error``), whatever its data holds (its
data is the error, never text of the stream).
"""

from __future__ import annotations

import json
from collections.abc import Generator, Iterator
from typing import Any

from k3diff.errors import ResponseFormatError
from k3diff.responses.assemble import with_stream
from k3diff.responses.loader_input import Head, json_kind, text_lines
from k3diff.responses.model import LoadOptions, ResponseRecord
from k3diff.responses.shapes import records_from_raw
from k3diff.responses.sse import EventData, StreamAssembler, misnamed_field

SSE_PREFIXES = ("data:", "event:", "id:", "retry:", ":")


class SseLoader:
    """Server-sent-event transcripts."""

    name = "sse"

    def claims(self, head: Head) -> bool:
        return head.first_line.startswith(SSE_PREFIXES)

    def records(self, head: Head, options: LoadOptions) -> Iterator[ResponseRecord]:
        stream: StreamAssembler | None = None
        event = EventData()
        failed = False  # the event being read is named `error`
        for lineno, line in text_lines(head, blank=True, every_bom=False):
            text = line.rstrip()
            if misnamed_field(text):  # review66: read as data, a text no client got, exit 0
                raise ResponseFormatError(
                    f"{head.display}:{lineno}: a line that begins with white space or a "
                    "byte-order mark: the SSE specification makes it a field other than 'data' "
                    "(ignored), a reader that strips lines reads it as data; refused"
                )
            payload = text[len("data:") :].strip() if text.startswith("data:") else None
            if event.pending and (not text or payload == "[DONE]"):
                start, at, value = _end_event(event, head.display)
                value = _as_error(value) if failed else value
                stream = yield from _fold(stream, start, at, value, head.display, options)
            if not text or text.startswith("event:"):  # a blank line ends the event
                failed = text[len("event:") :].strip() == "error"
                continue
            if text.startswith(("id:", "retry:", ":")):
                continue
            where = f"{head.display}:{lineno}"
            if payload is None:
                raise ResponseFormatError(f"{where}: not an SSE line (expected 'data:')")
            if payload == "[DONE]":
                if stream is None or stream.first_chunk is None:
                    raise ResponseFormatError(f"{where}: [DONE] ends a stream with no chunks")
                yield from _sse_records(stream, head.display, options)
                stream = None
                continue
            try:
                complete, value = event.add(payload, lineno, where)
            except json.JSONDecodeError as exc:
                raise _malformed(where, exc) from exc
            if complete:
                value = _as_error(value) if failed else value
                stream = yield from _fold(stream, lineno, where, value, head.display, options)
        if event.pending:
            start, where, value = _end_event(event, head.display)
            value = _as_error(value) if failed else value
            stream = yield from _fold(stream, start, where, value, head.display, options)
        if stream is not None:
            yield from _sse_records(stream, head.display, options, cut=True)


def _as_error(value: Any) -> dict[str, Any]:
    """The data of an event named `error` as a chunk holding that error (its own `error` when it
    has one), never as a chunk of the stream."""
    if isinstance(value, dict) and value.get("error") not in (None, "", {}):
        value = value["error"]
    return {"error": value if value not in (None, "", {}) else "an SSE event named 'error'"}


def _malformed(where: str, exc: json.JSONDecodeError) -> ResponseFormatError:
    return ResponseFormatError(f"{where}: malformed JSON: {exc.msg} (column {exc.colno})")


def _end_event(event: EventData, display: str) -> tuple[int, str, Any]:
    """The pending event's line, place and joined data (the event's data lines, per SSE)."""
    start = event.start or 0
    where = f"{display}:{start}"
    try:
        return start, where, event.end(where)
    except json.JSONDecodeError as exc:
        raise ResponseFormatError(
            f"{where}: malformed JSON in the event starting here: {exc.msg} "
            f"(line {exc.lineno} of its data, column {exc.colno})"
        ) from exc


def _fold(
    stream: StreamAssembler | None,
    lineno: int,
    where: str,
    value: Any,
    display: str,
    options: LoadOptions,
) -> Generator[ResponseRecord, None, StreamAssembler]:
    """Add one event's chunk to the stream; a chunk that starts another response first ends
    the current one (cut: it had no [DONE]), whose records are yielded."""
    if not isinstance(value, dict):
        raise ResponseFormatError(f"{where}: expected a JSON object, found {json_kind(value)}")
    if stream is not None and stream.starts_another(value):
        yield from _sse_records(stream, display, options, cut=True)
        stream = None
    stream = stream or StreamAssembler(lineno)
    stream.add(value, where)
    return stream


def _sse_records(
    stream: StreamAssembler, display: str, options: LoadOptions, cut: bool = False
) -> list[ResponseRecord]:
    where = f"{display}:{stream.first_line}"
    if not stream.answered:
        # Read on, its text would be "" on both sides: a match whatever they said (review65).
        raise ResponseFormatError(
            f"{where}: a stream none of whose {stream.chunks} chunks holds a choice (k3diff "
            "reads OpenAI completion and chat streams; SGLang's /generate and TGI stream their "
            "text outside choices): nothing to compare"
        )
    obj = stream.finish()
    if cut and not _finished(obj):
        obj["error"] = f"stream ended without [DONE] after {stream.chunks} chunks"
    # --key names a field of the chunks as the server sent them, not of the reassembly.
    records = records_from_raw(obj, where, stream.first_line, options, stream.first_chunk)
    return [with_stream(record) for record in records]


def _finished(obj: dict[str, Any]) -> bool:
    """Whether every choice of a stream without [DONE] got a finish_reason: it ended, as
    `transformers serve` ends a completions stream (and as `k3diff sample --stream` accepts)."""
    return all(
        isinstance(reason := choice.get("finish_reason"), str) and reason.strip()
        for choice in obj["choices"]
    )

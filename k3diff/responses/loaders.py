"""Container formats: which loader reads a responses file, tried in a documented order.

The first loader that claims the file reads it (each can say "not mine" from the file's first
non-blank line):

1. ``sse``         the first line starts with ``data:``, ``event:``, ``id:`` or ``:`` — one or
                   more streams, each ended by ``data: [DONE]``; streamed line by line. A
                   stream cut short (the file ends, or chunks of another response id begin,
                   before its ``[DONE]``) is a record with status ``error``: "stream ended
                   without [DONE] after N chunks" — a server dropping streams is evidence.
2. ``json-array``  the file starts with ``[``: an array of records. The file is read whole
                   (its elements are decoded one at a time, so their line numbers are known;
                   in an array written on one line a record is named ``file:1[index]``).
3. ``document``    a JSON object ``{"responses": [...]}`` or ``{"records": [...]}``, or one
                   pretty-printed response object (a ``.json`` file whose first line is not a
                   whole JSON value). Read whole, like a JSON array.
   ``inspect-eval`` (tried before all others: a file that starts like a zip) an inspect_ai
                   ``.eval`` log (`k3diff.responses.inspect_log`), read through `k3diff.zip`.
   ``vllm-bench``  a ``vllm bench serve --save-detailed`` result (``generated_texts``; one JSON
                   object, `k3diff.responses.vllm_bench`): paired by position.
   ``inspect-json`` an inspect_ai JSON log (``version``, ``eval``, ``samples``).
4. ``lm-eval``     lm-evaluation-harness ``samples_*.jsonl`` (or a first line with ``doc_id`` and
                   ``resps``); streamed line by line.
5. ``jsonl``       one JSON object per line; streamed line by line.

Each record inside is read by the shapes in `k3diff.responses.shapes`.
"""

from __future__ import annotations

import fnmatch
import json
import re
from collections.abc import Generator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from k3diff import bounded
from k3diff.errors import InputError, ResponseFormatError
from k3diff.responses.inspect_log import (
    eval_zip_records,
    is_json_log,
    json_log_records,
    looks_like_eval_zip,
)
from k3diff.responses.model import LoadedSide, LoadOptions, ResponseRecord
from k3diff.responses.shapes import records_from_raw, with_stream
from k3diff.responses.sse import EventData, StreamAssembler
from k3diff.responses.vllm_bench import FORMAT as VLLM_BENCH
from k3diff.responses.vllm_bench import bench_records, is_bench_result

_NON_SPACE = re.compile(r"\S")
SSE_PREFIXES = ("data:", "event:", "id:", "retry:", ":")
WRAPPER_KEYS = ("responses", "records")
LINE_FORMATS = (".jsonl", ".ndjson")


@dataclass(frozen=True)
class Head:
    """What loaders look at to decide whether a file is theirs."""

    path: Path
    """Where to read the file."""
    display: str
    """The path as the user gave it, for messages and reports."""
    first_line: str
    """The first non-blank line, stripped."""
    first_object: dict[str, Any] | None
    """That line decoded, when it is a whole JSON object on its own."""


class Loader(Protocol):
    """Reads one container format."""

    name: str

    def claims(self, head: Head) -> bool:
        """True when this loader reads the file."""

    def records(self, head: Head, options: LoadOptions) -> Iterator[ResponseRecord]:
        """The file's records in file order."""


def _decode(raw: bytes, display: str, lineno: int) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ResponseFormatError(
            f"{display}:{lineno}: invalid UTF-8 (byte 0x{raw[exc.start]:02x} at column "
            f"{exc.start + 1})"
        ) from exc


def _lines(head: Head, blank: bool = False) -> Iterator[tuple[int, str]]:
    """Non-blank lines (all lines with `blank`) with their 1-based numbers, decoded one at a
    time (each at most `--max-record-bytes`; the file must be a regular one)."""
    for lineno, raw in bounded.file_lines(head.path, head.display, "responses file"):
        if blank or raw.strip():
            yield lineno, _decode(raw, head.display, lineno).lstrip("\ufeff")


def _loads_object(text: str, where: str) -> dict[str, Any]:
    try:
        value = bounded.loads(text, where)
    except json.JSONDecodeError as exc:
        raise ResponseFormatError(
            f"{where}: malformed JSON: {exc.msg} (column {exc.colno})"
        ) from exc
    if not isinstance(value, dict):
        raise ResponseFormatError(f"{where}: expected a JSON object, found {_kind(value)}")
    return value


def _kind(value: Any) -> str:
    names = {dict: "an object", list: "an array", str: "a string", bool: "a boolean"}
    return names.get(type(value), "null" if value is None else "a number")


class SseLoader:
    """Server-sent-event transcripts."""

    name = "sse"

    def claims(self, head: Head) -> bool:
        return head.first_line.startswith(SSE_PREFIXES)

    def records(self, head: Head, options: LoadOptions) -> Iterator[ResponseRecord]:
        stream: StreamAssembler | None = None
        event = EventData()
        for lineno, line in _lines(head, blank=True):
            text = line.strip()
            payload = text[len("data:") :].strip() if text.startswith("data:") else None
            if event.pending and (not text or payload == "[DONE]"):
                start, at, value = _end_event(event, head.display)
                stream = yield from _fold(stream, start, at, value, head.display, options)
            if not text or text.startswith(("event:", "id:", "retry:", ":")):
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
                stream = yield from _fold(stream, lineno, where, value, head.display, options)
        if event.pending:
            start, where, value = _end_event(event, head.display)
            stream = yield from _fold(stream, start, where, value, head.display, options)
        if stream is not None:
            yield from _sse_records(stream, head.display, options, cut=True)


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
        raise ResponseFormatError(f"{where}: expected a JSON object, found {_kind(value)}")
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
    obj = stream.finish()
    if cut:
        obj["error"] = f"stream ended without [DONE] after {stream.chunks} chunks"
    # --key names a field of the chunks as the server sent them, not of the reassembly.
    records = records_from_raw(obj, where, stream.first_line, options, stream.first_chunk)
    return [with_stream(record) for record in records]


class JsonLinesLoader:
    """One JSON object per line."""

    name = "jsonl"

    def claims(self, head: Head) -> bool:
        return head.first_line.startswith("{")

    def records(self, head: Head, options: LoadOptions) -> Iterator[ResponseRecord]:
        for lineno, line in _lines(head):
            where = f"{head.display}:{lineno}"
            yield from records_from_raw(_loads_object(line, where), where, lineno, options)


class LmEvalLoader(JsonLinesLoader):
    """lm-evaluation-harness per-sample logs."""

    name = "lm-eval"

    def claims(self, head: Head) -> bool:
        if fnmatch.fnmatch(head.path.name, "samples_*.jsonl"):
            return True
        first = head.first_object
        return first is not None and "doc_id" in first and "resps" in first


class JsonArrayLoader:
    """A JSON array of records."""

    name = "json-array"

    def claims(self, head: Head) -> bool:
        return head.first_line.startswith("[")

    def records(self, head: Head, options: LoadOptions) -> Iterator[ResponseRecord]:
        text = _read_whole(head)
        start = len(text) - len(text.lstrip())
        end = yield from _array_records(text, start, head.display, options)
        if text[end + 1 :].strip():
            _decode_json(text, head.display)  # names the line of the extra data


class VllmBenchLoader:
    """A `vllm bench serve --save-detailed` result (one JSON object, on one line)."""

    name = VLLM_BENCH

    def claims(self, head: Head) -> bool:
        return is_bench_result(head.first_object)

    def records(self, head: Head, options: LoadOptions) -> Iterator[ResponseRecord]:
        assert head.first_object is not None
        yield from bench_records(head.first_object, head.display, options)


class InspectJsonLoader:
    """An inspect_ai JSON log: the whole `EvalLog`, its samples in `samples`."""

    name = "inspect-json"

    def claims(self, head: Head) -> bool:
        if head.first_object is not None:
            return is_json_log(head.first_object, "")
        with bounded.open_input(head.path, head.display, "responses file") as handle:
            prefix = handle.read(_SNIFF_BYTES).decode("utf-8", "replace")
        return is_json_log(None, prefix)

    def records(self, head: Head, options: LoadOptions) -> Iterator[ResponseRecord]:
        document = _decode_json(_read_whole(head), head.display)
        yield from json_log_records(document, head.display, options)


_SNIFF_BYTES = 4096


class DocumentLoader:
    """A whole-file JSON object holding the records, or one response object."""

    name = "document"

    def claims(self, head: Head) -> bool:
        first = head.first_object
        if first is not None:
            return any(isinstance(first.get(key), list) for key in WRAPPER_KEYS)
        return head.first_line.startswith("{") and head.path.suffix not in LINE_FORMATS

    def records(self, head: Head, options: LoadOptions) -> Iterator[ResponseRecord]:
        text = _read_whole(head)
        document = _decode_json(text, head.display)
        if not isinstance(document, dict):
            raise ResponseFormatError(f"{head.display}: expected a JSON object")
        key = next((k for k in WRAPPER_KEYS if isinstance(document.get(k), list)), None)
        if key is None:
            yield from records_from_raw(document, f"{head.display}:1", 1, options)
            return
        del document  # the list is decoded again element by element, with line numbers
        yield from _array_records(text, _list_start(text, key), head.display, options)


def _read_whole(head: Head) -> str:
    data = bounded.read_document(head.path, head.display, "responses file")
    try:
        return data.decode("utf-8").lstrip("\ufeff")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise ResponseFormatError(
            f"{head.display}:{line}: invalid UTF-8 (byte 0x{data[exc.start]:02x})"
        ) from exc


def _decode_json(text: str, display: str) -> Any:
    try:
        return bounded.loads(text, display)
    except json.JSONDecodeError as exc:
        raise ResponseFormatError(
            f"{display}:{exc.lineno}: malformed JSON: {exc.msg} (column {exc.colno})"
        ) from exc


def _list_start(text: str, key: str) -> int:
    """Offset of the `[` that opens the top-level `key` list of a valid JSON object."""
    decoder = json.JSONDecoder()
    pos = _skip_ws(text, text.index("{") + 1)
    while True:
        name, pos = decoder.raw_decode(text, pos)
        pos = _skip_ws(text, _skip_ws(text, pos) + 1)  # past the ':'
        if name == key:
            return pos
        _, pos = decoder.raw_decode(text, pos)
        pos = _skip_ws(text, _skip_ws(text, pos) + 1)  # past the ','


def _skip_ws(text: str, pos: int) -> int:
    while pos < len(text) and text[pos] in " \t\r\n":
        pos += 1
    return pos


def _array_records(
    text: str, start: int, display: str, options: LoadOptions
) -> Generator[ResponseRecord, None, int]:
    """Decode a JSON array's elements one at a time, keeping each element's line number.

    Returns the offset of the closing `]`.
    """
    pos, line, counted = _skip_ws(text, start + 1), 1 + text.count("\n", 0, start), start
    newline = text.find("\n", start)
    one_line = newline == -1 or _NON_SPACE.search(text, newline) is None
    element_index = -1
    while pos < len(text) and text[pos] != "]":
        line += text.count("\n", counted, pos)
        counted = pos
        element_index += 1
        index = element_index if one_line else None
        where = f"{display}:{line}" + ("" if index is None else f"[{index}]")
        try:
            element, pos = bounded.raw_decode(text, pos, where)
        except json.JSONDecodeError as exc:
            raise ResponseFormatError(
                f"{display}:{exc.lineno}: malformed JSON: {exc.msg} (column {exc.colno})"
            ) from exc
        if not isinstance(element, dict):
            raise ResponseFormatError(f"{where}: expected a JSON object, found {_kind(element)}")
        yield from records_from_raw(element, where, line, options, index=index)
        pos = _skip_ws(text, pos)
        if pos < len(text) and text[pos] == ",":
            pos = _skip_ws(text, pos + 1)
            if pos < len(text) and text[pos] == "]":
                pos = len(text)  # a trailing comma: let the decoder name it
        elif pos >= len(text) or text[pos] != "]":
            break
    if pos >= len(text) or text[pos] != "]":
        _decode_json(text, display)  # reports the exact syntax error
        raise ResponseFormatError(f"{display}: malformed JSON array")
    return pos


LOADERS: tuple[Loader, ...] = (
    SseLoader(),
    JsonArrayLoader(),
    VllmBenchLoader(),
    InspectJsonLoader(),
    DocumentLoader(),
    LmEvalLoader(),
    JsonLinesLoader(),
)


def read_head(path: Path, display: str) -> Head:
    """The first non-blank line of a file, decoded, for the loaders to judge."""
    if path.is_dir():
        raise InputError(f"{display}: is a directory, not a responses file")
    for lineno, line in _lines(Head(path, display, "", None)):
        stripped = line.strip()
        first: dict[str, Any] | None = None
        if stripped.startswith("{"):
            try:
                value = bounded.loads(stripped, f"{display}:{lineno}")
            except (json.JSONDecodeError, InputError):
                value = None  # the loader that reads the line says what is wrong with it
            first = value if isinstance(value, dict) else None
        return Head(path, display, stripped, first)
    raise ResponseFormatError(f"{display}: empty file, no records")


def pick_loader(head: Head) -> Loader:
    """The first loader that claims the file."""
    for loader in LOADERS:
        if loader.claims(head):
            return loader
    names = ", ".join(loader.name for loader in LOADERS)
    raise ResponseFormatError(
        f"{head.display}: not a responses file: no loader accepts it (tried {names})"
    )


def open_side(
    path: Path, display: str, options: LoadOptions
) -> tuple[str, Iterator[ResponseRecord]]:
    """The name of the loader that claims the file, and its records one at a time.

    The iterator raises `ResponseFormatError` at its end when the file held no record.
    """
    if not path.is_dir() and looks_like_eval_zip(path):
        return "inspect-eval", _at_least_one(eval_zip_records(path, display, options), display)
    head = read_head(path, display)
    loader = pick_loader(head)
    return loader.name, _at_least_one(loader.records(head, options), display)


def _at_least_one(records: Iterator[ResponseRecord], display: str) -> Iterator[ResponseRecord]:
    empty = True
    for record in records:
        empty = False
        yield record
    if empty:
        raise ResponseFormatError(f"{display}: no records")


def load_side(path: Path, display: str, options: LoadOptions) -> LoadedSide:
    """Read every record of one responses file with the loader that claims it."""
    name, records = open_side(path, display, options)
    return LoadedSide(display=display, format=name, records=list(records))

"""Loaders of files read whole: a JSON array of records (``json-array``), a document holding
them (``document``: ``{"responses": [...]}``, ``{"records": [...]}`` or one pretty-printed
response) and an inspect_ai JSON log (``inspect-json``).

An array's elements are decoded one at a time from the text, so each record keeps its line
number (in an array written on one line, its index: ``file:1[index]``).
"""

from __future__ import annotations

import json
from collections.abc import Generator, Iterator
from typing import Any

from k3diff import bounded
from k3diff.errors import ResponseFormatError
from k3diff.lazyre import lazy
from k3diff.responses.inspect_log import is_json_log, json_log_records
from k3diff.responses.loader_input import Head, json_kind, refuse_own_document
from k3diff.responses.model import LoadOptions, ResponseRecord
from k3diff.responses.shapes import SHAPES, records_from_raw

_NON_SPACE = lazy(r"\S")


WRAPPER_KEYS = ("responses", "records")


LINE_FORMATS = (".jsonl", ".ndjson")


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
        refuse_own_document(document, head.display)
        keys = [k for k in WRAPPER_KEYS if isinstance(document.get(k), list)]
        if len(keys) > 1:
            # Reading one list would leave the other's records out unsaid (review65: base and
            # patch differing only under "records" compared equal, exit 0).
            raise ResponseFormatError(
                f"{head.display}: holds both a 'responses' and a 'records' list; one file "
                "holds its records in one of them"
            )
        key = keys[0] if keys else None
        if key is None:
            yield from records_from_raw(document, f"{head.display}:1", 1, options)
            return
        _refuse_response_beside_list(document, key, head.display, options)
        del document  # the list is decoded again element by element, with line numbers
        yield from _array_records(text, _list_start(text, key), head.display, options)


def _refuse_response_beside_list(
    document: dict[str, Any], key: str, display: str, options: LoadOptions
) -> None:
    """ResponseFormatError when `document`, besides its `key` list, reads as a response itself
    (choices, outputs, a text field, an error; or what `--text-field` names): a server's answer
    with a `responses` list added is one response to its client, which reads the answer's own
    choices and never the list (review66: the list was compared instead, exit 0)."""
    rest = {name: value for name, value in document.items() if name != key}
    named = options.text_field is not None and options.text_field[0] in rest
    shape = next((s.name for s in SHAPES if s.claims(rest)), None)
    if shape is None and not named:
        return
    article = "an" if shape is not None and shape[0] in "aeiou" else "a"
    what = "the field --text-field names" if shape is None else f"{article} {shape} response"
    raise ResponseFormatError(
        f"{display}: holds a '{key}' list but is itself {what} too; read as either, the "
        "other would go unread (a client of the server reads the response, never the list)"
    )


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
            raise ResponseFormatError(
                f"{where}: expected a JSON object, found {json_kind(element)}"
            )
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

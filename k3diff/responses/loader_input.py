"""What every loader reads with: the file's head (what loaders judge a file by), its lines
decoded one at a time, and one JSON object decoded with the loaders' error wording."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from k3diff import bounded
from k3diff.errors import ResponseFormatError
from k3diff.responses.model import LoadOptions, ResponseRecord


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


def decode_line(raw: bytes, display: str, lineno: int) -> str:
    """One line as UTF-8 text; a format error naming the line and the bad byte."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ResponseFormatError(
            f"{display}:{lineno}: invalid UTF-8 (byte 0x{raw[exc.start]:02x} at column "
            f"{exc.start + 1})"
        ) from exc


def text_lines(
    head: Head, blank: bool = False, every_bom: bool = True
) -> Iterator[tuple[int, str]]:
    """Non-blank lines (all lines with `blank`) with their 1-based numbers, decoded one at a
    time (each at most `--max-record-bytes`; the file must be a regular one). A byte-order mark
    is dropped from the first line, and from any other unless `every_bom` is false (an event
    stream drops one at its start only: later, it is part of the line)."""
    for lineno, raw in bounded.file_lines(head.path, head.display, "responses file"):
        # isspace: what strip() would strip, every byte (a line is never empty), without a copy
        if blank or not raw.isspace():
            line = decode_line(raw, head.display, lineno)
            yield lineno, line.lstrip("\ufeff") if every_bom or lineno == 1 else line


def loads_object(text: str, where: str) -> dict[str, Any]:
    """`text` decoded as one JSON object; a format error naming `where` otherwise."""
    try:
        value = bounded.loads(text, where)
    except json.JSONDecodeError as exc:
        raise ResponseFormatError(f"{where}: malformed JSON: {_wording(text, exc)}") from exc
    if not isinstance(value, dict):
        raise ResponseFormatError(f"{where}: expected a JSON object, found {json_kind(value)}")
    return value


def _wording(text: str, exc: json.JSONDecodeError) -> str:
    """The decoder's complaint and its column within the line. A line cut short still holds
    its terminator, past which the decoder fails: counted from after the newline (column 1),
    or, inside a string, the newline taken for an "invalid control character". An error there
    is worded as the line without its terminator decodes: its own message and column (an
    unterminated string where it starts). Only errors pay for it."""
    line = text.rstrip("\r\n")
    if exc.pos >= len(line) and len(line) < len(text) and "\n" not in line:
        try:
            json.loads(line)
        except json.JSONDecodeError as cut:
            return f"{cut.msg} (column {cut.colno})"
        except RecursionError:  # nested too deep to reword: the place is still the line's end
            pass
        return f"{exc.msg} (column {len(line) + 1})"
    return f"{exc.msg} (column {exc.colno})"


def json_kind(value: Any) -> str:
    """What a decoded JSON value is, for messages (`an array`, `null`, ...)."""
    names = {dict: "an object", list: "an array", str: "a string", bool: "a boolean"}
    return names.get(type(value), "null" if value is None else "a number")


def refuse_own_document(document: Any, display: str) -> None:
    """ResponseFormatError when `document` is one k3diff wrote (its `schema` says
    `k3diff.<kind>/<n>`): a comparison or samples log read as captures would be misread."""
    schema = document.get("schema") if isinstance(document, dict) else None
    if not (isinstance(schema, str) and schema.startswith("k3diff.")):
        return
    if schema.startswith("k3diff.samples/"):
        hint = (
            "give it to triage after a comparison (k3diff triage COMPARISON SAMPLES) or to "
            "k3diff telemetry"
        )
    else:
        hint = "give the captures it was made from"
    raise ResponseFormatError(
        f"{display}: a {schema[:40]} document (k3diff's own output), not captured responses; "
        + hint
    )

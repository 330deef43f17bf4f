"""Container formats: which loader reads a responses file, tried in a documented order.

The first loader that claims the file reads it (each can say "not mine" from the file's first
non-blank line):

1. ``sse``         the first line starts with ``data:``, ``event:``, ``id:`` or ``:`` — one or
                   more streams, each ended by ``data: [DONE]`` (or by a finish_reason on
                   every choice: transformers serve); streamed line by line. A
                   stream cut short (the file ends, or chunks of another response id begin,
                   before its ``[DONE]`` or finish) is a record with status ``error``: "stream ended
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

Each record inside is read by the shapes in `k3diff.responses.shapes`. The ``sse`` loader lives
in `sse_loader`, the loaders of files read whole in `whole_json`, and what every loader reads
with (the head, the lines, one JSON object) in `loader_input`.
"""

from __future__ import annotations

import fnmatch
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TypeVar

from k3diff import bounded
from k3diff.bounded import loads_line
from k3diff.errors import InputError, ResponseFormatError
from k3diff.responses import recordcap
from k3diff.responses.fastshape import FastReader
from k3diff.responses.inspect_log import (
    eval_zip_records,
    looks_like_eval_zip,
)
from k3diff.responses.loader_input import (
    Head,
    Loader,
    decode_line,
    loads_object,
    refuse_own_document,
    text_lines,
)
from k3diff.responses.model import LoadedSide, LoadOptions, ResponseRecord
from k3diff.responses.packed import Packed, pack
from k3diff.responses.shapes import records_from_raw
from k3diff.responses.sse_loader import SseLoader
from k3diff.responses.vllm_bench import FORMAT as VLLM_BENCH
from k3diff.responses.vllm_bench import bench_records, is_bench_result
from k3diff.responses.whole_json import DocumentLoader, InspectJsonLoader, JsonArrayLoader

_T = TypeVar("_T")


class JsonLinesLoader:
    """One JSON object per line."""

    name = "jsonl"

    def claims(self, head: Head) -> bool:
        return head.first_line.startswith("{")

    def records(self, head: Head, options: LoadOptions) -> Iterator[ResponseRecord]:
        for lineno, line in text_lines(head):
            where = f"{head.display}:{lineno}"
            yield from records_from_raw(loads_object(line, where), where, lineno, options)

    def packed_records(self, head: Head, options: LoadOptions) -> Iterator[Packed]:
        """`records`, packed; the common OpenAI shapes through the fast reader."""
        fast = FastReader(options, head.display)
        display = head.display
        empty = True
        # text_lines, inline: a generator less per line
        for lineno, raw in bounded.file_lines(head.path, display, "responses file"):
            if raw.isspace():
                continue
            try:  # `decode_line` words the error: a call less per line
                text = raw.decode("utf-8").lstrip("\ufeff")
            except UnicodeDecodeError:
                text = decode_line(raw, display, lineno)
            obj = loads_line(text)  # None: `loads_object` decodes it again and words any error
            if obj is None:
                obj = loads_object(text, f"{display}:{lineno}")
            packed = fast.pack(obj, lineno)
            if packed is not None:
                empty = False
                yield packed
            else:
                where = f"{display}:{lineno}"
                for record in records_from_raw(obj, where, lineno, options):
                    empty = False
                    yield pack(record)
        if empty:  # `_at_least_one`, without a generator more per record
            raise ResponseFormatError(f"{display}: no records")


class LmEvalLoader(JsonLinesLoader):
    """lm-evaluation-harness per-sample logs."""

    name = "lm-eval"

    def claims(self, head: Head) -> bool:
        if fnmatch.fnmatch(head.path.name, "samples_*.jsonl"):
            return True
        first = head.first_object
        return first is not None and "doc_id" in first and "resps" in first


class VllmBenchLoader:
    """A `vllm bench serve --save-detailed` result (one JSON object, on one line)."""

    name = VLLM_BENCH

    def claims(self, head: Head) -> bool:
        return is_bench_result(head.first_object)

    def records(self, head: Head, options: LoadOptions) -> Iterator[ResponseRecord]:
        assert head.first_object is not None
        yield from bench_records(head.first_object, head.display, options)


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
    for lineno, line in text_lines(Head(path, display, "", None)):
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
    refuse_own_document(head.first_object, head.display)
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


def open_side_packed(
    path: Path, display: str, options: LoadOptions
) -> tuple[str, Iterator[Packed]]:
    """`open_side` with each record packed (`k3diff.responses.packed`), as the spill keeps
    them; JSON lines of the common OpenAI shapes are packed without a `ResponseRecord`."""
    if path.is_dir() or looks_like_eval_zip(path):
        name, records = open_side(path, display, options)
        return name, map(pack, records)
    head = read_head(path, display)
    loader = pick_loader(head)
    if isinstance(loader, JsonLinesLoader):
        return loader.name, loader.packed_records(head, options)  # raises at its end when empty
    return loader.name, map(pack, _at_least_one(loader.records(head, options), display))


def _at_least_one(records: Iterator[_T], display: str) -> Iterator[_T]:
    empty = True
    for record in records:
        empty = False
        yield record
    if empty:
        raise ResponseFormatError(f"{display}: no records")


def load_side(path: Path, display: str, options: LoadOptions) -> LoadedSide:
    """Read every record of one responses file with the loader that claims it."""
    name, records = open_side(path, display, options)
    kept: list[ResponseRecord] = []
    for record in records:
        if len(kept) >= recordcap.MAX_RECORDS:
            raise recordcap.past_side_cap(display, f"line {record.line}")
        kept.append(record)
    return LoadedSide(display=display, format=name, records=kept)

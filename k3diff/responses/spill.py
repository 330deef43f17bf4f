"""One side's records, read once and parked in a temporary file; only the pairing keys stay in memory.

A normalised record costs a kilobyte or more as Python objects, so holding both sides of a
100,000-record comparison costs hundreds of megabytes. Instead each record is `marshal`led (the
fastest encoder of plain tuples, strings and bytes) into an anonymous temporary file as the loader
yields it, and read back by position when its pair is compared. Memory then holds, per record,
its keys, its line and an offset: a few hundred bytes, whatever the size of the outputs.

The temporary file is unlinked at creation, so it disappears when closed or when the process
dies; it lives in the standard temporary directory (``TMPDIR``).
"""

from __future__ import annotations

import marshal
import tempfile
from array import array
from pathlib import Path
from typing import Any

from k3diff.closeable import Closeable
from k3diff.responses.loaders import open_side
from k3diff.responses.model import (
    TOKEN_ID_TYPECODE,
    LoadOptions,
    LogprobTrace,
    ResponseRecord,
)


class SpilledSide(Closeable):
    """One input file: its records on disk; in memory, in file order, each record's line and the
    key columns pairing may use (`keys` with `--key`, else `ids` and `prompts`)."""

    def __init__(self, display: str, fmt: str, by_field: bool) -> None:
        self.display = display
        self.format = fmt
        self.lines = array("q")
        self.keys: list[str | None] = []
        self.ids: list[str | None] = []
        self.prompts: list[str | None] = []
        self._by_field = by_field
        self._offsets = array("q", [0])
        # Closed by close() / __exit__: the file lives as long as this object.
        self._file = tempfile.TemporaryFile(prefix="k3diff-responses-")  # noqa: SIM115
        self._writing = True
        self._position = -1

    def add(self, record: ResponseRecord) -> None:
        """Park one record at the next position."""
        data = marshal.dumps(_pack(record))
        self._file.write(data)
        self._offsets.append(self._offsets[-1] + len(data))
        self.lines.append(record.line)
        if self._by_field:
            self.keys.append(record.key)
        else:
            self.ids.append(record.id)
            self.prompts.append(record.prompt_digest)

    def __len__(self) -> int:
        return len(self.lines)

    def where(self, position: int) -> str:
        """`file:line` of the record at `position`, for messages and reports."""
        return f"{self.display}:{self.lines[position]}"

    def record(self, position: int) -> ResponseRecord:
        """The record at `position`, read back from the temporary file."""
        if self._writing:
            self._file.flush()
            self._writing = False
        start = self._offsets[position]
        # Reading in file order (the common case) never seeks.
        if self._position != position:
            self._file.seek(start)
        self._position = position + 1
        return _unpack(marshal.loads(self._file.read(self._offsets[position + 1] - start)))

    def release_keys(self) -> None:
        """Drop the key columns once pairing has indexed the ones it uses."""
        self.keys, self.ids, self.prompts = [], [], []

    def close(self) -> None:
        """Delete the temporary file."""
        self._file.close()


def spill_side(path: Path, display: str, options: LoadOptions) -> SpilledSide:
    """Read every record of one responses file into a `SpilledSide` (close it when done)."""
    fmt, records = open_side(path, display, options)
    side = SpilledSide(display, fmt, by_field=options.key_path is not None)
    try:
        for record in records:
            side.add(record)
    except BaseException:
        side.close()
        raise
    return side


def _pack(record: ResponseRecord) -> tuple[Any, ...]:
    """The record's fields in dataclass order, arrays as bytes."""
    ids = record.token_ids
    return (
        record.line,
        record.id,
        record.key,
        record.prompt_digest,
        record.prompt_preview,
        record.text,
        None if ids is None else ids.tobytes(),
        None if record.logprobs is None else _pack_trace(record.logprobs),
        record.finish_reason,
        record.usage,
        record.fingerprint,
        record.other,
        record.error,
    )


def _unpack(packed: tuple[Any, ...]) -> ResponseRecord:
    line, rid, key, digest, preview, text, ids, trace, finish, usage, fingerprint, other, error = (
        packed
    )
    return ResponseRecord(  # positional, in field order: measurably faster than keywords
        line,
        rid,
        key,
        digest,
        preview,
        text,
        None if ids is None else _array(TOKEN_ID_TYPECODE, ids),
        None if trace is None else _unpack_trace(trace),
        finish,
        usage,
        fingerprint,
        other,
        error,
    )


def _pack_trace(trace: LogprobTrace) -> tuple[Any, ...]:
    return (
        trace.tokens,
        trace.logprobs.tobytes(),
        trace.top1_tokens,
        trace.top1_logprobs.tobytes(),
        trace.top2_tokens,
        trace.top2_logprobs.tobytes(),
        trace.top_k,
    )


def _unpack_trace(packed: tuple[Any, ...]) -> LogprobTrace:
    tokens, logprobs, top1_tokens, top1, top2_tokens, top2, top_k = packed
    return LogprobTrace(
        tokens=tokens,
        logprobs=_array("d", logprobs),
        top1_tokens=top1_tokens,
        top1_logprobs=_array("d", top1),
        top2_tokens=top2_tokens,
        top2_logprobs=_array("d", top2),
        top_k=top_k,
    )


def _array(typecode: str, data: bytes) -> array[Any]:
    values = array(typecode)
    values.frombytes(data)
    return values

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
from dataclasses import astuple, fields
from operator import attrgetter
from pathlib import Path
from typing import Any

from k3diff.closeable import Closeable
from k3diff.responses.loaders import open_side
from k3diff.responses.model import (
    TOKEN_ID_TYPECODE,
    LmEvalParts,
    LoadOptions,
    LogprobTrace,
    ResponseRecord,
)

_FIELDS = tuple(f.name for f in fields(ResponseRecord))
_BUFFER_BYTES = 1 << 20
"""Records are written to the temporary file in blocks of about this size (one write call
each, not one a record)."""
_GET_FIELDS = attrgetter(*_FIELDS)


class SpilledSide(Closeable):
    """One input file: its records on disk; in memory, in file order, each record's line and the
    key columns pairing may use (`keys` with `--key`, else `client_keys`, `ids` and `prompts`),
    and each record's request digest (pairing checks that paired requests agree).

    A record that is one choice of several (n > 1) has `#i` appended to each of its keys."""

    def __init__(self, display: str, fmt: str, by_field: bool) -> None:
        self.display = display
        self.format = fmt
        self.lines = array("q")
        self.keys: list[str | None] = []
        self.ids: list[str | None] = []
        self.client_keys: list[str | None] = []
        self.client_fields: set[str | None] = set()
        self.prompts: list[str | None] = []
        self.requests: list[str | None] = []
        self._indexes: dict[int, int] = {}
        self._members: dict[int, str] = {}
        self._by_field = by_field
        self._offsets = array("q", [0])
        # Closed by close() / __exit__: the file lives as long as this object.
        self._file = tempfile.TemporaryFile(prefix="k3diff-responses-")  # noqa: SIM115
        self._pending = bytearray()
        self._writing = True
        self._position = -1

    def add(self, record: ResponseRecord) -> None:
        """Park one record at the next position."""
        data = marshal.dumps(_pack(record))
        pending = self._pending
        pending += data
        if len(pending) >= _BUFFER_BYTES:
            self._file.write(pending)
            pending.clear()
        self._offsets.append(self._offsets[-1] + len(data))
        if record.index is not None:
            self._indexes[len(self.lines)] = record.index
        if record.member is not None:
            self._members[len(self.lines)] = record.member
        self.lines.append(record.line)
        if record.choice is None:  # the common case: every key as it is
            self.requests.append(record.request_digest)
            self.prompts.append(record.prompt_digest)
            if self._by_field:
                self.keys.append(record.key)
            else:
                self.ids.append(record.id)
                self.client_keys.append(record.client_key)
                self.client_fields.add(record.client_key_field)
            return
        suffix = f"#{record.choice}"
        self.requests.append(_suffixed(record.request_digest, suffix))
        self.prompts.append(_suffixed(record.prompt_digest, suffix))
        if self._by_field:
            self.keys.append(_suffixed(record.key, suffix))
        else:
            self.ids.append(_suffixed(record.id, suffix))
            self.client_keys.append(_suffixed(record.client_key, suffix))
            self.client_fields.add(record.client_key_field)

    def __len__(self) -> int:
        return len(self.lines)

    @property
    def spilled_bytes(self) -> int:
        """Bytes of all records in the temporary file."""
        return self._offsets[-1]

    def size_of(self, position: int) -> int:
        """Bytes of the record at `position` in the temporary file (progress weight)."""
        return self._offsets[position + 1] - self._offsets[position]

    def where(self, position: int) -> str:
        """`file:line` of the record at `position`, for messages and reports."""
        member = self._members.get(position)
        if member is not None:
            return f"{self.display}:{member}"
        index = self._indexes.get(position)
        where = f"{self.display}:{self.lines[position]}"
        return where if index is None else f"{where}[{index}]"

    def record(self, position: int) -> ResponseRecord:
        """The record at `position`, read back from the temporary file."""
        if self._writing:
            self._file.write(self._pending)
            self._file.flush()
            self._pending = bytearray()
            self._writing = False
        start = self._offsets[position]
        # Reading in file order (the common case) never seeks.
        if self._position != position:
            self._file.seek(start)
        self._position = position + 1
        return _unpack(marshal.loads(self._file.read(self._offsets[position + 1] - start)))

    def prompt_of(self, position: int) -> str | None:
        """The prompt digest of the record at `position` (until `release_keys`)."""
        return self.prompts[position]

    def release_keys(self) -> None:
        """Drop the key columns once pairing has indexed the ones it uses."""
        self.keys, self.ids, self.prompts, self.client_keys = [], [], [], []
        self.requests = []

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


def _suffixed(key: str | None, suffix: str) -> str | None:
    return key if key is None or not suffix else key + suffix


_TOKEN_IDS = _FIELDS.index("token_ids")
_LOGPROBS = _FIELDS.index("logprobs")
_LM_EVAL = _FIELDS.index("lm_eval")


def _pack(record: ResponseRecord) -> tuple[Any, ...]:
    """The record's fields in dataclass order, arrays as bytes (marshal takes plain values)."""
    packed = list(_GET_FIELDS(record))
    ids = record.token_ids
    packed[_TOKEN_IDS] = None if ids is None else ids.tobytes()
    trace = record.logprobs
    packed[_LOGPROBS] = None if trace is None else _pack_trace(trace)
    lm_eval = record.lm_eval
    packed[_LM_EVAL] = None if lm_eval is None else astuple(lm_eval)
    return tuple(packed)


def _unpack(packed: tuple[Any, ...]) -> ResponseRecord:
    values = list(packed)
    ids = values[_TOKEN_IDS]
    values[_TOKEN_IDS] = None if ids is None else _array(TOKEN_ID_TYPECODE, ids)
    trace = values[_LOGPROBS]
    values[_LOGPROBS] = None if trace is None else _unpack_trace(trace)
    lm_eval = values[_LM_EVAL]
    values[_LM_EVAL] = None if lm_eval is None else LmEvalParts(*lm_eval)
    return ResponseRecord(*values)  # positional, in field order: faster than keywords


def _pack_trace(trace: LogprobTrace) -> tuple[Any, ...]:
    return (trace.tokens, trace.logprobs.tobytes(), trace.top, trace.top_k)


def _unpack_trace(packed: tuple[Any, ...]) -> LogprobTrace:
    tokens, logprobs, top, top_k = packed
    return LogprobTrace(tokens=tokens, logprobs=_array("d", logprobs), top=top, top_k=top_k)


def _array(typecode: str, data: bytes) -> array[Any]:
    values = array(typecode)
    values.frombytes(data)
    return values

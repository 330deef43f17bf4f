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
from collections import Counter
from operator import itemgetter
from pathlib import Path

from k3diff.closeable import Closeable
from k3diff.responses import recordcap
from k3diff.responses.ignore import drop_ignored
from k3diff.responses.loaders import open_side_packed
from k3diff.responses.model import LoadOptions, ResponseRecord
from k3diff.responses.packed import (
    BEAMS,
    CHOICE,
    CLIENT_FIELD,
    CLIENT_KEY,
    ID,
    INDEX,
    KEY,
    LINE,
    MEMBER,
    PROMPT,
    REQUEST,
    Packed,
    pack,
    unpack,
)

_KEYS = itemgetter(
    LINE, INDEX, MEMBER, CHOICE, REQUEST, PROMPT, KEY, ID, CLIENT_KEY, CLIENT_FIELD, BEAMS
)
"""What `add_packed` keeps in memory of a packed record."""
_READ_AHEAD = 1 << 20
"""Records are read back in file order in blocks of about this size."""
_BUFFER_BYTES = 1 << 20
"""Records are written to the temporary file through a buffer of this size (one write call
a megabyte, not one a record). The file's own buffer, allocated once: a bytearray emptied after
each block (`clear`) gave its memory back, and refilling it touched a fresh megabyte each time
(25,000 page faults a side of the benchmark, ≈ 0.05-0.1 s of system time)."""


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
        self.beams: Counter[int] = Counter()
        """Records that held beams (TensorRT-LLM), by how many they held
        (`k3diff.responses.beams`)."""
        self._indexes: dict[int, int] = {}
        self._members: dict[int, str] = {}
        self._by_field = by_field
        self._offsets = array("q", [0])
        self._end = 0
        # Closed by close() / __exit__: the file lives as long as this object.
        self._file = tempfile.TemporaryFile(  # noqa: SIM115
            prefix="k3diff-responses-", buffering=_BUFFER_BYTES
        )
        self._write = self._file.write
        self._writing = True
        self._position = -1
        self._block = memoryview(b"")
        """Records read ahead, from file offset `_block_start` on (sliced without a copy)."""
        self._block_start = 0

    def add(self, record: ResponseRecord) -> None:
        """Park one record at the next position."""
        self.add_packed(pack(record))

    def add_packed(self, packed: Packed) -> None:
        """Park one record, given as `pack` makes it (the fast reader builds it directly)."""
        data = marshal.dumps(packed)
        self._write(data)
        self._end += len(data)
        self._offsets.append(self._end)
        line, index, member, choice, request, prompt, key, rid, client, field, beams = _KEYS(packed)
        if beams is not None:
            self.beams[beams] += 1
        if index is not None:
            self._indexes[len(self.lines)] = index
        if member is not None:
            self._members[len(self.lines)] = member
        self.lines.append(line)
        if choice is not None:  # one choice of several: every key names the choice
            suffix = f"#{choice}"
            request, prompt = _suffixed(request, suffix), _suffixed(prompt, suffix)
            key, rid, client = (_suffixed(k, suffix) for k in (key, rid, client))
        self.requests.append(request)
        self.prompts.append(prompt)
        if self._by_field:
            self.keys.append(key)
        else:
            self.ids.append(rid)
            self.client_keys.append(client)
            self.client_fields.add(field)

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
        return unpack(self.packed(position))

    def packed(self, position: int) -> Packed:
        """The record at `position` as `pack` made it (no `ResponseRecord` built)."""
        if self._writing:
            self._file.flush()
            self._writing = False
        start, end = self._offsets[position], self._offsets[position + 1]
        sequential = self._position == position
        self._position = position + 1
        at = start - self._block_start
        if at < 0 or end - self._block_start > len(self._block):
            self._file.seek(start)
            if not sequential:  # a record out of order: just its bytes
                packed: Packed = marshal.loads(self._file.read(end - start))
                return packed
            # In file order (the common case) the next records come in one read.
            self._block = memoryview(self._file.read(max(_READ_AHEAD, end - start)))
            self._block_start, at = start, 0
        packed = marshal.loads(self._block[at : at + end - start])
        return packed

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
    fmt, records = open_side_packed(path, display, options)
    side = SpilledSide(display, fmt, by_field=options.key_path is not None)
    ignored = options.ignore_fields
    cap = recordcap.MAX_RECORDS
    lines = side.lines
    try:
        for packed in records:
            if len(lines) >= cap:  # checked before the record is kept: memory stops with it
                raise recordcap.past_side_cap(display, f"line {packed[LINE]}")
            side.add_packed(packed if not ignored else drop_ignored(packed, ignored))
    except BaseException:
        side.close()
        raise
    return side


def _suffixed(key: str | None, suffix: str) -> str | None:
    return key if key is None or not suffix else key + suffix

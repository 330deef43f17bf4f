"""One side's records, read once and parked in a temporary file; only the pairing keys stay in memory.

A normalised record costs a kilobyte or more as Python objects, so holding both sides of a
100,000-record comparison costs hundreds of megabytes. Instead each record is `marshal`led (the
fastest encoder of plain tuples, strings and bytes) into an anonymous temporary file as the loader
yields it, and read back by position when its pair is compared. Memory then holds, per record,
its keys, its line and an offset: a few hundred bytes, whatever the size of the outputs.

The temporary file is unlinked at creation, so it disappears when closed or when the process
dies; it lives in the standard temporary directory (``TMPDIR``).

Each record is stored as two `marshal` texts: its compared fields (text, token ids, compared
rest, finish reason, usage, run state; `COMPARED`) and the rest. The compared part is written
with marshal version 2, which has no back-references, so equal values of these plain types are
written as equal bytes (a string is always its UTF-8; interned or not may make equal strings
differ, never the reverse), and equal bytes always read back as equal values. A record whose
error, lm-eval parts, logprobs and scores are absent and whose usage and run state hold no NaN
(the one value unequal to itself) is flagged `plain`: two plain records whose compared bytes are
equal are identical (`matchpair.identical`) without reading either back.
"""

from __future__ import annotations

import marshal
import tempfile
from array import array
from operator import itemgetter
from pathlib import Path
from typing import Any

from k3diff.closeable import Closeable
from k3diff.responses.loaders import open_side_packed
from k3diff.responses.model import LoadOptions, ResponseRecord
from k3diff.responses.packed import (
    CHOICE,
    CLIENT_FIELD,
    CLIENT_KEY,
    ERROR,
    FIELDS,
    FINISH,
    ID,
    INDEX,
    KEY,
    LINE,
    LM_EVAL,
    LOGPROBS,
    MEMBER,
    OTHER,
    PROMPT,
    REQUEST,
    RUN_STATE,
    SCORES,
    TEXT,
    TOKEN_IDS,
    USAGE,
    Packed,
    pack,
    unpack,
)

_KEYS = itemgetter(LINE, INDEX, MEMBER, CHOICE, REQUEST, PROMPT, KEY, ID, CLIENT_KEY, CLIENT_FIELD)
"""What `add_packed` keeps in memory of a packed record."""
COMPARED = (TEXT, TOKEN_IDS, OTHER, FINISH, USAGE, RUN_STATE)
"""The fields written apart, as the record's compared part."""
_REST = tuple(i for i in range(len(FIELDS)) if i not in COMPARED)
_GET_COMPARED, _GET_REST = itemgetter(*COMPARED), itemgetter(*_REST)
_MERGE = itemgetter(*map((*_REST, *COMPARED).index, range(len(FIELDS))))
"""The packed record from its rest followed by its compared part."""
_COMPARED_VERSION = 2
"""marshal version of the compared part: the last without back-references."""
NOT_PLAIN, PLAIN, PLAIN_WITH_IDS = 0, 1, 2
"""What `plain` says of a record."""
_READ_AHEAD = 1 << 20
"""Records are read back in file order in blocks of about this size."""
_BUFFER_BYTES = 1 << 20
"""Records are written to the temporary file in blocks of about this size (one write call
each, not one a record)."""


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
        self._compared = array("q")
        """Where each record's compared part begins in the temporary file."""
        self._plain = bytearray()
        self._end = 0
        # Closed by close() / __exit__: the file lives as long as this object.
        self._file = tempfile.TemporaryFile(prefix="k3diff-responses-")  # noqa: SIM115
        self._pending = bytearray()
        self._writing = True
        self._position = -1
        self._block = b""
        """Records read ahead, from file offset `_block_start` on."""
        self._block_start = 0

    def add(self, record: ResponseRecord) -> None:
        """Park one record at the next position."""
        self.add_packed(pack(record))

    def add_packed(self, packed: Packed) -> None:
        """Park one record, given as `pack` makes it (the fast reader builds it directly)."""
        rest = marshal.dumps(_GET_REST(packed))
        compared = marshal.dumps(_GET_COMPARED(packed), _COMPARED_VERSION)
        pending = self._pending
        pending += rest
        pending += compared
        if len(pending) >= _BUFFER_BYTES:
            self._file.write(pending)
            pending.clear()
        self._compared.append(self._end + len(rest))
        self._end += len(rest) + len(compared)
        self._offsets.append(self._end)
        self._plain.append(_plain(packed))
        line, index, member, choice, request, prompt, key, rid, client, field = _KEYS(packed)
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

    def packed(self, position: int, compared: Packed | None = None) -> Packed:
        """The record at `position` as `pack` made it (no `ResponseRecord` built); with
        `compared`, its compared part is taken to be that (read back from an equal one)."""
        view, split = self._view(position)
        rest = marshal.loads(view[:split])
        if compared is None:
            compared = marshal.loads(view[split:])
        packed: Packed = _MERGE(rest + compared)
        return packed

    def compared_part(self, position: int) -> Packed:
        """The compared fields of the record at `position` (`COMPARED`, in that order)."""
        view, split = self._view(position)
        compared: Packed = marshal.loads(view[split:])
        return compared

    def compared_bytes(self, position: int) -> bytes:
        """The record's compared part as written (see the module doc)."""
        view, split = self._view(position)
        return bytes(view[split:])

    def plain(self, position: int) -> int:
        """NOT_PLAIN, or PLAIN / PLAIN_WITH_IDS (token ids present) when equal compared bytes
        make the record identical to another (see the module doc)."""
        return self._plain[position]

    def _view(self, position: int) -> tuple[memoryview, int]:
        """The bytes of the record at `position`, and where its compared part begins in them."""
        if self._writing:
            self._file.write(self._pending)
            self._file.flush()
            self._pending = bytearray()
            self._writing = False
        start, end = self._offsets[position], self._offsets[position + 1]
        split = self._compared[position] - start
        sequential = self._position == position
        self._position = position + 1
        at = start - self._block_start
        if at < 0 or end - self._block_start > len(self._block):
            self._file.seek(start)
            if not sequential:  # a record out of order: just its bytes
                return memoryview(self._file.read(end - start)), split
            # In file order (the common case) the next records come in one read.
            self._block = self._file.read(max(_READ_AHEAD, end - start))
            self._block_start, at = start, 0
        return memoryview(self._block)[at : at + end - start], split

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
    try:
        for packed in records:
            side.add_packed(packed)
    except BaseException:
        side.close()
        raise
    return side


def identical_spilled(base: SpilledSide, base_at: int, patch: SpilledSide, patch_at: int) -> int:
    """PLAIN or PLAIN_WITH_IDS when the two records are identical by their compared bytes
    (`matchpair.identical`, the fingerprint left out; see the module doc), else NOT_PLAIN (they
    may still be: read them back to know)."""
    plain = base._plain[base_at]
    if plain and plain == patch._plain[patch_at]:
        base_view, base_split = base._view(base_at)
        patch_view, patch_split = patch._view(patch_at)
        if base_view[base_split:].tobytes() == patch_view[patch_split:].tobytes():
            return plain
    return NOT_PLAIN


def _plain(packed: Packed) -> int:
    """`SpilledSide.plain` of a packed record."""
    if (
        packed[ERROR] is not None
        or packed[LM_EVAL] is not None
        or packed[LOGPROBS] is not None
        or packed[SCORES]
        or not _no_nan(packed[USAGE])
        or not _no_nan(packed[RUN_STATE])
    ):
        return NOT_PLAIN
    return PLAIN if packed[TOKEN_IDS] is None else PLAIN_WITH_IDS


_NO_NAN = frozenset({str, int, bool, type(None)})
"""Types of values that are never NaN."""


def _no_nan(value: Any) -> bool:
    """True when no NaN is anywhere in `value` (a decoded JSON value, or None)."""
    kind = type(value)
    if kind is dict:
        if _NO_NAN.issuperset(map(type, value.values())):
            return True  # flat (usage, mostly): one look at the value types
        return all(map(_no_nan, value.values()))
    if kind is list or kind is tuple:
        return all(map(_no_nan, value))
    if kind is float:
        return bool(value == value)  # NaN alone is unequal to itself
    return True


def _suffixed(key: str | None, suffix: str) -> str | None:
    return key if key is None or not suffix else key + suffix

"""Where record diffs go while a comparison streams, so that only what a report prints is kept.

- `WorstFirst` keeps the worst `limit` diffs for the text and Markdown table, plus a count of
  the rest: memory is bounded by `limit`, not by the number of records.
- `RecordSpool` writes every diff as one compact JSON line into a temporary file, and hands its
  bytes back in order for the JSON report, which carries every record (copied as they are).
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Callable, Iterator
from typing import Any

from k3diff import jsontext
from k3diff.closeable import Closeable
from k3diff.responses.results import RecordDiff, worst_first_key

MIN_BUFFER = 1024
"""Diffs buffered before the buffer is sorted and cut back to `limit`."""
JOINED_BYTES = 1 << 20
"""About how much of the spool `blocks` hands on at a time."""
_STRICT = json.JSONEncoder(allow_nan=False)
"""`jsontext.dumps`'s first attempt, built once (`json.dumps` with options builds one a call)."""


class WorstFirst:
    """The `limit` worst diffs seen (all of them when `limit` is 0), in worst-first order."""

    def __init__(self, limit: int) -> None:
        self._limit = limit
        self._buffer: list[RecordDiff] = []
        self._seen = 0
        self._cutoff: tuple[int, float, str] | None = None
        """The sort key of the last diff kept at the latest cut: one past it is never shown."""

    def add(self, record: RecordDiff) -> None:
        """Offer one diff."""
        self._seen += 1
        self._buffer.append(record)
        if self._limit and len(self._buffer) >= max(2 * self._limit, MIN_BUFFER):
            self._buffer = self.shown()
            if len(self._buffer) == self._limit:
                self._cutoff = worst_first_key(self._buffer[-1])

    def add_lazy(self, sort_key: tuple[int, float, str], make: Callable[[], RecordDiff]) -> None:
        """Offer a diff by its `worst_first_key`, made (`make()`) only if it may be shown: one
        that sorts after `limit` diffs already kept is counted and dropped unmade."""
        if self._cutoff is not None and sort_key > self._cutoff:
            self._seen += 1
            return
        self.add(make())

    def shown(self) -> list[RecordDiff]:
        """The kept diffs, worst first (keys are unique, so the order is total)."""
        self._buffer.sort(key=worst_first_key)
        return self._buffer[: self._limit] if self._limit else list(self._buffer)

    @property
    def hidden(self) -> int:
        """Diffs seen but not shown."""
        return self._seen - min(self._seen, self._limit or self._seen)


class RecordSpool(Closeable):
    """Every diff's JSON form as compact JSON in a temporary file, in arrival order, one after
    the other with `separator` between them (what the report's list writer puts between items,
    so the report copies the file's bytes as they are: `blocks`)."""

    def __init__(self, separator: str = "\n") -> None:
        # json.dumps escapes non-ASCII (and lone surrogates) and control characters, so every
        # item is plain ASCII on one line: a separator holding one newline is found in the
        # file exactly where it was written.
        if separator.count("\n") != 1:
            raise ValueError("the separator of spooled JSON items must hold one newline")
        self._separator = separator
        self._lead = ""
        """What goes before the next item: nothing before the first, then the separator."""
        # Written, then read, front to back: a large buffer makes few system calls.
        self._file = tempfile.TemporaryFile(  # noqa: SIM115 (closed by close / __exit__)
            buffering=JOINED_BYTES, prefix="k3diff-records-"
        )

    def add(self, document: dict[str, Any]) -> None:
        """Append one diff's JSON form."""
        try:
            text = _STRICT.encode(document)
        except ValueError:  # a non-finite float: written as a string, like every document
            text = jsontext.dumps(document)
        self.add_text(text)

    def add_text(self, text: str) -> None:
        """Append one diff's JSON form, already encoded as `add` would (ASCII, one line; text
        beyond ASCII is refused, `UnicodeEncodeError`)."""
        self._file.write((self._lead + text).encode("ascii"))
        self._lead = self._separator

    @property
    def empty(self) -> bool:
        """True while no item is spooled."""
        return not self._lead

    def blocks(self) -> Iterator[bytes]:
        """The file's bytes, front to back, in blocks of about `JOINED_BYTES` (cut anywhere):
        the items joined by the separator."""
        self._file.flush()
        self._file.seek(0)
        while block := self._file.read(JOINED_BYTES):
            yield block

    def lines(self) -> Iterator[str]:
        """The spooled diffs as JSON texts, in the order they were added."""
        carry = ""
        for block in self.blocks():
            items = (carry + block.decode("ascii")).split(self._separator)
            carry = items.pop()  # the last item may go on in the next block
            yield from items
        if carry:  # the last item (items are never empty)
            yield carry

    def close(self) -> None:
        """Delete the temporary file."""
        self._file.close()

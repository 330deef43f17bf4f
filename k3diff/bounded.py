"""Bounded readers for the files `responses`, `triage`, `report` and `sample --prompts` read.

Inputs are hostile: a 500 MB line, `/dev/zero`, a FIFO nobody writes to, JSON nested 100,000
deep, a 5,000-digit integer. Every line, record and whole-file document goes through here:

- `open_input` opens only regular files (a FIFO is opened without blocking and refused, as is a
  device or a directory), so nothing waits forever or reads without end;
- `lines` yields each line with its number and refuses one longer than the record cap
  (`--max-record-bytes`) after reading at most that much of it;
- `read_document` reads a whole file of at most the document cap (`--max-document-bytes`),
  none of whose lines is longer than the record cap;
- `loads` decodes JSON and turns every way a decoder can fail on hostile input (depth, huge
  integers, memory, duplicate keys) into one `InputError` naming the place; syntax errors stay
  `json.JSONDecodeError` for the caller to word (they carry line and column). It and the
  other JSON decoding (`loads_line`, `raw_decode`, the byte order mark's refusal) live in
  `strictjson`, re-exported here: every reader imports its caps and its decoding from one place.

The caps are per run (`caps(...)`, set by the CLI from its options): a context variable rather
than a parameter threaded through every loader.
The JSON decisions (duplicate keys, `NaN`, depth) are `strictjson`'s docstring.
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from pathlib import Path
from typing import BinaryIO, NamedTuple

from k3diff.errors import InputError
from k3diff.strictjson import BOM as BOM
from k3diff.strictjson import MAX_JSON_DEPTH as MAX_JSON_DEPTH
from k3diff.strictjson import bom_refused as bom_refused
from k3diff.strictjson import loads as loads
from k3diff.strictjson import loads_line as loads_line
from k3diff.strictjson import raw_decode as raw_decode
from k3diff.strictjson import without_bom as without_bom

MIB = 1 << 20
DEFAULT_MAX_RECORD_BYTES = 64 * MIB
"""Longest line or record read (`--max-record-bytes`)."""
DEFAULT_MAX_DOCUMENT_BYTES = 1024 * MIB
"""Largest file read whole (`--max-document-bytes`): JSON arrays and documents."""


class Caps(NamedTuple):
    """How much of one input a reader takes before it refuses the file. (A NamedTuple, as
    immutable: every command defines it at start-up, where a frozen dataclass's generated
    methods cost ≈ 0.8 ms to compile; issue 41.)"""

    record_bytes: int = DEFAULT_MAX_RECORD_BYTES
    """Longest line (or one record) in bytes, its line break included."""
    document_bytes: int = DEFAULT_MAX_DOCUMENT_BYTES
    """Largest file read whole, in bytes."""


DEFAULT_CAPS = Caps()
_CAPS: ContextVar[Caps] = ContextVar("k3diff_input_caps", default=DEFAULT_CAPS)


def current_caps() -> Caps:
    """The caps of this run."""
    return _CAPS.get()


@contextlib.contextmanager
def caps(record_bytes: int | None = None, document_bytes: int | None = None) -> Iterator[Caps]:
    """Set this run's caps (None keeps the default) for the duration of the block."""
    chosen = Caps(
        record_bytes if record_bytes is not None else DEFAULT_MAX_RECORD_BYTES,
        document_bytes if document_bytes is not None else DEFAULT_MAX_DOCUMENT_BYTES,
    )
    token = _CAPS.set(chosen)
    try:
        yield chosen
    finally:
        _CAPS.reset(token)


_READS: ContextVar[Callable[[int], None] | None] = ContextVar("k3diff_read_progress", default=None)


@contextlib.contextmanager
def counting_reads(advance: Callable[[int], None]) -> Iterator[None]:
    """Pass the bytes of every line and document read in the block to `advance` (progress of
    a load: the loaders read through here, and the callback is not threaded through each)."""
    token = _READS.set(advance)
    try:
        yield
    finally:
        _READS.reset(token)


def size_text(count: int) -> str:
    """`64 MiB`, `1 GiB`, `12345 bytes`: a cap as a person would write it."""
    for unit, name in ((1 << 30, "GiB"), (MIB, "MiB"), (1 << 10, "KiB")):
        if count >= unit and count % unit == 0:
            return f"{count // unit} {name}"
    return f"{count:,} bytes"


_FILE_TYPES = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def open_regular(path: Path, display: str, what: str = "file") -> int:
    """A read-only descriptor of `path`, refused with InputError unless a regular file: the one
    way every command opens what it reads (wheels and archives through `ZipArchive.open`).

    Opened with O_NONBLOCK so a FIFO without a writer cannot block the open; the flag is
    cleared again for the regular file that is then read."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError as exc:
        raise InputError(f"{display}: no such file") from exc
    except IsADirectoryError as exc:
        raise InputError(f"{display}: is a directory, not a {what}") from exc
    except OSError as exc:
        raise InputError(f"{display}: cannot read: {exc.strerror or exc}") from exc
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        kind = next((name for test, name in _FILE_TYPES if test(mode)), "not a regular file")
        raise InputError(f"{display}: is {kind}, not a regular {what}; refused")
    os.set_blocking(fd, True)
    return fd


def open_input(path: Path, display: str, what: str = "file") -> BinaryIO:
    """`path` opened for reading in binary (see `open_regular`)."""
    return os.fdopen(open_regular(path, display, what), "rb")


def _too_long(display: str, lineno: int, cap: int) -> InputError:
    return InputError(
        f"{display}:{lineno}: line longer than {size_text(cap)} (--max-record-bytes); "
        "refused (raise the cap if the file is trusted)"
    )


def lines(handle: BinaryIO, display: str) -> Iterator[tuple[int, bytes]]:
    """Every line of `handle` (line break kept) with its 1-based number; InputError on a line
    longer than the record cap, having read at most the cap of it."""
    cap = current_caps().record_bytes
    advance = _READS.get()
    lineno = 0
    while True:
        raw = handle.readline(cap + 1)
        if not raw:
            return
        lineno += 1
        if len(raw) > cap:
            raise _too_long(display, lineno, cap)
        if advance is not None:
            advance(len(raw))
        yield lineno, raw


def file_lines(path: Path, display: str, what: str = "file") -> Iterator[tuple[int, bytes]]:
    """`lines` of the regular file at `path`, closed when the iteration ends."""
    with open_input(path, display, what) as handle:
        yield from lines(handle, display)


def read_document(path: Path, display: str, what: str = "file") -> bytes:
    """The whole regular file at `path`, refused when larger than the document cap or when one
    of its lines is longer than the record cap."""
    limits = current_caps()
    with open_input(path, display, what) as handle:
        size = os.fstat(handle.fileno()).st_size
        if size > limits.document_bytes:
            raise _too_big(display, size, limits.document_bytes)
        return _read_bounded(handle, display, limits)


def _read_bounded(handle: BinaryIO, display: str, limits: Caps) -> bytes:
    """The rest of `handle`, stopping as soon as the document or one line is over its cap (a
    500 MB line costs at most the record cap of memory, not 500 MB)."""
    cap = limits.record_bytes
    # A line inside one chunk is shorter than the chunk, so at most the cap: only lines that
    # cross a chunk boundary need measuring, and `line` carries their length so far.
    chunk_size = max(1, min(1 << 20, cap))
    chunks: list[bytes] = []
    total = line = newlines = 0
    advance = _READS.get()
    while chunk := handle.read(chunk_size):
        total += len(chunk)
        if advance is not None:
            advance(len(chunk))
        if total > limits.document_bytes:  # grew while being read
            raise _too_big(display, total, limits.document_bytes)
        first = chunk.find(b"\n")
        if first < 0:
            line += len(chunk)
        else:
            if line + first + 1 > cap:
                raise _too_long(display, newlines + 1, cap)
            newlines += chunk.count(b"\n")
            line = len(chunk) - chunk.rfind(b"\n") - 1
        if line > cap:
            raise _too_long(display, newlines + 1, cap)
        chunks.append(chunk)
    return b"".join(chunks)


def _too_big(display: str, size: int, cap: int) -> InputError:
    return InputError(
        f"{display}: {size:,} bytes, more than {size_text(cap)} (--max-document-bytes); "
        "refused (raise the cap if the file is trusted)"
    )

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
  `json.JSONDecodeError` for the caller to word (they carry line and column).

The caps are per run (`caps(...)`, set by the CLI from its options): a context variable rather
than a parameter threaded through every loader.

JSON decisions: a key repeated in one object is refused (exit 2 naming the key): which value a
reader takes differs between parsers, so the file does not say one thing. `NaN`, `Infinity` and
`-Infinity` are read where others wrote the JSON (Python servers write them, e.g. a `-Infinity`
logprob); k3diff writes them as the strings `"NaN"`, `"Infinity"`, `"-Infinity"` (`jsontext`), so
its documents and logs are read `written`: a bare one is a syntax error there, as in `jq`.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import stat
import sys
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO, NamedTuple

from k3diff.errors import InputError
from k3diff.lazyre import lazy

if TYPE_CHECKING:
    import json

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


class DuplicateKeyError(ValueError):
    """A JSON object names one key twice."""

    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


_OBJECTS_MADE = itertools.count()
"""One step per object the strict decoder makes (`next` is one C call: no two threads' steps
are lost, so a count taken around one decode is never short of its own objects)."""


def _unique_object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    next(_OBJECTS_MADE)
    obj = dict(pairs)
    if len(obj) != len(pairs):
        seen: set[str] = set()
        for key, _value in pairs:
            if key in seen:
                raise DuplicateKeyError(key)
            seen.add(key)
    return obj


_DECODER: json.JSONDecoder | None = None
"""The strict decoder, made for the first document read (`_strict`): `json` is imported then,
so that a command that reads no JSON (a `wheels` text report) does not import it."""
_WRITTEN: json.JSONDecoder | None = None
"""The strict decoder of JSON k3diff wrote: no `NaN`, `Infinity` or `-Infinity` either."""


class _NotWritten(ValueError):
    """What k3diff never writes, in JSON it wrote (`jsontext.unwritten`): a bare `NaN`, `1e999`."""


def _strict(written: bool = False) -> json.JSONDecoder:
    global _DECODER, _WRITTEN
    import json

    def refuse(literal: str) -> float:  # `parse_constant`, `parse_float`: `1e999` is infinite
        if literal[-1:].isdigit() and abs(number := float(literal)) != float("inf"):
            return number
        raise _NotWritten(literal)

    _DECODER = json.JSONDecoder(object_pairs_hook=_unique_object)
    _WRITTEN = json.JSONDecoder(
        object_pairs_hook=_unique_object, parse_constant=refuse, parse_float=refuse
    )
    return _WRITTEN if written else _DECODER


def loads(data: str | bytes, where: str, written: bool = False) -> Any:
    """`data` decoded as JSON; InputError naming `where` for a duplicate key, nesting too deep,
    an integer too long to convert, or memory running out. Syntax errors are raised as
    `json.JSONDecodeError` (and invalid UTF-8 as `UnicodeDecodeError`) for the caller to word;
    with `written` (JSON k3diff wrote), so are a bare `NaN` or infinity and `1e999` (`jsontext`)."""
    text = data.decode("utf-8") if isinstance(data, bytes) else data
    try:  # not `with _decoding(where)`: a context manager costs more than a small record's parse
        value = ((_WRITTEN if written else _DECODER) or _strict(written)).decode(text)
    except _NotWritten as exc:
        from k3diff.jsontext import unwritten

        raise unwritten(str(exc), text) from None
    except (ValueError, RecursionError, MemoryError):
        with _decoding(where):
            raise
    _check_depth(text, where)
    return value


_FAILURES = (ValueError, RecursionError, MemoryError, StopIteration)


def loads_line(text: str) -> Any:
    """`loads(text, ...)` of a line holding one JSON object (`{...}`, then nothing or one
    newline) that decodes with no error and nests at most `MAX_JSON_DEPTH` brackets; None for
    anything else, which the caller then decodes with `loads` (the same value, or the same
    error worded with its place). Skips `JSONDecoder.decode`'s two Python frames and two
    whitespace matches, a tenth of a kilobyte record's decode."""
    first = next(_OBJECTS_MADE)
    try:
        # scan_once: set by JSONDecoder.__init__ (the C scanner), not in typeshed
        value, end = (_DECODER or _strict()).scan_once(text, 0)  # type: ignore[attr-defined]
    except _FAILURES:
        return None
    size = len(text)
    if type(value) is not dict or (end != size and (end != size - 1 or text[end] != "\n")):
        return None
    # Nesting is at most the containers made: the objects counted as the decoder made them
    # (another thread's only add to the count), and at most one array per `[` of the text.
    # One count of the line where `_check_depth` takes two.
    if next(_OBJECTS_MADE) - first - 1 + text.count("[") > MAX_JSON_DEPTH:
        return None  # `loads` walks the nesting and says whether it is too deep
    return value


BOM = "\ufeff"
"""A UTF-8 byte order mark, decoded. Editors and shells (PowerShell's `Out-File`, Notepad) put
one before the first line of a file they write; a responses or prompts file (what other tools
write) is read past one there (a responses file's JSON Lines past one on any line). k3diff writes none, so its documents and logs, and any other
line, refuse one naming it rather than as JSON that "expects a value"."""


def bom_refused(where: str) -> InputError:
    """The one refusal of a byte order mark (`BOM`) where k3diff does not read past one."""
    return InputError(
        f"{where}: starts with a UTF-8 byte order mark, which k3diff reads past only in a "
        "responses or prompts file; save it as UTF-8 without one"
    )


def without_bom(data: bytes, where: str) -> bytes:
    """`data`, refused (`bom_refused`) when it starts with a byte order mark: for a file that is
    not JSON (a TOML waiver file, a sha256sum manifest), whose parser would name no cause."""
    if data.startswith(BOM.encode()):
        raise bom_refused(where)
    return data


MAX_JSON_DEPTH = 100
"""Deepest nesting of arrays and objects accepted. Real responses nest a few levels; what the
comparison does with a record (deepdiff, JSON output) recurses once or more per level, so a
record nested a few hundred deep would exhaust Python's stack there rather than here."""

_JSON_STRING = lazy(r'"[^"\\]*(?:\\.[^"\\]*)*"')
_INNERMOST = lazy(r"\[[^\[\]{}]*\]|\{[^\[\]{}]*\}")


def _check_depth(text: str, where: str) -> None:
    """InputError when `text` (valid JSON) nests deeper than MAX_JSON_DEPTH. Text with fewer
    brackets than that cannot, and costs two counts; otherwise each pass of a C regex removes
    the innermost level, so the work is one pass per level actually present."""
    if text.count("[") + text.count("{") <= MAX_JSON_DEPTH:
        return
    bare = _JSON_STRING.sub("", text)
    for _level in range(MAX_JSON_DEPTH):
        bare, removed = _INNERMOST.subn("", bare)
        if not removed:
            return
    if "[" in bare or "{" in bare:
        raise InputError(f"{where}: JSON nested deeper than {MAX_JSON_DEPTH} levels; refused")


@contextlib.contextmanager
def _decoding(where: str) -> Iterator[None]:
    """Every way decoding hostile JSON fails but a syntax error, as one InputError."""
    import json  # loaded by the decoding that failed

    try:
        yield
    except DuplicateKeyError as exc:
        raise InputError(
            f"{where}: a JSON object repeats the key {exc.key!r}; refused (parsers disagree "
            "on which value counts)"
        ) from exc
    except RecursionError as exc:
        raise InputError(f"{where}: JSON nested too deeply; refused") from exc
    except MemoryError as exc:
        raise InputError(f"{where}: out of memory decoding JSON; refused") from exc
    except json.JSONDecodeError as exc:
        if exc.pos == 0 and exc.doc.startswith(BOM):
            raise bom_refused(where) from exc
        raise
    except ValueError as exc:
        if "integer string conversion" in str(exc):
            limit = f"{sys.get_int_max_str_digits():,}"
            raise InputError(f"{where}: an integer of more than {limit} digits; refused") from exc
        raise InputError(f"{where}: unusable JSON value: {exc}") from exc


def raw_decode(text: str, pos: int, where: str) -> tuple[Any, int]:
    """One JSON value of `text` starting at `pos` and where it ends, with the errors of
    `loads` (for a JSON array read element by element)."""
    with _decoding(where):
        value, end = (_DECODER or _strict()).raw_decode(text, pos)
    _check_depth(text[pos:end], where)
    return value, end

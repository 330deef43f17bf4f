"""Strict JSON decoding of hostile input, for the readers of `bounded`.

`loads` decodes JSON and turns every way a decoder can fail on hostile input (depth, huge
integers, memory, duplicate keys) into one `InputError` naming the place; syntax errors stay
`json.JSONDecodeError` for the caller to word (they carry line and column). `loads_line` is its
fast path for one JSON Lines record, `raw_decode` its element-by-element form for an array.

JSON decisions: a key repeated in one object is refused (exit 2 naming the key): which value a
reader takes differs between parsers, so the file does not say one thing. `NaN`, `Infinity` and
`-Infinity` are read where others wrote the JSON (Python servers write them, e.g. a `-Infinity`
logprob); k3diff writes them as the strings `"NaN"`, `"Infinity"`, `"-Infinity"` (`jsontext`), so
its documents and logs are read `written`: a bare one is a syntax error there, as in `jq`.
A byte order mark is refused naming it (`BOM`, `bom_refused`, `without_bom`).

Callers import these through `k3diff.bounded`, which re-exports them beside its readers.
"""

from __future__ import annotations

import contextlib
import itertools
import sys
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from k3diff.errors import InputError
from k3diff.lazyre import lazy

if TYPE_CHECKING:
    import json


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


def _check_depth(text: str, where: str, levels: int = MAX_JSON_DEPTH) -> None:
    """InputError when `text` (valid JSON) nests deeper than MAX_JSON_DEPTH (`levels` of it
    left, for a value inside others). Text with fewer brackets than that cannot, and costs two
    counts; otherwise each pass of a C regex removes the innermost level, so the work is one
    pass per level actually present."""
    if text.count("[") + text.count("{") <= levels:
        return
    bare = _JSON_STRING.sub("", text)
    for _level in range(levels):
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
        raise repeated_key(exc.key, where) from exc
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


def decode_at(text: str, pos: int, where: str, levels: int) -> tuple[Any, int]:
    """One JSON value of `text` k3diff wrote, starting at `pos`, and where it ends: decoded as
    `loads(..., written=True)` decodes it (its errors, at their places in `text`), nesting at
    most `levels` (what `MAX_JSON_DEPTH` leaves where it sits: `jsonmembers`)."""
    try:
        value, end = (_WRITTEN or _strict(True)).raw_decode(text, pos)
    except _NotWritten as exc:
        from k3diff.jsontext import unwritten

        raise unwritten(str(exc), text) from None
    except (ValueError, RecursionError, MemoryError):
        with _decoding(where):
            raise
    _check_depth(text[pos:end], where, levels)
    return value, end


def repeated_key(key: str, where: str) -> InputError:
    """The refusal of an object that names `key` twice."""
    return InputError(
        f"{where}: a JSON object repeats the key {key!r}; refused (parsers disagree on which "
        "value counts)"
    )


def raw_decode(text: str, pos: int, where: str) -> tuple[Any, int]:
    """One JSON value of `text` starting at `pos` and where it ends, with the errors of
    `loads` (for a JSON array read element by element)."""
    with _decoding(where):
        value, end = (_DECODER or _strict()).raw_decode(text, pos)
    _check_depth(text[pos:end], where)
    return value, end

"""A JSON value of a k3diff document decoded whole under a cap of the values it holds
(`decode_capped`), so that no member and no item of a document costs more than its kind's
genuine documents do.

review80f: after its `schema` a document's members were decoded whole whatever they held:
`{"schema": "k3diff.triage/1", "records": [{}, {}, ...]}` of 4,000,000 items (12 MB) took 18.9 s
and 828 MB, a 1 GiB one tens of GB (about 24 bytes of memory a byte of `{},`, 32 of `[],`). The
values a span of text holds are bounded above by its commas and brackets plus one (`held`: each
value but a container's first follows a comma, each container starts with a bracket; those
inside strings are counted too, so a count is never short), which `str.count` takes at the speed
of memory. A value is decoded from a piece of the text no longer than what the values left
allow (`Budget`): a value that runs past its piece holds more than they allow and is refused
naming its member and the cap, having cost at most that many values.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from k3diff.errors import InputError
from k3diff.strictjson import decode_at

_BLOCK = 1 << 16
"""Characters counted at a time (`_sweep`): a piece ends at most this far past the cap."""
_FIRST = (1 << 12, 1 << 20)
"""Least and most characters of the first piece a value is decoded from (four times the last
value's length between them: a record like the one before it is decoded once, copying four
times its text)."""
_TAIL = 16
"""Characters at a piece's end where a syntax error may be the cut, not the text (`fals`, a
`\\u` escape, `-Infinit`): a value failing there is read further."""


def held(text: str, start: int, stop: int) -> int:
    """At most how many JSON values `text[start:stop]` holds: its commas and brackets, plus one
    (those inside strings counted too)."""
    return (
        text.count(",", start, stop)
        + text.count("[", start, stop)
        + text.count("{", start, stop)
        + 1
    )


@dataclass
class Budget:
    """The values a document may yet have decoded whole and kept (its kind's cap less what it
    has), and how a value past them is refused."""

    most: int
    """The cap of the document's kind (before its `schema` is read: the greatest of any)."""
    refuse: Callable[[str, int], InputError]
    """The refusal of member `key` (given with the cap) taking the document past `most`."""
    kept: int = 0
    """Values decoded whole and kept so far."""
    span: int = _FIRST[0]
    """Characters of the last value decoded (how long a piece is tried first)."""


def decode_capped(
    text: str, pos: int, where: str, levels: int, budget: Budget, key: str, keep: bool = True
) -> tuple[Any, int]:
    """The JSON value at `pos` and where it ends, as `strictjson.decode_at` reads it, refused
    (`budget.refuse`) once it holds more values than `budget` has left: the whole cap for a
    value not kept (`keep` false: an item its reader reads and drops), else what the document's
    earlier values left of it, which this one then takes."""
    left = budget.most - budget.kept if keep else budget.most
    size = len(text)
    first = min(size, pos + min(_FIRST[1], max(_FIRST[0], 4 * budget.span)))
    got = _attempt(text, pos, first, where, levels)
    if got is None:  # it runs past its first piece: count what the rest holds
        stop = _sweep(text, pos, left)
        got = _attempt(text, pos, stop, where, levels)
        if got is None:  # runs past a piece holding more than `left` + `_TAIL`
            raise budget.refuse(key, budget.most)
    value, end = got
    count = held(text, pos, end)
    if count > left:
        raise budget.refuse(key, budget.most)
    if keep:
        budget.kept += count
    budget.span = end - pos
    return value, end


def _sweep(text: str, pos: int, left: int) -> int:
    """Where a piece from `pos` holding at most `left` values ends: the text's end, or the first
    block boundary past which the piece holds more than `left` + `_TAIL`."""
    size = len(text)
    stop, count = pos, 0
    while stop < size and count <= left + _TAIL:
        nxt = min(size, stop + _BLOCK)
        count += held(text, stop, nxt) - 1
        stop = nxt
    return stop


def _attempt(text: str, pos: int, stop: int, where: str, levels: int) -> tuple[Any, int] | None:
    """The value at `pos` if it ends before `stop` (`stop` the text's end: wherever it ends),
    with its errors at their places in `text`; None where it may run past `stop`."""
    if stop >= len(text):
        return decode_at(text, pos, where, levels)
    piece = text[pos:stop]
    try:
        value, end = decode_at(piece, 0, where, levels)
    except json.JSONDecodeError as exc:
        if exc.pos >= len(piece) - _TAIL or exc.msg.startswith("Unterminated string"):
            return None
        raise json.JSONDecodeError(exc.msg, text, pos + exc.pos) from None
    if end >= len(piece) - _TAIL:  # a number or literal cut at the end may go on
        return None
    return value, pos + end

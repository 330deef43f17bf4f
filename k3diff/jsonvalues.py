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
_FIRST = (1 << 12, 1 << 24)
"""Least and most characters of the first piece a value is decoded from (twice the last value's
length between them: a record like the one before it is decoded once, copying twice its text);
each piece after it twice as long as the one before."""
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
    length = min(_FIRST[1], max(_FIRST[0], 2 * budget.span))
    counted = _Counted(pos, 0)
    while True:  # pieces twice as long each, each holding at most `left` + `_TAIL` values
        limit = min(len(text), pos + length)
        # a piece of no more characters than `left` holds no more values: counted past them
        stop = limit if limit - pos <= left else _sweep(text, counted, limit, left + _TAIL)
        got = _attempt(text, pos, stop, where, levels)
        if got is not None:
            break
        if counted.count > left + _TAIL:  # it runs past a piece holding more than `left`
            raise budget.refuse(key, budget.most)
        length *= 2
    value, end = got
    if keep or end - pos >= left:  # no shorter text holds more values than `left`
        count = held(text, pos, end)
        if count > left:
            raise budget.refuse(key, budget.most)
        budget.kept += count if keep else 0
    budget.span = end - pos
    return value, end


@dataclass
class _Counted:
    """How far from a value's start its text is counted, and the commas and brackets there."""

    stop: int
    count: int


def _sweep(text: str, counted: _Counted, limit: int, most: int) -> int:
    """Count on from `counted.stop` a block at a time up to `limit`, stopping past the block
    where the count passes `most`; where it stopped. Each character is counted once for a
    value however many pieces it is tried in (review80f: counting to the text's end for each
    member past its first piece made a thousand members of 1 MiB strings cost minutes)."""
    while counted.stop < limit and counted.count <= most:
        nxt = min(limit, counted.stop + _BLOCK)
        counted.count += held(text, counted.stop, nxt) - 1
        counted.stop = nxt
    return counted.stop


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

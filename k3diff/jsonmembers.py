"""A JSON document's top-level object read member by member (`read_object`), the items of a
long array member (a comparison's `records`) each handed to its reader as it is decoded and then
dropped, so that a document is never held as its raw dicts beside its typed view.

stream79: `report` decoded a 100 MB `k3diff.responses/1` document whole (≈ 3× the file in
dicts and strings) and then checked its nesting on the whole text (≈ 5× more while it ran), before
its reader made the typed view: a peak of ≈ 12× the file. Read here, the text (the file's size:
k3diff writes ASCII) and the typed view are what is held, with one item's dicts at a time.

Each member's value, and each item of a streamed array, is decoded by `strictjson.decode_at`
under its kind's cap of JSON values (`jsonvalues.decode_capped`, review80f)
(the strict decoder of JSON k3diff wrote: a repeated key, a bare `NaN`, an integer too long
refused as `loads` refuses them) and its nesting held to what `MAX_JSON_DEPTH` leaves at its
place (the object is one level, the array another). The object's own syntax is read as `json`
reads an object (`json.decoder.JSONObject`, whose words the C scanner shares: "Expecting ','
delimiter" at the same place), so that a document is refused as the whole-text decoder refused
it. Anything but an object (a list, a number, a byte order mark) is left to `loads`, a list
first read item by item and dropped (its type is all the caller names), so that no form of the
file is held as more than its text.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from k3diff.errors import InputError
from k3diff.jsonvalues import Budget, decode_capped
from k3diff.lazyre import lazy
from k3diff.strictjson import MAX_JSON_DEPTH, loads, repeated_key

_SPACE = lazy(r"[ \t\n\r]*")
"""JSON's whitespace, as `json.decoder.WHITESPACE`."""


@dataclass(frozen=True)
class Streamed:
    """An array member read item by item: what its reader made of each item, up to its cap."""

    items: tuple[Any, ...]
    """The reader's result for each item, in order (none past `most`, none past an error)."""
    count: int
    """How many items the array holds (all of them counted, read or not)."""
    error: InputError | None
    """The reader's refusal of the first item it refused (raised where the document's reader
    reads the member, so that its refusals come in the order they always came)."""


ItemReader = Callable[[Any, str], Any]
"""Reads one item of a streamed array (the raw value, its path such as `records[3]`)."""


@dataclass(frozen=True)
class Items:
    """How one array member is read item by item."""

    read: ItemReader
    """Each item's reader."""
    most: int
    """Items read at most: past them the array is counted, not read (its reader refuses it)."""
    past: Callable[[], Exception] | None = None
    """The refusal of an array of more than `most` items, raised once item `most + 1` is
    decoded, the rest left unread (review79c: counted to its end, 20,000,000 items of `0` cost
    38 s of CPU in a 60 MB document); None: counted to the end."""


Streams = Callable[[Mapping[str, Any]], Mapping[str, Items]]
"""Given the members read so far (its `schema`), the array members to stream and how."""

Caps = Callable[[Mapping[str, Any]], tuple[str, int]]
"""Given the members read so far (its `schema`), what the document is (its schema, or
"k3diff") and the most JSON values it holds outside the items of a streamed array
(`jsonvalues.held`), each such item holding at most as many."""

SCHEMA = "schema"
"""The member that says how the others are read: k3diff writes it first."""

MAX_ITEMS_UNNAMED = 200_000
"""Most items an array holds where it is read before any `schema` member (a document sorted by
`jq -S`, or naming none), and a top-level list: its items are decoded one by one to count them
(about 2 µs each) before anything knows what they are (caps80: 4,000,000 items of `0`, a 12 MB
document, cost 14 s of CPU in `report` before its refusal; a 1 GiB one, some 20 minutes)."""


def _unnamed(where: str, key: str) -> Items:
    """How an array read before the schema is counted: its items dropped, refused past
    `MAX_ITEMS_UNNAMED` (exit 2 naming the file, the member and the cap)."""
    member = f"member {key!r}" if key else "top-level list"

    def past() -> InputError:
        return InputError(
            f"{where}: {member} holds more than {MAX_ITEMS_UNNAMED:,} items before the "
            f"document's {SCHEMA!r} member (the cap of items read before it; k3diff writes it "
            "first); refused: put the schema first"
        )

    return Items(_dropped, MAX_ITEMS_UNNAMED, past)


def _dropped(item: object, where: str) -> None:
    """An item counted, not kept."""


def read_object(text: str, where: str, streams: Streams, caps: Caps) -> object:
    """The JSON value of `text` (a document k3diff wrote), each array member `streams` names
    read into a `Streamed`; every other member as `loads` reads it. An array member before the
    member that says how to read it (the `schema`) is counted first, at most
    `MAX_ITEMS_UNNAMED` items, and read once it is known (a document k3diff wrote names its
    schema first). A top-level list is read item by item, at most as many, and given back
    empty (what it held is no document). Every value is decoded under `caps`
    (`jsonvalues.decode_capped`): exit 2 naming the member once the document holds more values
    than its kind's cap (review80f)."""
    start = _space(text, 0)
    members: dict[str, Any] = {}
    later: dict[str, int] = {}
    budget = _budget(where, caps, members)
    if text.startswith("{", start):
        end = _members(text, start + 1, where, members, streams, later, (caps, budget))
        value: object = members
    elif text.startswith("[", start):
        end, value = _items(text, start, where, _unnamed(where, ""), 1, budget)[1], []
    else:  # a number, a string, no JSON at all: as `loads` reads (and words) it
        return loads(text, where, written=True)
    end = _space(text, end)
    if end != len(text):
        raise json.JSONDecodeError("Extra data", text, end)
    chosen = streams(members) if later else {}
    for key, at in later.items():
        how = chosen.get(key)
        if how is None:  # no reader streams it after all: read as any other member
            members[key] = decode_capped(text, at, where, MAX_JSON_DEPTH - 1, budget, key)[0]
        else:
            members[key] = _items(text, at, where, how, 2, budget, key)[0]
    return value


def _budget(where: str, caps: Caps, members: Mapping[str, Any]) -> Budget:
    """The values the document may hold, as `caps` says for the members read so far."""

    def refuse(key: str, most: int) -> InputError:
        what = caps(members)[0]
        return InputError(
            f"{where}: member {key!r} takes the document past {most:,} JSON values (its "
            f"commas and brackets counted), the most a {what} document holds; refused"
        )

    return Budget(caps(members)[1], refuse)


def _space(text: str, pos: int) -> int:
    """Where the whitespace at `pos` ends."""
    return _SPACE.match(text, pos).end()  # type: ignore[union-attr]


def _members(
    text: str,
    pos: int,
    where: str,
    members: dict[str, Any],
    streams: Streams,
    later: dict[str, int],
    capped: tuple[Caps, Budget],
) -> int:
    """Read the object's members from `pos` (past its `{`) into `members`, each under the
    budget `capped` keeps (its cap set by `caps` once the schema is read); where it ends."""
    caps, budget = capped
    pos = _space(text, pos)
    if text.startswith("}", pos):
        return pos + 1
    while True:
        if not text.startswith('"', pos):
            raise json.JSONDecodeError(
                "Expecting property name enclosed in double quotes", text, pos
            )
        key, pos = json.decoder.scanstring(text, pos + 1)  # type: ignore[attr-defined]
        pos = _space(text, pos)
        if not text.startswith(":", pos):
            raise json.JSONDecodeError("Expecting ':' delimiter", text, pos)
        pos = _space(text, pos + 1)
        if key in members or key in later:
            raise repeated_key(key, where)
        how = streams(members).get(key)
        if text.startswith("[", pos) and how is not None:
            members[key], pos = _items(text, pos, where, how, 2, budget, key)
        elif text.startswith("[", pos) and SCHEMA not in members:  # read once it is known
            unnamed = _unnamed(where, key)
            later[key], pos = pos, _items(text, pos, where, unnamed, 2, budget, key)[1]
        else:
            members[key], pos = decode_capped(text, pos, where, MAX_JSON_DEPTH - 1, budget, key)
            if key == SCHEMA:
                budget.most = caps(members)[1]
        pos = _space(text, pos)
        if text.startswith("}", pos):
            return pos + 1
        if not text.startswith(",", pos):
            raise json.JSONDecodeError("Expecting ',' delimiter", text, pos)
        pos = _space(text, pos + 1)


def _items(
    text: str, pos: int, where: str, how: Items, depth: int, budget: Budget, key: str = ""
) -> tuple[Streamed, int]:
    """The array at `pos` (its `[`) read item by item at nesting `depth`, each item given to
    `how` while it reads them, none holding more values than `budget.most`; the `Streamed` and
    where it ends."""
    items: list[Any] = []
    error: InputError | None = None
    count = 0
    levels = MAX_JSON_DEPTH - depth
    pos = _space(text, pos + 1)
    if text.startswith("]", pos):
        return Streamed((), 0, None), pos + 1
    while True:
        path = f"{key}[{count}]"
        item, pos = decode_capped(text, pos, where, levels, budget, path, keep=False)
        if how.past is not None and count >= how.most:
            raise how.past()
        if error is None and count < how.most and how.read is not _dropped:
            try:
                items.append(how.read(item, path))
            except InputError as exc:
                error = exc
        del item
        count += 1
        pos = _space(text, pos)
        if text.startswith("]", pos):
            return Streamed(tuple(items), count, error), pos + 1
        if not text.startswith(",", pos):
            raise json.JSONDecodeError("Expecting ',' delimiter", text, pos)
        pos = _space(text, pos + 1)

"""Token ids (a decoded JSON list) as the bytes of their int64 array, without the array.

`array("q", ids).tobytes()` converts each element through the argument parser (`PyArg_Parse`
per item), about 4x the cost of `struct`'s converter; on 64-token records that was the largest
single cost of the fast reader. A `struct.Struct` of `=Nq` (native order, 8-byte signed) packs
the same elements into the same bytes and refuses the same ones (floats, strings, None,
integers outside int64), so the spill holds what the general reader's array would hold.

A JSON `true` or `false` is no token id, though both packers take it as 1 or 0 (`bool` is an
`int`): a patch's `[true]` read as its base's `[1]` matched. `holds_bool` finds one; the fast
reader looks only where the packed bytes hold a 1 or a 0 (a search of the bytes, about 30x
cheaper than the type of each element), and the general reader refuses what it finds.
"""

from __future__ import annotations

import struct
from typing import Any

MAX_STRUCTS = 4096
"""Packers remembered, one per list length (records of one run hold a few lengths)."""
_STRUCTS: dict[int, struct.Struct] = {}


def token_id_bytes(ids: list[Any]) -> bytes | None:
    """The native int64 bytes of `ids` (what `array("q", ids).tobytes()` gives), or None when
    an element is not an integer that fits (the array would raise)."""
    packer = _STRUCTS.get(len(ids))
    if packer is None:
        packer = struct.Struct(f"={len(ids)}q")
        if len(_STRUCTS) < MAX_STRUCTS:
            _STRUCTS[len(ids)] = packer
    try:
        packed = packer.pack(*ids)
    except (struct.error, TypeError, OverflowError):
        return None
    if (_ONE in packed or _ZERO in packed) and holds_bool(ids):
        return None  # the general reader refuses it
    return packed


_ONE = struct.pack("=q", 1)
_ZERO = struct.pack("=q", 0)


def holds_bool(values: list[Any]) -> bool:
    """Whether `values` holds a `true` or `false` (which an int64 array takes as 1 or 0)."""
    return bool in map(type, values)

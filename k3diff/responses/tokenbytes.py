"""Token ids (a decoded JSON list) as the bytes of their int64 array, without the array.

`array("q", ids).tobytes()` converts each element through the argument parser (`PyArg_Parse`
per item), about 4x the cost of `struct`'s converter; on 64-token records that was the largest
single cost of the fast reader. A `struct.Struct` of `=Nq` (native order, 8-byte signed) packs
the same elements into the same bytes and refuses the same ones (floats, strings, None,
integers outside int64; `True` and `False` are 1 and 0 to both), so the spill holds what the
general reader's array would hold. `tests/responses/test_token_bytes.py` checks both agree.
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
        return packer.pack(*ids)
    except (struct.error, TypeError, OverflowError):
        return None

"""A patch's entry names taken from its base's where the directory records spell them alike.

Two near-identical wheels (a patch rebuilt from its base with a few files edited) list nearly
every name in the same place. `_plain_directory` slices and decodes every record's name (a bytes
object and a str per entry, twelve thousand on torch's CPU wheel); beside the base's entries it
tests each record's name bytes in place instead (`bytes.startswith` at the name's offset in the
record, and the record's name length: no slice), and where they are the base's entry's, takes
that entry's name bytes and name, the same objects. A name is a function of its bytes alone in a
plain directory (ASCII, no NUL), so the entries are exactly those of the patch's own parse;
everything else in them (sizes, CRC-32, offsets, flags) is read from the patch's own records,
and the local headers and data are the patch's. Records are paired by their position up to the
first whose name is not the base's, from there by their distance from the end (one entry added
or removed there); when more than one name in eight is not the base's, every name is the
patch's own, as before.
"""

from __future__ import annotations

import operator
from collections.abc import Iterable, Sequence
from itertools import compress, repeat
from itertools import count as count_from
from operator import add, and_, eq
from typing import Any

_NAME = operator.itemgetter(0)
_NAME_BYTES = operator.itemgetter(10)
_MOSTLY_NEW = 8
"""More than one name in this many not the base's: the patch's names are sliced on their own."""
_PROBES = 32
"""Records tested first, one at a time, before every record is."""


def record_names(
    pieces: list[bytes], fixed: int, name_len: list[int], beside: Sequence[tuple[Any, ...]]
) -> tuple[list[bytes], Iterable[str]]:
    """Each record's name bytes and name (`names_beside` where it shares them, else sliced
    from the records; then the names are decoded as they are read, after the caller's test
    that every name is ASCII)."""
    shared = names_beside(pieces, fixed, name_len, beside) if beside else None
    if shared is not None:
        return shared
    ends = map(add, name_len, repeat(fixed))
    name_bytes = list(map(bytes.__getitem__, pieces, map(slice, repeat(fixed), ends)))
    return name_bytes, map(bytes.decode, name_bytes)


def names_beside(
    pieces: list[bytes], fixed: int, name_len: list[int], base: Sequence[tuple[Any, ...]]
) -> tuple[list[bytes], list[str]] | None:
    """Each record's name bytes and name (`pieces`: the records after their signatures, whose
    names start at `fixed`; `name_len`: their lengths; `base`: the base's `ZipEntry`s, whose
    module imports this one), the base's objects where a record's name bytes are the base
    entry's: at the same position up to the first that is not, from there at the same
    distance from the end (an entry added or removed there), and a record that is neither at
    the same position. None when more than one in `_MOSTLY_NEW` is none of these, or the probes
    say so first (the caller then slices and decodes every name)."""
    count, total = len(pieces), len(base)
    if not _likely(pieces, fixed, name_len, base):
        return None  # a reordered or another wheel: not worth the passes below
    base_bytes, base_names = list(map(_NAME_BYTES, base)), list(map(_NAME, base))
    same = _same(pieces, fixed, name_len, base_bytes[:count])
    first = same.index(False) if False in same else count
    if first == count:
        return base_bytes[:count], base_names[:count]
    start = max(first, count - total)  # from here, record i is the base's i + total - count
    gap = [b""] * (start - first)
    name_bytes = [*base_bytes[:first], *gap, *base_bytes[start + total - count :]]
    names = [*base_names[:first], *[""] * len(gap), *base_names[start + total - count :]]
    from_end = _same(pieces[start:], fixed, name_len[start:], name_bytes[start:])
    others = [*range(first, start), *compress(count_from(start), map(operator.not_, from_end))]
    if len(others) * _MOSTLY_NEW > count:
        return None
    for index in others:
        own = pieces[index][fixed : fixed + name_len[index]]
        if index < total and base_bytes[index] == own:  # at the same position after all
            name_bytes[index], names[index] = base_bytes[index], base_names[index]
        else:
            name_bytes[index], names[index] = own, own.decode("ascii", "replace")
    return name_bytes, names


def _likely(
    pieces: list[bytes], fixed: int, name_len: list[int], base: Sequence[tuple[Any, ...]]
) -> bool:
    """Whether at least three in four of `_PROBES` records spread over the directory hold
    the base's name at the same position or the same distance from the end."""
    count, total = len(pieces), len(base)
    probes = range(0, count, max(count // _PROBES, 1))
    hits = 0
    for index in probes:
        for twin in (index, index + total - count):
            name = base[twin][10] if 0 <= twin < total else b""
            if name and len(name) == name_len[index] and pieces[index].startswith(name, fixed):
                hits += 1
                break
    return hits * 4 >= len(probes) * 3


def _same(pieces: list[bytes], fixed: int, name_len: list[int], names: list[bytes]) -> list[bool]:
    """Whether each record's name bytes are `names`' at its index (False past their end): the
    name lengths equal and the record holding those bytes where its name starts."""
    same = list(map(bytes.startswith, pieces, names, repeat(fixed)))
    lengths = list(map(len, names))
    if name_len[: len(lengths)] != lengths:
        same = list(map(and_, same, map(eq, name_len, lengths)))
    return same + [False] * (len(pieces) - len(same))

"""The fields of two records compared in time linear in their size.

deepdiff pairs list items by similarity, which costs time quadratic in a list's length: a record
whose array differs in its last element took 11.6 s at 20 KB and more than ten minutes at 8 MB,
far under `--max-record-bytes`. So deepdiff is used only while both sides together hold at most
`DEEPDIFF_MAX_VALUES` values (where its item pairing reads best); past that, `walk` compares
objects key by key and lists index by index (what differs at each index, then the items only
one side has), each value visited once. At most `MAX_CHANGES` changes are listed a record; the
note says how many were found and how the fields were compared.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from k3diff.responses.results import FieldChange

DEEPDIFF_MAX_VALUES = 500
"""The most values (objects, lists and scalars, both sides together) deepdiff compares."""
MAX_CHANGES = 200
"""The most changes listed for one record."""


def count_values(value: Any, limit: int) -> int:
    """The values in `value` (itself included), counted up to just past `limit`."""
    count = 0
    stack = [value]
    while stack and count <= limit:
        item = stack.pop()
        count += 1
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return count


def _same(base: Any, patch: Any) -> bool:
    """Equal values of the same JSON type (1, 1.0 and true are three values)."""
    return type(base) is type(patch) and base == patch


def walk(base: Any, patch: Any, path: str = "") -> Iterator[FieldChange]:
    """Every change from `base` to `patch`, in path order: object keys sorted, list indices
    ascending; a value of another type, or a scalar that differs, is one `changed`."""
    if isinstance(base, dict) and isinstance(patch, dict):
        for name in sorted(base.keys() | patch.keys(), key=str):
            where = f"{path}.{name}" if path else str(name)
            if name not in patch:
                yield FieldChange(where, "removed", base[name], None)
            elif name not in base:
                yield FieldChange(where, "added", None, patch[name])
            else:
                yield from walk(base[name], patch[name], where)
    elif isinstance(base, list) and isinstance(patch, list):
        common = min(len(base), len(patch))
        for index in range(common):
            yield from walk(base[index], patch[index], f"{path}[{index}]")
        for index in range(common, len(base)):
            yield FieldChange(f"{path}[{index}]", "removed", base[index], None)
        for index in range(common, len(patch)):
            yield FieldChange(f"{path}[{index}]", "added", None, patch[index])
    elif not _same(base, patch):
        yield FieldChange(path, "changed", base, patch)


def capped(changes: Iterator[FieldChange]) -> tuple[list[FieldChange], int]:
    """The first `MAX_CHANGES` of `changes`, and how many there were in all."""
    listed: list[FieldChange] = []
    total = 0
    for change in changes:
        total += 1
        if total <= MAX_CHANGES:
            listed.append(change)
    return listed, total

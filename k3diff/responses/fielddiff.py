"""The fields of two records other than the text and token ids (`field_changes`), compared by
deepdiff while they are small and in time linear in their size past that.

deepdiff pairs list items by similarity, which costs time quadratic in a list's length: a record
whose array differs in its last element took 11.6 s at 20 KB and more than ten minutes at 8 MB,
far under `--max-record-bytes`. So deepdiff is used only while both sides together hold at most
`DEEPDIFF_MAX_VALUES` values (where its item pairing reads best); past that, `walk` compares
objects key by key and lists index by index (what differs at each index, then the items only
one side has), each value visited once. At most `MAX_CHANGES` changes are listed a record; the
note says how many were found and how the fields were compared.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from typing import Any

from k3diff.responses.jsonsame import same
from k3diff.responses.model import ResponseRecord
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


def _compared(record: ResponseRecord, include_volatile: bool) -> dict[str, Any]:
    fields: dict[str, Any] = json.loads(record.other)
    fields["finish_reason"] = record.finish_reason
    fields["usage"] = record.usage
    fields["logprobs"] = None if record.logprobs is None else record.logprobs.shape()
    if include_volatile:
        fields["fingerprint"] = record.fingerprint
    return fields


def _cheap_view(record: ResponseRecord, include_volatile: bool) -> tuple[Any, ...]:
    shape = None if record.logprobs is None else record.logprobs.shape()
    fingerprint = record.fingerprint if include_volatile else None
    return (record.other, record.finish_reason, record.usage, shape, fingerprint)


CHANGE_NAMES = {
    "dictionary_item_added": "added",
    "iterable_item_added": "added",
    "dictionary_item_removed": "removed",
    "iterable_item_removed": "removed",
}


def field_changes(
    base: ResponseRecord, patch: ResponseRecord, include_volatile: bool
) -> tuple[tuple[FieldChange, ...], str | None]:
    """Everything but the text and token ids compared, as plain sorted changes, and a note when
    the fields were too many for deepdiff or the changes too many to list
    (`k3diff.responses.fielddiff`)."""
    if _cheap_view(base, include_volatile) == _cheap_view(patch, include_volatile) and all(
        map(same, (base.finish_reason, base.usage), (patch.finish_reason, patch.usage))
    ):
        return (), None  # deepdiff is slow; most pairs in a large run are structurally equal
    old, new = _compared(base, include_volatile), _compared(patch, include_volatile)
    budget = DEEPDIFF_MAX_VALUES
    if count_values(old, budget) + count_values(new, budget) > budget:
        listed, total = capped(walk(old, new))
        note = (
            f"fields-compared-linearly: more than {budget:,} values, past deepdiff's budget, so "
            "objects by key and lists by index"
        )
        if total > len(listed):
            note += f"; {len(listed):,} of {total:,} changes listed"
        return tuple(listed), note
    return _deepdiff_changes(old, new), None


def _deepdiff_changes(old: dict[str, Any], new: dict[str, Any]) -> tuple[FieldChange, ...]:
    changes: list[FieldChange] = []
    if values_changed(old, new, "", changes):
        return tuple(sorted(changes, key=_path_order))
    changes = []
    # Imported here: deepdiff costs ~40 ms to import, and most runs need it for few records;
    # jsondeepdiff loads it without the numpy/pandas support JSON values never use.
    from k3diff.responses.jsondeepdiff import DeepDiff, notpresent

    tree = DeepDiff(old, new, view="tree")
    covered: set[Any] = set()
    for report_type, levels in tree.items():
        for level in levels:
            parts = level.path(output_format="list")
            covered.update(parts[:1])
            changes.append(
                FieldChange(
                    path=_dotted(parts),
                    change=CHANGE_NAMES.get(report_type, "changed"),
                    base=None if level.t1 is notpresent else level.t1,
                    patch=None if level.t2 is notpresent else level.t2,
                )
            )
    # deepdiff matches list items with Python's `==`, so `[true]` against `[1]` reads as no
    # change to it; a field it passes over that is not the same JSON value is walked instead.
    for name in sorted(old.keys() & new.keys() - covered, key=str):
        if not same(old[name], new[name]):
            changes.extend(walk(old[name], new[name], str(name)))
    return tuple(sorted(changes, key=_path_order))


def _path_order(change: FieldChange) -> tuple[str, str]:
    return (change.path, change.change)


_JSON = frozenset({dict, list, str, int, float, bool, type(None)})
"""The types a JSON decoder makes."""


def values_changed(old: Any, new: Any, path: str, changes: list[FieldChange]) -> bool:
    """Append to `changes` each value that differs between `old` and `new` where only values
    changed (the same keys at every level, lists the same), as deepdiff lists them there: one
    `changed` per value of another type or another value, by its dotted path. False, leaving
    the rest to deepdiff, wherever it could say something else: a key added or removed
    (deepdiff 7 lists it, 8 and later may call the whole object changed), a key it skips
    (`__`), lists that differ or hold floats (it pairs items by similarity, by hashes of their
    numbers), NaN, a type JSON has not. deepdiff costs ~40 ms to import and ~0.07 ms a pair; a
    changed finish reason or token count needs neither."""
    kind = type(old)
    if kind is dict and type(new) is dict:
        if old.keys() != new.keys():
            return False
        for name, value in old.items():
            if type(name) is not str or name.startswith("__"):
                return False
            if not values_changed(value, new[name], f"{path}.{name}" if path else name, changes):
                return False
        return True
    if kind is list and type(new) is list:
        return same(old, new) and not _holds_float(old)
    if kind not in _JSON or type(new) not in _JSON or old != old or new != new:
        return False  # a value no JSON decoder makes, or NaN
    if kind is not type(new) or old != new:
        changes.append(FieldChange(path, "changed", old, new))
    return True


def _holds_float(value: Any) -> bool:
    if type(value) is float:
        return True
    if type(value) is list:
        return any(map(_holds_float, value))
    if type(value) is dict:
        return any(map(_holds_float, value.values()))
    return False


def _dotted(parts: Sequence[Any]) -> str:
    text = ""
    for part in parts:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text

"""How a document differs from the one its command, run again on its inputs, writes: the first
field that differs, named as a path (`records[1].category: "match", run again
"inconclusive"`), and which fields an older document may lack (fields are only ever added
within a version). Every `*rederive` module of the bundle compares through this one function,
so each names a difference alike (`k3diff.bundle.runagain.refusal` words the line)."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any


def older_lacks(document: Mapping[str, Any], added: Sequence[str]) -> frozenset[str]:
    """The fields of `added` (in the order they were added within the version) `document` may
    lack: none, unless it says it is older by lacking one of them everywhere, and every one
    added after it too (a document holding a later field is not older: it lacks none)."""
    lacked = [not _has(document, path.split(".")) for path in added]
    for index in range(len(added)):
        if all(lacked[index:]):
            return frozenset(added[index:])
    return frozenset()


def _has(value: object, steps: list[str]) -> bool:
    """Some instance of the path (`a[].b`: field `b` of any item of list `a`) is present."""
    if not steps:
        return True
    key, each = steps[0].removesuffix("[]"), steps[0].endswith("[]")
    if not isinstance(value, Mapping) or key not in value:
        return False
    if not each:
        return _has(value[key], steps[1:])
    items = value[key]
    return isinstance(items, list) and any(_has(item, steps[1:]) for item in items)


def first_difference(
    left: object, right: object, where: str = "", may_lack: frozenset[str] = frozenset()
) -> str | None:
    """The first difference of `left` (the document) from `right` (run again). A field the run
    again writes and the document lacks is a difference (review62: a field deleted was skipped,
    so `records[i].base` or `summary.lm_eval` could go unnoticed), unless its path, list
    indices written `[]` (`records[].modes[].requests`), is in `may_lack`: fields an older
    k3diff did not write, which the caller allows only for a document that says it is older."""
    if isinstance(left, dict) and isinstance(right, dict):
        return _members(left, right, where, may_lack, {})
    if isinstance(left, list) and isinstance(right, list):
        if len(left) != len(right):
            return count_difference(where, len(left), len(right))
        for index, (a, b) in enumerate(zip(left, right, strict=True)):
            found = first_difference(a, b, f"{where}[{index}]", may_lack)
            if found is not None:
                return found
        return None
    if left != right or type(left) is not type(right):
        return f"{where}: {_short(left)}, run again {_short(right)}"
    return None


def first_difference_apart(
    left: dict[str, Any], right: dict[str, Any], apart: Mapping[str, str | None]
) -> str | None:
    """`first_difference` of two documents of which each member of `apart` that both hold was
    compared apart, item by item as it was read (`k3diff.bundle.responsesagain`), its first
    difference given (None: none): said where the whole comparison would say it, in the
    order of the members' names."""
    return _members(left, right, "", frozenset(), apart)


def count_difference(where: str, left: int, right: int) -> str:
    """Two arrays of different lengths, as `first_difference` says it."""
    return f"{where}: {left} items, run again {right}"


def _members(
    left: dict[str, Any],
    right: dict[str, Any],
    where: str,
    may_lack: frozenset[str],
    apart: Mapping[str, str | None],
) -> str | None:
    """The first difference of two objects, member by member in the order of their names."""
    for key in sorted(left.keys() | right.keys()):
        field = f"{where}{'.' if where else ''}{key}"
        if key not in left:
            if _INDEX.sub("[]", field) in may_lack:
                continue  # added within the version after the document was written
            return f"{field}: absent from the document, run again {_short(right[key])}"
        if key not in right:
            return f"{field}: only in the document"
        if key in apart:
            found = apart[key]
        else:
            found = first_difference(left[key], right[key], field, may_lack)
        if found is not None:
            return found
    return None


_INDEX = re.compile(r"\[\d+\]")


def _short(value: object) -> str:
    text = json.dumps(value, ensure_ascii=True)
    return text if len(text) <= 60 else text[:57] + "..."

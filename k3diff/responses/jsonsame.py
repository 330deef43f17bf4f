"""Equality of JSON values as JSON sees them: type-exact, where Python's `==` is not.

Python says `1 == 1.0 == True`, and so does `==` on dicts and lists holding them; JSON has three
different tokens, and deepdiff (the field comparison's reference, `fielddiff`) reports a type
change between any two of them. Every shortcut that decides "these fields are equal, no need to
diff them" (the identical-pair check, `matchpair.identical`; the cheap view before deepdiff,
`fielddiff.field_changes`; run state, `diff.run_state_changes`) asks `same` so that it can never
call equal what the full comparison would report as changed.
"""

from __future__ import annotations

from typing import Any

_FLAT = frozenset({int, str, type(None)})
"""Scalar types no value of which equals a value of another (unlike bool, 1 == True, and float,
1 == 1.0): between objects holding only these, `==` is `same`."""


def same(base: Any, patch: Any) -> bool:
    """True when `base` and `patch` are the same JSON value: equal, and of the same type at
    every level (1, 1.0 and true are three values; key order does not matter)."""
    if type(base) is not type(patch):
        return False
    if isinstance(base, dict):
        if base.keys() != patch.keys():
            return False
        # A flat object of integers, strings and nulls (a usage block): one C comparison.
        if _FLAT.issuperset(map(type, base.values())) and _FLAT.issuperset(
            map(type, patch.values())
        ):
            return bool(base == patch)
        return all(same(value, patch[name]) for name, value in base.items())
    if isinstance(base, list | tuple):
        return len(base) == len(patch) and all(map(same, base, patch))
    return bool(base == patch)

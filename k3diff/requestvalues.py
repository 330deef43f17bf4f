"""When two request values are the same request: the one rule triage's condition checks
(`k3diff.triage.conditions`, the captured request against the samples') and its side check
(`k3diff.triage.sidefields`, the base's samples against the patch's) compare fields by, and
`k3diff sample`'s note on fields its sides are sent differently (`k3diff.sample.sidefields`):
below both packages."""

from __future__ import annotations

from typing import Any


def same_value(one: Any, two: Any) -> bool:
    """Two request values a server takes for the same: equal JSON values where a bool is never
    a number (`true` is not `1`, at any depth: Python's `True == 1` would say so), while numbers
    compare by value (`1` is `1.0`: JSON has one number type, and an OpenAI-compatible server
    parses each into its field's type, an integral float into an integer field)."""
    if isinstance(one, bool) or isinstance(two, bool):
        return isinstance(one, bool) and isinstance(two, bool) and one == two
    if isinstance(one, list) and isinstance(two, list):
        return len(one) == len(two) and all(map(same_value, one, two))
    if isinstance(one, dict) and isinstance(two, dict):
        return one.keys() == two.keys() and all(same_value(one[k], two[k]) for k in one)
    if isinstance(one, list | dict) or isinstance(two, list | dict):
        return False
    return bool(one == two)

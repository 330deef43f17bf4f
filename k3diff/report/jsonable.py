"""`to_json(value)`: the JSON-ready form of a result value, built here in report/, not on the
models. One function dispatched on the value's type (`functools.singledispatch`); each command's
forms are registered in `json_<command>` (import that module, or its renderer, before calling)."""

from __future__ import annotations

from functools import singledispatch
from typing import Any


@singledispatch
def to_json(value: object, **options: Any) -> Any:
    """The JSON-ready form (dicts, lists, str, int, float, bool, None) of `value`."""
    raise TypeError(f"no JSON form registered for {type(value).__name__}")

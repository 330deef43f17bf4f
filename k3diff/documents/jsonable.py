"""`to_json(value)`: the JSON-ready form of a result value, built here in documents/, not on the
models. One function dispatched on the value's type (`functools.singledispatch`); each
document's forms are registered in its module (`documents.wheels`, `documents.native`,
`documents.surfaces`, `documents.responses`: import it before calling)."""

from __future__ import annotations

from functools import singledispatch
from typing import Any


@singledispatch
def to_json(value: object, **options: Any) -> Any:
    """The JSON-ready form (dicts, lists, str, int, float, bool, None) of `value`."""
    raise TypeError(f"no JSON form registered for {type(value).__name__}")

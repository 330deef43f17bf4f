"""JSON text as RFC 8259 defines it, whatever the values hold.

Python's encoder writes float NaN and infinities as bare `NaN` / `Infinity` / `-Infinity`,
which are not JSON (jq, browsers and most parsers refuse the document). A server may send them
(a `-Infinity` logprob) and the statistics may produce them, so every JSON document k3diff
writes goes through `dumps`: such a float becomes the string `"NaN"`, `"Infinity"` or
`"-Infinity"`. The common case costs nothing extra: the value is encoded strictly once, and only
a value that holds a non-finite float is copied with strings in their place and encoded again.

With `ensure_ascii=False`, a lone surrogate (a key a hostile input spelled `"k\\ud800"`) is
written as its JSON escape, as `ensure_ascii` would: raw, no UTF-8 file could hold the text.
"""

from __future__ import annotations

import json
import math
from typing import Any

from k3diff.lazyre import lazy

_LONE_SURROGATE = lazy("[\ud800-\udfff]")


def finite(value: Any) -> Any:
    """`value` with every non-finite float replaced by its name as a string."""
    if isinstance(value, float):
        if math.isfinite(value):
            return value
        return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    if isinstance(value, dict):
        return {key: finite(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [finite(item) for item in value]
    return value


def dumps(value: Any, **options: Any) -> str:
    """`json.dumps(value, **options)`, always RFC 8259 (non-finite floats as strings) and
    always encodable as UTF-8 (lone surrogates escaped)."""
    try:
        text = json.dumps(value, allow_nan=False, **options)
    except ValueError as exc:
        if "Out of range float" not in str(exc):
            raise  # a circular reference, say: a bug, not a value to rewrite
        text = json.dumps(finite(value), allow_nan=False, **options)
    if options.get("ensure_ascii", True):
        return text
    # Outside strings JSON text is ASCII, so every surrogate is inside one: escape it there.
    return _LONE_SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


_CONSTANT = lazy(r'"[^"\\]*(?:\\.[^"\\]*)*"|(-?Infinity|NaN|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)')
"""A string, or a bare constant or number (group 1): where `unwritten` finds the one refused."""


def unwritten(literal: str, text: str) -> json.JSONDecodeError:
    """The syntax error of a bare `NaN`, `Infinity` or `-Infinity`, or a number beyond a double
    (`1e999`, which `json` reads as an infinity and `jq` as the greatest double: review71e), in
    JSON `text` k3diff wrote, at the first one outside a string: `dumps` writes none of them."""
    at = next((m.start(1) for m in _CONSTANT.finditer(text) if m.group(1) == literal), 0)
    if literal in ("NaN", "Infinity", "-Infinity"):
        return json.JSONDecodeError(f'bare {literal}; k3diff writes it as "{literal}"', text, at)
    name = "-Infinity" if literal.startswith("-") else "Infinity"
    shown = literal if len(literal) <= 24 else literal[:20] + "..."
    why = f'{shown} is beyond a double, read as {name}; k3diff writes it as "{name}"'
    return json.JSONDecodeError(why, text, at)

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

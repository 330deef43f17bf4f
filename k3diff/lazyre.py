"""Regular expressions compiled on first use instead of at import (issue 41).

Compiling a pattern costs 0.05-0.4 ms, and a module-level `re.compile` pays it in every process
that imports the module, whether or not the run ever matches with it (the Markdown escapes in a
text report, the manifest grammar in an audit without `--manifest`, the Windows layouts of a
Linux wheel). `lazy(pattern)` returns a stand-in that compiles on its first method call; from
then on the compiled pattern's own bound methods sit in the stand-in's `__dict__`, so a call
costs what it costs on the compiled pattern (one instance-dictionary lookup, no Python frame).

The stand-in offers the methods and attributes of `re.Pattern` (match, fullmatch, search, sub,
subn, split, findall, finditer, pattern, flags, groups, groupindex) but is not one: do not hand
it to `re.sub(PATTERN, ...)` or test it with `isinstance`; call its methods. Use it for a
module-level pattern a run may never need; a pattern every run uses gains nothing from it.
"""

from __future__ import annotations

import re
from typing import Any, AnyStr, cast

_FORWARDED = (
    "match",
    "fullmatch",
    "search",
    "sub",
    "subn",
    "split",
    "findall",
    "finditer",
    "pattern",
    "flags",
    "groups",
    "groupindex",
)
"""What the stand-in takes from the compiled pattern on first use."""


class _LazyPattern:
    """A pattern's source and flags until first use; then the compiled pattern's methods."""

    def __init__(self, source: str | bytes, flags: int) -> None:
        self._source = source
        self._flags = flags

    def __getattr__(self, name: str) -> Any:
        # Called only for a name the instance does not hold yet: the first use.
        if name not in _FORWARDED:
            raise AttributeError(name)
        compiled = re.compile(self._source, self._flags)
        for attribute in _FORWARDED:
            self.__dict__[attribute] = getattr(compiled, attribute)
        return getattr(compiled, name)

    def __repr__(self) -> str:
        return f"lazy({self._source!r}, {self._flags!r})"


def lazy(pattern: AnyStr, flags: int = 0) -> re.Pattern[AnyStr]:
    """`re.compile(pattern, flags)`, done on the first method call rather than now."""
    return cast("re.Pattern[AnyStr]", _LazyPattern(pattern, flags))

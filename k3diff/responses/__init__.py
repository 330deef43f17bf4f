"""Record-by-record comparison of captured server responses (`k3diff responses`).

Loaders read each input format (`loaders`, `sse_loader`, `whole_json`), shapes say where each
raw record's parts are (`shapes`, `engines`, `lmeval`) and `assemble` turns them into one
`ResponseRecord`; `fastshape` reads the common OpenAI JSON lines straight into the packed form
(`packed`) that `spill` parks in a temporary file for each side, `pairing` matches base and
patch records by key, `diff` compares each pair (`divergence`, `fielddiff`) and `matchpair`
stands in for it on identical pairs.
`compare_streaming` runs the whole thing in bounded memory, handing each diff on as it is made.
"""

# The names below are imported on first use (PEP 562), so that importing a module of this
# package (a document reader imports its model) never loads what its command runs with: the
# heavy libraries (scipy, httpx, pyelftools, rapidfuzz, matplotlib) load only when used.

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from k3diff.responses.compare import (
        CompareOptions,
        ResponsesOverview,
        Summary,
        compare_streaming,
    )
    from k3diff.responses.model import Normalization, ResponseRecord
    from k3diff.responses.results import RecordDiff, Status

_LAZY = {
    "CompareOptions": ("k3diff.responses.compare", "CompareOptions"),
    "ResponsesOverview": ("k3diff.responses.compare", "ResponsesOverview"),
    "Summary": ("k3diff.responses.compare", "Summary"),
    "compare_streaming": ("k3diff.responses.compare", "compare_streaming"),
    "Normalization": ("k3diff.responses.model", "Normalization"),
    "ResponseRecord": ("k3diff.responses.model", "ResponseRecord"),
    "RecordDiff": ("k3diff.responses.results", "RecordDiff"),
    "Status": ("k3diff.responses.results", "Status"),
}
"""Exported name -> (module, attribute)."""

__all__ = [
    "CompareOptions",
    "Normalization",
    "RecordDiff",
    "ResponseRecord",
    "ResponsesOverview",
    "Status",
    "Summary",
    "compare_streaming",
]


def __getattr__(name: str) -> Any:
    target = _LAZY.get(name)
    if target is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(target[0]), target[1])

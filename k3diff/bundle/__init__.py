"""`k3diff report`: the evidence bundle a reviewer hands on.

inputs.py    reads the documents the other commands wrote, recognised by their `schema`
*rederive.py each kind's command run again on the inputs given with its document (rederive.py:
             triage), found among the files given (givenfiles.py: by SHA-256), compared by
             difference.py, and refused by runagain.py with the command that brings it up to date
facts.py     the bottom line, evidence matrix and qualifications, derived from the verdicts
             (each kind's rows from its own *facts.py: wheelfacts.py, auditfacts.py, ...)
summary.py   `summary.json` (`k3diff.report/2`): every number the Markdown and HTML show
plots.py     matplotlib figures as inline SVG
markdown.py  REPORT.md
html.py      report.html: one self-contained, printable file
write.py     writes the three files as a set
"""

# The names below are imported on first use (PEP 562), so that importing a module of this
# package (a document reader imports its model) never loads what its command runs with: the
# heavy libraries (scipy, httpx, pyelftools, rapidfuzz, matplotlib) load only when used.

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from k3diff.bundle.write import build_bundle

_LAZY = {
    "build_bundle": ("k3diff.bundle.write", "build_bundle"),
}
"""Exported name -> (module, attribute)."""

__all__ = ["build_bundle"]


def __getattr__(name: str) -> Any:
    target = _LAZY.get(name)
    if target is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(target[0]), target[1])

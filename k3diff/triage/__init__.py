"""Triage: is each text mismatch a regression, nondeterminism, or undecided — with the numbers.

`triage` joins a `k3diff.responses/1` comparison with `k3diff.samples/1` logs; `plan` sizes a
follow-up. Results are the frozen values of `k3diff.triage.model`.
"""

# The names below are imported on first use (PEP 562), so that importing a module of this
# package (a document reader imports its model) never loads what its command runs with: the
# heavy libraries (scipy, httpx, pyelftools, rapidfuzz, matplotlib) load only when used.

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

# Imported now: a submodule of the same name would otherwise shadow the function.
from k3diff.triage.plan import plan

if TYPE_CHECKING:
    from k3diff.triage.model import Category, Correction, Flag, Plan, Settings, TriageResult
    from k3diff.triage.run import triage

_LAZY = {
    "Category": ("k3diff.triage.model", "Category"),
    "Correction": ("k3diff.triage.settings", "Correction"),
    "Flag": ("k3diff.triage.model", "Flag"),
    "Plan": ("k3diff.triage.model", "Plan"),
    "Settings": ("k3diff.triage.settings", "Settings"),
    "TriageResult": ("k3diff.triage.model", "TriageResult"),
    "triage": ("k3diff.triage.run", "triage"),
}
"""Exported name -> (module, attribute)."""

__all__ = ["Category", "Correction", "Flag", "Plan", "Settings", "TriageResult", "plan", "triage"]


def __getattr__(name: str) -> Any:
    target = _LAZY.get(name)
    if target is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(target[0]), target[1])

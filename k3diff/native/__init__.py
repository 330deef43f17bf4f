"""Explain why two versions of a native entry differ (``k3diff wheels --explain``).

The explainers live in `k3diff.native.explainers` (the registry `EXPLAINERS`, `explain_native`)
and the result types in `k3diff.native.model`; this package re-exports `NativeExplanation` and,
lazily, the explainers, so that importing `k3diff.native.sniff` (which every comparison does to
sniff content magic) does not load pyelftools and every explainer: that import was about a fifth
of a verdict's CPU time on a wheel of many small files.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

# The result type is a plain dataclass, cheap to import; only the explainers are lazy. The other
# result types are imported from `k3diff.native.model` where they are needed.
from k3diff.native.model import NativeExplanation

if TYPE_CHECKING:
    from k3diff.native.explainers import EXPLAINERS, Explainer, explain_native

_LAZY = frozenset({"EXPLAINERS", "Explainer", "explain_native"})

__all__ = ["EXPLAINERS", "Explainer", "NativeExplanation", "explain_native"]


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        from k3diff.native import explainers

        return getattr(explainers, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

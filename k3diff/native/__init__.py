"""Explain why two versions of a native entry differ (``k3diff wheels --explain``).

The explainers live in `k3diff.native.explainers` (the registry `EXPLAINERS`, `explain_native`)
and the result types in `k3diff.native.model`; this package re-exports `NativeExplanation` and
the explainers lazily, so that importing `k3diff.native.sniff` (which every comparison does to
sniff content magic) does not load pyelftools and every explainer: that import was about a fifth
of a verdict's CPU time on a wheel of many small files.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

# The result types too are loaded on first use: `k3diff.native.model` defines fourteen
# dataclasses, and every audit and comparison imports `k3diff.native.sniff` without needing them.
if TYPE_CHECKING:
    from k3diff.native.explainers import EXPLAINERS, Explainer, explain_native
    from k3diff.native.model import NativeExplanation

_LAZY = frozenset({"EXPLAINERS", "Explainer", "explain_native"})

__all__ = ["EXPLAINERS", "Explainer", "NativeExplanation", "explain_native"]


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        from k3diff.native import explainers

        return getattr(explainers, name)
    if name == "NativeExplanation":
        from k3diff.native.model import NativeExplanation

        return NativeExplanation
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

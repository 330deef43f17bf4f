"""Holm's step-down correction, shared by every family of tests (triage's, the paired eval
scores of `responses`): pure Python, so nothing that only corrects p-values loads scipy."""

from __future__ import annotations

from collections.abc import Sequence


def holm(pvalues: Sequence[float]) -> list[float]:
    """Holm's step-down adjusted p-values (family-wise error), in the input order.

    scipy has Benjamini–Hochberg (`false_discovery_control`) but not Holm; this is its
    definition: sort ascending, multiply the i-th smallest by (m - i), keep the running maximum.
    """
    m = len(pvalues)
    order = sorted(range(m), key=lambda index: pvalues[index])
    adjusted = [1.0] * m
    running = 0.0
    for rank, index in enumerate(order):
        running = max(running, min(1.0, (m - rank) * pvalues[index]))
        adjusted[index] = running
    return adjusted

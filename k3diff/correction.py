"""Holm's step-down correction, shared by every family of tests (triage's, the paired eval
scores of `responses`): pure Python, so nothing that only corrects p-values loads scipy."""

from __future__ import annotations

import math
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


RECOUNT_TOLERANCE = 1e-9
"""How far (relative) a written p-value may sit from the reader's recount of it: the last digits
a sum or a special function of another scipy (or numpy) may give otherwise. Holm is pure Python
and recounts bit for bit; Benjamini-Hochberg and the raw tests come from scipy."""


def recount_disagreement(written: float, recounted: float, levels: Sequence[float]) -> str | None:
    """Why a written p-value is not the reader's recount of it (None: it is). The rule every
    document reader follows (docs/statistics.md, "Recounted on reading"): the value may differ
    from the recount within `RECOUNT_TOLERANCE`, read toward rejecting at each level it is
    judged at (p ≤ level): a written value that rejects where the recount falls just short is
    read (the document judges itself more strictly, as another scipy's last digits may), one
    that does not reject where the recount does is refused, so no tolerance turns a test that
    rejects into a pass."""
    if written == recounted:
        return None
    if not math.isclose(written, recounted, rel_tol=RECOUNT_TOLERANCE, abs_tol=0.0):
        return f"{written!r} but the recount gives {recounted!r}"
    for level in levels:
        if written > level >= recounted:
            return (
                f"{written!r}, above {level:g}, but the recount gives {recounted!r}, at or below it"
            )
    return None

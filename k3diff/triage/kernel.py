"""The MMD test's kernel on texts: the mean of three Hamming kernels, so that a change anywhere
in the first `CAP` characters (and in the last `EDGE`, however long the text) moves the MMD².

- head: the share of the first `EDGE` positions at which two texts agree (a position past both
  ends agrees), the kernel's whole view before; an early change keeps its weight there.
- tail: the same on the last `EDGE` characters, right-aligned (a change at the end of a long
  answer, "... N is correct." against "... I cannot help with that N").
- whole: positions 0 .. min(len, `CAP` - 1) of each text, the end of a shorter text marked, the
  agreeing positions over the geometric mean of the positions each text has (cosine
  normalisation, so two equal texts score 1 whatever their length).

Each is an inner product of feature maps (one indicator per position and character; the whole
kernel's divided by its norm), so each is positive semi-definite, and so is their mean: the MMD
is a metric on the distributions the features tell apart. numpy is imported inside the
functions (the `--help` path never loads it).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

EDGE = 20
"""Characters the head and tail kernels compare, position by position."""
CAP = 1_024
"""Characters of each text the whole-text kernel compares at most (from the start)."""
BLOCK = 1 << 24
"""Position comparisons per block of Gram rows (memory: about this many bytes at a time)."""
DESCRIPTION = f"hamming, mean of first {EDGE}, last {EDGE} and first {CAP:,} characters"
"""The kernel as the JSON report's `kernel` field names it."""
PROSE = (
    f"mean of Hamming kernels on the first {EDGE}, the last {EDGE} and the first {CAP:,} characters"
)
"""The kernel as the triage reason names it."""

_END = -1
"""Code of an ended text (head and tail padding; the whole view's end mark)."""
_ABSENT = -2
"""Code of a position a text does not have in the whole view (never agrees)."""


def _codes(texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(head, tail, whole) code arrays, one row per text."""
    import numpy as np

    width = min(CAP, max((len(t) + 1 for t in texts), default=1))
    head = np.full((len(texts), EDGE), _END, dtype=np.int32)
    tail = np.full((len(texts), EDGE), _END, dtype=np.int32)
    whole = np.full((len(texts), width), _ABSENT, dtype=np.int32)
    for row, text in enumerate(texts):
        first = [ord(ch) for ch in text[:EDGE]]
        last = [ord(ch) for ch in text[-EDGE:]] if text else []
        head[row, : len(first)] = first
        tail[row, EDGE - len(last) :] = last
        seen = [ord(ch) for ch in text[:width]]
        whole[row, : len(seen)] = seen
        if len(text) < width:
            whole[row, len(text)] = _END
    return head, tail, whole


def _agreements(codes: np.ndarray, counted: bool) -> np.ndarray:
    """Per pair of rows, the positions holding one code (`counted`: only codes other than
    `_ABSENT`). Built a block of rows at a time (about `BLOCK` comparisons each)."""
    import numpy as np

    count, width = codes.shape
    step = max(1, BLOCK // max(1, count * width))
    result = np.zeros((count, count), dtype=np.float64)
    for start in range(0, count, step):
        block = codes[start : start + step, None, :]
        same = block == codes[None, :, :]
        if counted:
            same &= block != _ABSENT
        result[start : start + step] = same.sum(axis=-1)
    return result


def gram(texts: Sequence[str]) -> np.ndarray:
    """The kernel matrix of `texts`: the mean of the head, tail and whole-text kernels."""
    import numpy as np

    if not texts:
        return np.zeros((0, 0))
    head, tail, whole = _codes(texts)
    positions = (whole != _ABSENT).sum(axis=1).astype(np.float64)  # >= 1: the end mark
    norm = np.sqrt(np.outer(positions, positions))
    result: np.ndarray = (
        _agreements(head, False) / EDGE
        + _agreements(tail, False) / EDGE
        + _agreements(whole, True) / norm
    ) / 3.0
    return result

"""The MMD test's kernel on texts: the mean of three Hamming kernels and a character n-gram
kernel, so that a change anywhere in a text moves the MMD²: at its place in the first `CAP`
characters and the last `EDGE`, and wherever it is in the first `GRAM_CAP` (a middle rewritten,
"the the the ..." in place of 1,700 characters of a 2,900-character answer).

- head: the share of the first `EDGE` positions at which two texts agree (a position past both
  ends agrees), the kernel's whole view before; an early change keeps its weight there.
- tail: the same on the last `EDGE` characters, right-aligned (a change at the end of a long
  answer, "... N is correct." against "... I cannot help with that N").
- whole: positions 0 .. min(len, `CAP` - 1) of each text, the end of a shorter text marked, the
  agreeing positions over the geometric mean of the positions each text has (cosine
  normalisation, so two equal texts score 1 whatever their length).
- grams: position-free, the cosine of two count vectors of `BUCKETS` buckets: each character
  `GRAM`-gram of the first `GRAM_CAP` characters (the text framed by `GRAM` - 1 start and end
  marks, so an empty text has grams too) counted in the bucket `xxh64(key, SEED) % BUCKETS`,
  the key the gram's code points, 21 bits each, first in the high bits, as 8 bytes little-endian
  (start mark 0x110000, end 0x110001). The bucket count bounds memory (a row of `BUCKETS`
  floats a text), and the fixed seed makes the kernel the same on every run.

Each is an inner product of feature maps (one indicator per position and character, or the
bucket counts; the whole and gram kernels' divided by their norms), so each is positive
semi-definite, and so is their mean: the MMD is a metric on the distributions the features tell
apart. numpy is imported inside the
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
GRAM = 3
"""Characters per gram of the position-free kernel."""
GRAM_CAP = 1 << 16
"""Characters of each text the gram kernel counts at most (from the start): bounds its time."""
BUCKETS = 1 << 12
"""Buckets of the gram kernel's count vectors."""
SEED = 0x6B3D
"""The seed of the gram kernel's xxh64 (fixed: the kernel is the same on every run)."""
DESCRIPTION = (
    f"mean of hamming on first {EDGE}, last {EDGE} and first {CAP:,} characters and cosine of"
    f" hashed {GRAM}-gram counts of first {GRAM_CAP:,} characters"
    f" (xxh64 seed {SEED:#x}, {BUCKETS:,} buckets)"
)
"""The kernel as the JSON report's `kernel` field names it (`report` re-derives a document only
with the kernel it names)."""
PROSE = (
    f"mean of Hamming kernels on the first {EDGE}, the last {EDGE} and the first {CAP:,} characters"
    f" and the cosine of {GRAM}-gram counts of the first {GRAM_CAP:,}"
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
    """The kernel matrix of `texts`: the mean of the head, tail, whole-text and gram kernels."""
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
        + _gram_cosines(texts)
    ) / 4.0
    return result


_START = 0x110000
"""Code of the gram kernel's start mark (past every code point)."""
_STOP = 0x110001
"""Code of the gram kernel's end mark."""
_BITS = 21
"""Bits of one code point in a gram's key."""


def _gram_keys(text: str) -> np.ndarray:
    """The key of each `GRAM`-gram of the framed text (its first `GRAM_CAP` characters)."""
    import numpy as np

    points = np.frombuffer(text[:GRAM_CAP].encode("utf-32-le", "surrogatepass"), dtype="<u4")
    framed = np.concatenate(
        [
            np.full(GRAM - 1, _START, dtype=np.uint64),
            points.astype(np.uint64),
            np.full(GRAM - 1, _STOP, dtype=np.uint64),
        ]
    )
    keys = np.zeros(len(framed) - GRAM + 1, dtype=np.uint64)
    for offset in range(GRAM):
        keys = (keys << np.uint64(_BITS)) | framed[offset : offset + len(keys)]
    return keys


def _counts(texts: Sequence[str]) -> np.ndarray:
    """One row of bucket counts per text (each distinct key hashed once per call)."""
    import numpy as np
    import xxhash

    buckets: dict[int, int] = {}
    result = np.zeros((len(texts), BUCKETS), dtype=np.float64)
    for row, text in enumerate(texts):
        keys, counts = np.unique(_gram_keys(text), return_counts=True)
        where = []
        for key in keys.tolist():
            bucket = buckets.get(key)
            if bucket is None:
                bucket = xxhash.xxh64_intdigest(key.to_bytes(8, "little"), SEED) % BUCKETS
                buckets[key] = bucket
            where.append(bucket)
        np.add.at(result[row], np.array(where, dtype=np.intp), counts)
        if len(buckets) > BLOCK // 16:  # bounded memory: a fresh cache
            buckets.clear()
    return result


def _gram_cosines(texts: Sequence[str]) -> np.ndarray:
    """The gram kernel: the cosine of the texts' bucket count vectors (each has a gram; N ×
    `BUCKETS` floats, N at most 2 × `distribution.MMD_SAMPLES`)."""
    import numpy as np

    counts = _counts(texts)
    counts /= np.sqrt(np.einsum("ij,ij->i", counts, counts))[:, None]
    result: np.ndarray = counts @ counts.T
    return result

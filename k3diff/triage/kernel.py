"""The MMD test's kernel on texts: the mean of three Hamming kernels and two character n-gram
kernels, so that a change anywhere in a text moves the MMD²: at its place in the first `CAP`
characters and the last `EDGE`, wherever it is in the whole text (a middle rewritten, "the the
the ..." in place of 1,700 characters of a 2,900-character answer, or of characters 66,000 to
68,000 of a 70,000-character one), and where it moves text about in the whole text (two steps
of an answer's end swapped).

- head: the share of the first `EDGE` positions at which two texts agree (a position past both
  ends agrees), the kernel's whole view before; an early change keeps its weight there.
- tail: the same on the last `EDGE` characters, right-aligned (a change at the end of a long
  answer, "... N is correct." against "... I cannot help with that N").
- whole: positions 0 .. min(len, `CAP` - 1) of each text, the end of a shorter text marked, the
  agreeing positions over the geometric mean of the positions each text has (cosine
  normalisation, so two equal texts score 1 whatever their length).
- grams: position-free, the cosine of two count vectors of `BUCKETS` buckets: each character
  `GRAM`-gram of the whole text (framed by `GRAM` - 1 start and end marks, so an empty text has
  grams too) counted in the bucket `splitmix64(key) % BUCKETS`, the key the gram's code points,
  21 bits each, first in the high bits (start mark 0x110000, end 0x110001), splitmix64 the
  SplitMix64 finalizer (`_MIX`, a bijection of 64-bit words). Each text is counted in one pass
  of `GRAM_CHUNK` characters at a time, so the time is linear in the characters and the memory
  N × `BUCKETS` floats and one chunk, whatever the texts' length (kernel73 counted the first
  65,536 characters only: a change past them and before the last `EDGE` passed, exit 0).
- placed: the same cosine of `BUCKETS` bucket counts, each gram counted with the part of the
  text it begins in, its bucket splitmix64((splitmix64(key) + part) mod 2**64) % `BUCKETS`:
  gram i of a framed text of g grams in part i × `PARTS` // max(g, `CAP`), so a text of `CAP`
  grams or more is cut into `PARTS` equal parts and a shorter one into parts of `CAP` //
  `PARTS` grams from its start (a text of fewer than 32 grams is one part, its placed counts
  its gram counts: a short answer's order is the whole view's). Order over the whole text at the gram kernel's cost,
  counted in the same pass: a patch that swapped the steps "Stop the … service" and "Delete
  the … data directory" of every ~1,800-character answer left the grams' counts alike and
  passed, exit 0 (mmd77: 1 of 10 seeded runs rejected at 40 answers a side, now 10 of 10).

Each is an inner product of feature maps (one indicator per position and character, or the
bucket counts; the whole, gram and placed kernels' divided by their norms), so each is positive
semi-definite, and so is their mean: the MMD is a metric on the distributions the features tell
apart. numpy is imported inside the functions (the `--help` path never loads it).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
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
GRAM_CHUNK = 1 << 16
"""Characters of a text the gram kernel hashes at a time (memory: about 40 bytes each)."""
BUCKETS = 1 << 12
"""Buckets of the gram and placed kernels' count vectors (a power of 2)."""
PARTS = 32
"""Parts of a text the placed kernel tells apart (mmd77: in eighths a swap of two steps that
both lay in one eighth was not seen; sixteenths rejected it in 9 of 10 seeded runs, 32 and 64
parts in 10)."""
DESCRIPTION = (
    f"mean of hamming on first {EDGE}, last {EDGE} and first {CAP:,} characters and cosines of"
    f" hashed {GRAM}-gram counts of all characters, unplaced and placed in {PARTS} equal parts"
    f" of the text or of {CAP:,} grams, the longer (splitmix64, {BUCKETS:,} buckets)"
)
"""The kernel as the JSON report's `kernel` field names it (`report` re-derives a document only
with the kernel it names)."""
PROSE = (
    f"mean of Hamming kernels on the first {EDGE}, the last {EDGE} and the first {CAP:,} characters"
    f" and the cosines of {GRAM}-gram counts of the whole text and of each of its {PARTS} parts"
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
    """The kernel matrix of `texts`: the mean of the head, tail, whole-text, gram and placed
    kernels."""
    import numpy as np

    if not texts:
        return np.zeros((0, 0))
    head, tail, whole = _codes(texts)
    positions = (whole != _ABSENT).sum(axis=1).astype(np.float64)  # >= 1: the end mark
    norm = np.sqrt(np.outer(positions, positions))
    counts, placed = _counts(texts)
    result: np.ndarray = (
        _agreements(head, False) / EDGE
        + _agreements(tail, False) / EDGE
        + _agreements(whole, True) / norm
        + _cosines(counts)
        + _cosines(placed)
    ) / 5.0
    return result


_START = 0x110000
"""Code of the gram kernel's start mark (past every code point)."""
_STOP = 0x110001
"""Code of the gram kernel's end mark."""
_BITS = 21
"""Bits of one code point in a gram's key."""
_MIX = (30, 0xBF58476D1CE4E5B9, 27, 0x94D049BB133111EB, 31)
"""The SplitMix64 finalizer's shifts and multipliers: z ^= z >> 30; z *= m1; z ^= z >> 27;
z *= m2; z ^= z >> 31 (mod 2**64)."""


def _pieces(text: str) -> Iterator[np.ndarray]:
    """The framed text's code points, `GRAM_CHUNK` characters at a time, each piece led by the
    last `GRAM` - 1 codes before it (so every gram lies whole in one piece, and once)."""
    import numpy as np

    carried = np.full(GRAM - 1, _START, dtype=np.uint64)
    for start in range(0, len(text), GRAM_CHUNK):
        chunk = text[start : start + GRAM_CHUNK].encode("utf-32-le", "surrogatepass")
        piece = np.concatenate([carried, np.frombuffer(chunk, dtype="<u4").astype(np.uint64)])
        yield piece
        carried = piece[len(piece) - GRAM + 1 :]
    yield np.concatenate([carried, np.full(GRAM - 1, _STOP, dtype=np.uint64)])


def _mixed(piece: np.ndarray) -> np.ndarray:
    """Each `GRAM`-gram of a piece: its key mixed by `_MIX` (a fresh array)."""
    import numpy as np

    count = len(piece) - GRAM + 1
    keys = np.zeros(count, dtype=np.uint64)
    for offset in range(GRAM):
        keys <<= np.uint64(_BITS)
        keys |= piece[offset : offset + count]
    return _mix(keys)


def _mix(keys: np.ndarray) -> np.ndarray:
    """`keys` (uint64) through the SplitMix64 finalizer, in place (numpy wraps the products)."""
    import numpy as np

    first, times, second, again, last = (np.uint64(v) for v in _MIX)
    keys ^= keys >> first
    keys *= times
    keys ^= keys >> second
    keys *= again
    keys ^= keys >> last
    return keys


def _bucketed(mixed: np.ndarray) -> np.ndarray:
    """Mixed keys mod `BUCKETS`, as bincount takes them (int64; a fresh array)."""
    import numpy as np

    return (mixed & np.uint64(BUCKETS - 1)).view(np.int64)


def _buckets(piece: np.ndarray) -> np.ndarray:
    """The bucket of each `GRAM`-gram of a piece: its key mixed by `_MIX`, mod `BUCKETS`."""
    return _bucketed(_mixed(piece))


def _counts(texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """(gram, placed) bucket counts, one row per text each, each text in one pass (`_pieces`):
    time linear in the characters, memory the 2 × N × `BUCKETS` rows and one piece. A gram's
    part is its index among the text's `len(text) + GRAM - 1` framed grams, times `PARTS`,
    floor-divided by their number or `CAP`, the larger."""
    import numpy as np

    free = np.zeros((len(texts), BUCKETS), dtype=np.float64)
    placed = np.zeros((len(texts), BUCKETS), dtype=np.float64)
    for row, text in enumerate(texts):
        grams, done = max(len(text) + GRAM - 1, CAP), 0
        for piece in _pieces(text):
            mixed = _mixed(piece)
            free[row] += np.bincount(_bucketed(mixed), minlength=BUCKETS)
            index = np.arange(done, done + len(mixed), dtype=np.uint64)
            mixed += index * np.uint64(PARTS) // np.uint64(grams)
            placed[row] += np.bincount(_bucketed(_mix(mixed)), minlength=BUCKETS)
            done += len(mixed)
    return free, placed


def _cosines(counts: np.ndarray) -> np.ndarray:
    """The cosines of the rows of bucket counts, in place (each row has a gram; N × `BUCKETS`
    floats, N at most 2 × `distribution.MMD_SAMPLES`)."""
    import numpy as np

    counts /= np.sqrt(np.einsum("ij,ij->i", counts, counts))[:, None]
    result: np.ndarray = counts @ counts.T
    return result

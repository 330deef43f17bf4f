"""The texts' similarity, `rapidfuzz.fuzz.ratio / 100`, within a budget of work.

rapidfuzz computes the Indel distance in time proportional to the product of the two lengths
(bit-parallel, 64 characters a word): two 256 KiB answers that differ throughout took 5.6 s,
two of 2 MiB 261 s, and the 64 MiB a record may hold would take days (hunt78). The similarity
decides nothing (a record's status comes from its hashes), so where it would cost more than the
run has left of `PAIR_BUDGET` it is not computed: the record says so in a note and its
similarity is null. A common prefix and suffix are cut first: they change neither the distance
nor the ratio (rapidfuzz cuts them too), so an answer that differs in one place costs little
whatever its length. A pair where a differing part holds a character past U+00FF costs
`WIDE_WEIGHT` times as much: rapidfuzz finds those in a hash map, not a table (review78c: the
budget's "about 10 s" was about 100 s for two texts of CJK characters that differ throughout).
"""

from __future__ import annotations

from rapidfuzz import fuzz

DIGITS = 6
BELOW_ONE = 1 - 10**-DIGITS
"""The highest similarity of two texts that differ."""
PAIR_BUDGET = 1 << 37
"""Character pairs (the product of the two texts' lengths past their common prefix and
suffix) the similarities of one run may cost in all: about 10 s at the 1.2 × 10^10 pairs a
second measured (100,000 pairs of 1 KiB answers that all differ fit in it)."""
WIDE_WEIGHT = 16
"""What a character pair costs, in pairs of the budget, where a differing part holds a
character past U+00FF (review78c, two 120,000-character texts that differ throughout: of 3,000
CJK characters 8.8 s, of 20,000 10.5 s, of 8 ASCII letters 0.87 s; 10 to 12 times)."""


class SimilarityBudget:
    """What one comparison has left to spend on similarities (records in report order, so a
    run and its rerun compute the same ones)."""

    def __init__(self, pairs: int = PAIR_BUDGET) -> None:
        self.left = pairs

    def similarity(self, base_text: str, patch_text: str) -> tuple[float | None, str | None]:
        """(rapidfuzz.fuzz.ratio/100 rounded, 1.0 only for equal texts; None), or, where that
        would cost more than is left, (None, the note that says it was not computed)."""
        if base_text == patch_text:
            return 1.0, None
        base_rest, patch_rest = _differing(base_text, patch_text)
        wide = _wide(base_rest) or _wide(patch_rest)
        cost = len(base_rest) * len(patch_rest) * (WIDE_WEIGHT if wide else 1)
        if cost > self.left:
            weighed = f", each pair weighing {WIDE_WEIGHT} (characters past U+00FF)" if wide else ""
            return None, (
                f"similarity not computed: the texts differ over {len(base_rest):,} and "
                f"{len(patch_rest):,} characters{weighed}, past what is left of the run's budget "
                f"of {PAIR_BUDGET:,} character pairs (rapidfuzz's time grows with their product)"
            )
        self.left -= cost
        ratio: float = fuzz.ratio(base_text, patch_text)  # cuts the same affixes itself
        return float(min(round(ratio / 100, DIGITS), BELOW_ONE)), None


def _differing(first: str, second: str) -> tuple[str, str]:
    """Both texts past their common prefix and suffix."""
    shorter = min(len(first), len(second))
    start = _common_prefix(first, second, shorter)
    end = _common_prefix(first[start:][::-1], second[start:][::-1], shorter - start)
    return first[start : len(first) - end], second[start : len(second) - end]


def _wide(text: str) -> bool:
    """The text holds a character past U+00FF (one rapidfuzz looks up in a hash map). Told by
    encoding it as Latin-1, which stops at the first such character (`max(text)` took 2 s for
    64 Mi characters, the encoding 0.09 s)."""
    if text.isascii():
        return False
    try:
        text.encode("latin-1")
    except UnicodeEncodeError:
        return True
    return False


def _common_prefix(first: str, second: str, limit: int) -> int:
    """The length of the common prefix of two texts (at most `limit`), found by halving."""
    low, high = 0, limit
    while low < high:
        middle = (low + high + 1) // 2
        if first[low:middle] == second[low:middle]:
            low = middle
        else:
            high = middle - 1
    return low

"""The texts' similarity, `rapidfuzz.fuzz.ratio / 100`, within a budget of work.

rapidfuzz computes the Indel distance in time proportional to the product of the two lengths
(bit-parallel, 64 characters a word): two 256 KiB answers that differ throughout took 5.6 s,
two of 2 MiB 261 s, and the 64 MiB a record may hold would take days (hunt78). The similarity
decides nothing (a record's status comes from its hashes), so where it would cost more than the
run has left of `PAIR_BUDGET` it is not computed: the record says so in a note and its
similarity is null. A common prefix and suffix are cut first: they change neither the distance
nor the ratio (rapidfuzz cuts them too), so an answer that differs in one place costs little
whatever its length.
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
        base_rest, patch_rest = _differing_lengths(base_text, patch_text)
        cost = base_rest * patch_rest
        if cost > self.left:
            return None, (
                f"similarity not computed: the texts differ over {base_rest:,} and "
                f"{patch_rest:,} characters, past what is left of the run's budget of "
                f"{PAIR_BUDGET:,} character pairs (rapidfuzz's time grows with their product)"
            )
        self.left -= cost
        ratio: float = fuzz.ratio(base_text, patch_text)  # cuts the same affixes itself
        return float(min(round(ratio / 100, DIGITS), BELOW_ONE)), None


def _differing_lengths(first: str, second: str) -> tuple[int, int]:
    """The lengths of both texts past their common prefix and suffix."""
    shorter = min(len(first), len(second))
    start = _common_prefix(first, second, shorter)
    end = _common_prefix(first[start:][::-1], second[start:][::-1], shorter - start)
    return len(first) - start - end, len(second) - start - end


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

"""The prefixes that tell two sides' texts apart: per side, the opening it gives most over the other
side's share (what a distribution test's rejection names as moved).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

PREFIX = 20
"""Characters of the prefixes `moved` names (and of the power simulation's head kernel)."""


@dataclass(frozen=True)
class Moved:
    """A prefix one side gives more often than the other."""

    side: str
    """The side that gives it more often."""
    prefix: str
    """The prefix (at most `PREFIX` characters)."""
    count: int
    """Samples of `side` that begin with it."""
    n: int
    """Samples of `side`."""
    other: int
    """Samples of the other side that begin with it."""
    other_n: int
    """Samples of the other side."""


def moved(patch: Sequence[str], base: Sequence[str]) -> tuple[Moved, ...]:
    """Per side, the prefix (of at most `PREFIX` characters) it gives most over the other side's
    share; among equal gaps the longest. Empty for a side that over-represents none."""
    found = []
    for side, mine, theirs in (("patch", patch, base), ("base", base, patch)):
        own = Counter(t[:length] for t in mine for length in range(1, min(len(t), PREFIX) + 1))
        other = Counter(t[:length] for t in theirs for length in range(1, min(len(t), PREFIX) + 1))
        best: tuple[float, int, str] | None = None
        for prefix, count in own.items():
            gap = count / len(mine) - other[prefix] / len(theirs)
            key = (round(gap, 12), len(prefix), prefix)
            if gap > 0 and (best is None or key[:2] > best[:2]):
                best = key
        if best is not None:
            prefix = best[2]
            found.append(Moved(side, prefix, own[prefix], len(mine), other[prefix], len(theirs)))
    return tuple(found)


def moved_text(found: Sequence[Moved]) -> str:
    """ "patch: 'ANSWER=' in 12 of 12, base: 0 of 12; base: 'The answer is ' in 12 of 12,
    patch: 0 of 12"."""
    parts = [
        f"{m.side}: {m.prefix!r} in {m.count} of {m.n}, "
        f"{'base' if m.side == 'patch' else 'patch'}: {m.other} of {m.other_n}"
        for m in found
    ]
    return "; ".join(parts) if parts else "no prefix is more common on either side"

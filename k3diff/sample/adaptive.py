"""Counts distinct outputs per record, side and mode, and says when the evidence is decisive.

With `--adaptive`, sampling a record in a mode stops (at most `--repeats` per side) once either

- the base gave two distinct outputs: the base is nondeterministic, so no patch mismatch on this
  record can be blamed on the patch; or
- both sides have at least `MIN_SAMPLES_PER_SIDE` successful samples and their modal outputs
  differ: a divergence to triage, whatever more samples show.
"""

from __future__ import annotations

from collections import Counter

MIN_SAMPLES_PER_SIDE = 3
"""Samples each side needs before differing modal outputs count as decisive."""

Slot = tuple[str, str]
"""(key, mode)."""


class Tally:
    """Output hashes seen so far (from the resumed log and this run)."""

    def __init__(self) -> None:
        self._counts: dict[tuple[str, str, str], Counter[str]] = {}
        self.errors = 0
        self.unstable: set[tuple[str, str, str]] = set()

    def add(self, side: str, key: str, mode: str, text_xxh3: str | None) -> None:
        """Count one sample (a failed one has no hash)."""
        if text_xxh3 is None:
            self.errors += 1
            return
        slot = (side, key, mode)
        counts = self._counts.setdefault(slot, Counter())
        counts[text_xxh3] += 1
        if len(counts) > 1:
            self.unstable.add(slot)

    def counts(self, side: str, key: str, mode: str) -> Counter[str]:
        return self._counts.get((side, key, mode), Counter())

    def decisive(self, key: str, mode: str, two_sided: bool) -> bool:
        """True when sampling this record in this mode can stop (see the module docstring)."""
        base = self.counts("base", key, mode)
        if len(base) >= 2:
            return True
        if not two_sided:
            return False
        patch = self.counts("patch", key, mode)
        enough = min(base.total(), patch.total()) >= MIN_SAMPLES_PER_SIDE
        return enough and base.most_common(1)[0][0] != patch.most_common(1)[0][0]

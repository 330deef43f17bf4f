"""inspect_ai's epochs as the score gate sees them: a sample scored in several epochs is one
item scored several times, not several independent items (`scoregate` holds such a run)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

EPOCH_KEY_FIELD = "id+epoch"
"""The pairing field of inspect_ai samples, keyed `ID/epoch-N` (`inspect_log.KEY_FIELD`)."""


def repeated_samples(keys: Iterable[str]) -> int:
    """How many sample ids appear under more than one epoch among `keys` (`ID/epoch-N`)."""
    epochs = Counter(key.rpartition("/epoch-")[0] for key in keys)
    return sum(1 for count in epochs.values() if count > 1)

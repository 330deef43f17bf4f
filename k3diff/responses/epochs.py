"""inspect_ai's epochs as the score tests see them: a sample scored in several epochs is one
item scored several times, not several independent items, so the tests take each sample's mean
over its epochs (`ScoreCollector`'s `cluster`): 300 samples in 5 epochs are 300 items."""

from __future__ import annotations

EPOCH_KEY_FIELD = "id+epoch"
"""The pairing field of inspect_ai samples, keyed `ID/epoch-N` (`inspect_log.KEY_FIELD`)."""
_EPOCH = "/epoch-"


def sample_of(key: str) -> str:
    """The sample a record keyed `ID/epoch-N` is an epoch of (its `ID`, which may itself hold
    `/epoch-`: the last one is the epoch's)."""
    return key.rpartition(_EPOCH)[0]

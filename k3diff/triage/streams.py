"""Each record's own random stream (stats64b): a permutation or Monte Carlo test of one record
draws from a generator seeded by (the run's seed, the record's key, the mode, the test), so the
same record's samples give the same p whatever else the run holds and in whatever order.

Until stats64b one stream per mode was shared by the records in their order, so reordering the
comparison, or adding a record before one, moved that record's p (three identical records read
0.6405, 0.628 and 0.6225): a verdict depended on samples that were not its own.
"""

from __future__ import annotations

import hashlib
import json
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

from k3diff.triage.distribution import SEED


def record_stream(key: str, mode: str, test: str) -> np.random.Generator:
    """The generator of `test` on record `key` in `mode`: numpy's SeedSequence of the run's seed
    and the SHA-256 of the three names (JSON-encoded, so no two triples share an encoding)."""
    import numpy as np

    digest = hashlib.sha256(json.dumps([key, mode, test]).encode()).digest()
    words = [int.from_bytes(digest[i : i + 4], "little") for i in range(0, len(digest), 4)]
    return np.random.default_rng([SEED, *words])

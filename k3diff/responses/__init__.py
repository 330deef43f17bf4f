"""Record-by-record comparison of captured server responses (`k3diff responses`).

Loaders read each input format (`loaders`, `sse`), shapes turn each raw record into one
`ResponseRecord` (`shapes`, `logprobs`), `pairing` matches base and patch records by key, and
`diff` compares each pair. `compare_responses` runs the whole thing.
"""

from k3diff.responses.compare import (
    SCHEMA,
    CompareOptions,
    ResponsesComparison,
    Summary,
    compare_responses,
)
from k3diff.responses.model import Normalization, ResponseRecord
from k3diff.responses.results import RecordDiff, Status

__all__ = [
    "SCHEMA",
    "CompareOptions",
    "Normalization",
    "RecordDiff",
    "ResponseRecord",
    "ResponsesComparison",
    "Status",
    "Summary",
    "compare_responses",
]

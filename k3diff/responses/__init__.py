"""Record-by-record comparison of captured server responses (`k3diff responses`).

Loaders read each input format (`loaders`, `sse`), shapes turn each raw record into one
`ResponseRecord` (`shapes`, `logprobs`), `spill` parks each side's records in a temporary file,
`pairing` matches base and patch records by key, and `diff` compares each pair.
`compare_streaming` runs the whole thing in bounded memory, handing each diff on as it is made.
"""

from k3diff.documents.ids import RESPONSES as SCHEMA
from k3diff.responses.compare import (
    CompareOptions,
    ResponsesOverview,
    Summary,
    compare_streaming,
)
from k3diff.responses.model import Normalization, ResponseRecord
from k3diff.responses.results import RecordDiff, Status

__all__ = [
    "SCHEMA",
    "CompareOptions",
    "Normalization",
    "RecordDiff",
    "ResponseRecord",
    "ResponsesOverview",
    "Status",
    "Summary",
    "compare_streaming",
]

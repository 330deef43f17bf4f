"""Repeated-request hash sampling against live OpenAI-compatible servers (`k3diff sample`).

`prompts` reads the requests to send, `client` sends one with retries (`retry`) and reads its
answer (`response`), `modes` schedules the runs of each mode (`names`), `log` appends every
sample to the durable `samples.jsonl`, whose format and one reader are `lines`, `header` and
`reader`, `adaptive` decides when a record's evidence is decisive, and `run` ties them together.
"""

# The names below are imported on first use (PEP 562), so that importing a module of this
# package (a document reader imports its model) never loads what its command runs with: the
# heavy libraries (scipy, httpx, pyelftools, rapidfuzz, matplotlib) load only when used.

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from k3diff.ids import SAMPLE as SUMMARY_SCHEMA
    from k3diff.ids import SAMPLES as LOG_SCHEMA
    from k3diff.sample.model import (
        RecordStats,
        SampleOptions,
        SampleResult,
    )
    from k3diff.sample.names import Mode
    from k3diff.sample.run import run_sampling

_LAZY = {
    "LOG_SCHEMA": ("k3diff.ids", "SAMPLES"),
    "SUMMARY_SCHEMA": ("k3diff.ids", "SAMPLE"),
    "Mode": ("k3diff.sample.names", "Mode"),
    "RecordStats": ("k3diff.sample.model", "RecordStats"),
    "SampleOptions": ("k3diff.sample.model", "SampleOptions"),
    "SampleResult": ("k3diff.sample.model", "SampleResult"),
    "run_sampling": ("k3diff.sample.run", "run_sampling"),
}
"""Exported name -> (module, attribute)."""

__all__ = [
    "LOG_SCHEMA",
    "SUMMARY_SCHEMA",
    "Mode",
    "RecordStats",
    "SampleOptions",
    "SampleResult",
    "run_sampling",
]


def __getattr__(name: str) -> Any:
    target = _LAZY.get(name)
    if target is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(target[0]), target[1])

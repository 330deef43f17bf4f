"""Repeated-request hash sampling against live OpenAI-compatible servers (`k3diff sample`).

`prompts` reads the requests to send, `client` sends one with retries and reads its answer
(`response`), `modes` schedules the serial, concurrent and loaded runs, `log` appends every sample
to the durable `samples.jsonl` (and reads it back for `--resume`), `adaptive` decides when a
record's evidence is decisive, and `run` ties them together.
"""

from k3diff.sample.model import (
    LOG_SCHEMA,
    SUMMARY_SCHEMA,
    Mode,
    RecordStats,
    SampleOptions,
    SampleResult,
)
from k3diff.sample.run import run_sampling

__all__ = [
    "LOG_SCHEMA",
    "SUMMARY_SCHEMA",
    "Mode",
    "RecordStats",
    "SampleOptions",
    "SampleResult",
    "run_sampling",
]

"""The samples whose request failed, per side. Telemetry counts none of them (a failed request
reports no usage, latency or draft counts): it says how many there were and their most common
error, as `sample` and `triage` do. Before (triage70), `telemetry` without `--expect` did not
mention them at all: a patch that failed every request of a record showed only fewer samples."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from k3diff.sample.lines import SampleLine
from k3diff.sample.names import SIDES


@dataclass(frozen=True)
class FailedSamples:
    """One side's failed samples, of every mode."""

    side: str
    samples: int
    """Samples whose request failed (an HTTP error, a connection closed, an answer refused or
    cut short), the control's included."""
    of: int
    """Every sample of the side in the logs, failed or not."""
    error: str
    """Their most common error, as the log keeps it."""
    error_samples: int
    """How many of them gave it."""


def failed_samples(samples: Sequence[SampleLine]) -> tuple[FailedSamples, ...]:
    """Per side with a failed sample, in SIDES order, how many failed and why most often."""
    every = Counter(sample.side for sample in samples)
    errors: dict[str, Counter[str]] = {}
    for sample in samples:
        if sample.error is not None:
            errors.setdefault(sample.side, Counter())[sample.error] += 1
    found = []
    for side in SIDES:
        if side in errors:
            (error, count), *_ = errors[side].most_common(1)
            found.append(FailedSamples(side, errors[side].total(), every[side], error, count))
    return tuple(found)
